// toml++ (Debian's libtomlplusplus-dev) compiled in its header-only mode into this one file:
// the fuzz build instruments the parser with the rest of flickd (libFuzzer found four aborts
// inside it, RELIABILITY.md), and flickd needs no toml++ library at run time.
#include "CTOMLParser.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <string_view>
#include <toml++/toml.h>

// The opaque C types are toml++'s own objects: the casts below are the whole binding.
static const toml::node *node(const flick_toml_node *n) { return reinterpret_cast<const toml::node *>(n); }
static const flick_toml_node *handle(const toml::node *n) { return reinterpret_cast<const flick_toml_node *>(n); }

extern "C" flick_toml_document *flick_toml_parse(const char *text, size_t length, flick_toml_error *error) {
    try {
        auto *table = new (std::nothrow) toml::table(toml::parse(std::string_view(text, length)));
        if (table == nullptr) {
            std::snprintf(error->message, sizeof error->message, "out of memory");
            error->line = error->column = 0;
        }
        return reinterpret_cast<flick_toml_document *>(table);
    } catch (const toml::parse_error &e) {
        std::string_view what = e.description();
        size_t n = std::min(what.size(), sizeof error->message - 1);
        std::memcpy(error->message, what.data(), n);
        error->message[n] = '\0';
        error->line = e.source().begin.line;
        error->column = e.source().begin.column;
        return nullptr;
    } catch (const std::exception &e) {
        // toml++ throws only parse_error, but an exception must not cross into Swift (it would
        // terminate the daemon): out of memory, or anything else, is a refusal too.
        std::snprintf(error->message, sizeof error->message, "%s", e.what());
        error->line = error->column = 0;
        return nullptr;
    }
}

extern "C" void flick_toml_free(flick_toml_document *document) {
    delete reinterpret_cast<toml::table *>(document);
}

extern "C" const flick_toml_node *flick_toml_root(const flick_toml_document *document) {
    return handle(reinterpret_cast<const toml::table *>(document));
}

extern "C" flick_toml_kind flick_toml_kind_of(const flick_toml_node *n) {
    switch (node(n)->type()) {
    case toml::node_type::table: return FLICK_TOML_TABLE;
    case toml::node_type::array: return FLICK_TOML_ARRAY;
    case toml::node_type::string: return FLICK_TOML_STRING;
    case toml::node_type::integer: return FLICK_TOML_INTEGER;
    case toml::node_type::floating_point: return FLICK_TOML_FLOAT;
    case toml::node_type::boolean: return FLICK_TOML_BOOLEAN;
    case toml::node_type::date: return FLICK_TOML_DATE;
    case toml::node_type::time: return FLICK_TOML_TIME;
    default: return FLICK_TOML_DATE_TIME;  // node_type::none never occurs in a parsed tree
    }
}

extern "C" size_t flick_toml_count(const flick_toml_node *n) {
    if (auto *t = node(n)->as_table()) return t->size();
    if (auto *a = node(n)->as_array()) return a->size();
    return 0;
}

extern "C" size_t flick_toml_entries(const flick_toml_node *n, flick_toml_entry *entries, size_t capacity) {
    auto *table = node(n)->as_table();
    if (table == nullptr) return 0;
    size_t written = 0;
    for (auto &&[key, value] : *table) {
        if (written == capacity) break;
        std::string_view name = key.str();
        entries[written++] = flick_toml_entry{name.data(), name.size(), key.source().begin.line, handle(&value)};
    }
    return written;
}

extern "C" const flick_toml_node *flick_toml_element(const flick_toml_node *n, size_t index) {
    auto *array = node(n)->as_array();
    return array != nullptr && index < array->size() ? handle(array->get(index)) : nullptr;
}

extern "C" const char *flick_toml_string(const flick_toml_node *n, size_t *length) {
    auto *s = node(n)->as_string();
    if (s == nullptr) return nullptr;
    *length = s->get().size();
    return s->get().data();
}

extern "C" bool flick_toml_integer(const flick_toml_node *n, int64_t *value) {
    auto *v = node(n)->as_integer();
    if (v != nullptr) *value = v->get();
    return v != nullptr;
}

extern "C" bool flick_toml_float(const flick_toml_node *n, double *value) {
    auto *v = node(n)->as_floating_point();
    if (v != nullptr) *value = v->get();
    return v != nullptr;
}

extern "C" bool flick_toml_boolean(const flick_toml_node *n, bool *value) {
    auto *v = node(n)->as_boolean();
    if (v != nullptr) *value = v->get();
    return v != nullptr;
}
