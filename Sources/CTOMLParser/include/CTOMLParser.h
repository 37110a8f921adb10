// A C view of toml++ for Swift: parse a document, walk it, free it. Everything a caller
// receives is owned by the document (one free releases all) or by the caller's own buffers,
// so nothing can leak. (TOMLKit, used before, freed nothing: a parse leaked the whole tree.)
#ifndef FLICKD_CTOMLPARSER_H
#define FLICKD_CTOMLPARSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A parsed document: owns its root table and every node below it.
typedef struct flick_toml_document flick_toml_document;
/// A node of a document, valid until the document is freed.
typedef struct flick_toml_node flick_toml_node;

typedef enum flick_toml_kind {
    FLICK_TOML_TABLE,
    FLICK_TOML_ARRAY,
    FLICK_TOML_STRING,
    FLICK_TOML_INTEGER,
    FLICK_TOML_FLOAT,
    FLICK_TOML_BOOLEAN,
    FLICK_TOML_DATE,
    FLICK_TOML_TIME,
    FLICK_TOML_DATE_TIME,
} flick_toml_kind;

/// Why a document was refused. The message is held here, not allocated: nothing to free.
typedef struct flick_toml_error {
    char message[512];  // NUL-terminated, cut at 511 bytes
    uint32_t line;      // 1-based; 0 when toml++ gives none
    uint32_t column;
} flick_toml_error;

/// One key of a table and its value.
typedef struct flick_toml_entry {
    const char *key;    // UTF-8, not NUL-terminated (a quoted key may hold an escaped NUL)
    size_t key_length;
    uint32_t key_line;  // where the key is written, 1-based; 0 when toml++ gives none
    const flick_toml_node *value;
} flick_toml_entry;

/// Parses `length` bytes of TOML. Returns the document, or NULL with `error` filled in.
flick_toml_document *flick_toml_parse(const char *text, size_t length, flick_toml_error *error);
void flick_toml_free(flick_toml_document *document);

/// The document's root table.
const flick_toml_node *flick_toml_root(const flick_toml_document *document);

flick_toml_kind flick_toml_kind_of(const flick_toml_node *node);
/// The number of entries of a table or elements of an array; 0 for any other node.
size_t flick_toml_count(const flick_toml_node *node);
/// Writes up to `capacity` entries of a table, in key order; returns how many it wrote.
size_t flick_toml_entries(const flick_toml_node *table, flick_toml_entry *entries, size_t capacity);
/// An element of an array; NULL past its end.
const flick_toml_node *flick_toml_element(const flick_toml_node *array, size_t index);

/// A string's UTF-8 bytes (not NUL-terminated); NULL for any other node.
const char *flick_toml_string(const flick_toml_node *node, size_t *length);
/// The value of an integer, float or boolean node; false for any other kind.
bool flick_toml_integer(const flick_toml_node *node, int64_t *value);
bool flick_toml_float(const flick_toml_node *node, double *value);
bool flick_toml_boolean(const flick_toml_node *node, bool *value);

#ifdef __cplusplus
}
#endif

#endif
