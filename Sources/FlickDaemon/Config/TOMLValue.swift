import CTOMLParser

/// A TOML value, copied out of toml++'s tree. The tree is freed before `parse` returns, so a
/// parse costs nothing after it, whatever the text (`ConfigLoaderMemoryTests`).
enum TOMLValue: Sendable {
    case table([TOMLEntry])
    case array([TOMLValue])
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    case date
    case time
    case dateTime
}

/// One key of a table, in the order toml++ keeps them (by key).
struct TOMLEntry: Sendable {
    let key: String
    /// Where toml++ read the key, 1-based; 0 when it does not say.
    let line: Int
    let value: TOMLValue
}

/// toml++'s refusal of a document.
struct TOMLSyntaxError: Error, Sendable {
    let message: String
    /// 1-based; 0 when toml++ does not say.
    let line: Int
}

extension TOMLValue {
    /// Parses a whole document into its root table's entries.
    static func parse(_ text: String) throws(TOMLSyntaxError) -> [TOMLEntry] {
        var text = text
        var error = flick_toml_error()
        let document = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { flick_toml_parse($0.baseAddress, $0.count, &error) }
        }
        guard let document else {
            let message = withUnsafeBytes(of: &error.message) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            throw TOMLSyntaxError(message: message, line: Int(error.line))
        }
        defer { flick_toml_free(document) }
        return entries(of: flick_toml_root(document))
    }

    /// toml++ bounds nesting (256 levels), so the recursion below is bounded too.
    private static func value(of node: OpaquePointer) -> TOMLValue {
        switch flick_toml_kind_of(node) {
        case FLICK_TOML_TABLE:
            return .table(entries(of: node))
        case FLICK_TOML_ARRAY:
            return .array((0..<flick_toml_count(node)).compactMap { flick_toml_element(node, $0).map(value(of:)) })
        case FLICK_TOML_STRING:
            var length = 0
            guard let bytes = flick_toml_string(node, &length) else { return .string("") }
            return .string(String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self))
        case FLICK_TOML_INTEGER:
            var n: Int64 = 0
            _ = flick_toml_integer(node, &n)
            return .integer(n)
        case FLICK_TOML_FLOAT:
            var d = 0.0
            _ = flick_toml_float(node, &d)
            return .float(d)
        case FLICK_TOML_BOOLEAN:
            var b = false
            _ = flick_toml_boolean(node, &b)
            return .boolean(b)
        case FLICK_TOML_DATE: return .date
        case FLICK_TOML_TIME: return .time
        default: return .dateTime
        }
    }

    private static func entries(of table: OpaquePointer) -> [TOMLEntry] {
        let count = flick_toml_count(table)
        var raw = [flick_toml_entry](repeating: flick_toml_entry(), count: count)
        let written = flick_toml_entries(table, &raw, count)
        return raw.prefix(written).map { entry in
            let key = String(decoding: UnsafeRawBufferPointer(start: entry.key, count: entry.key_length), as: UTF8.self)
            return TOMLEntry(key: key, line: Int(entry.key_line), value: value(of: entry.value))
        }
    }

    // MARK: Reading a value

    var string: String? { if case let .string(s) = self { s } else { nil } }
    var int: Int? { if case let .integer(n) = self { Int(exactly: n) } else { nil } }
    /// A float only: an integer is not a `double` (readers that take both ask for each).
    var double: Double? { if case let .float(d) = self { d } else { nil } }
    var bool: Bool? { if case let .boolean(b) = self { b } else { nil } }
    var array: [TOMLValue]? { if case let .array(a) = self { a } else { nil } }
    var table: [TOMLEntry]? { if case let .table(t) = self { t } else { nil } }

    /// What the value is, for messages ("expected …, got a table").
    var kindName: String {
        switch self {
        case .table: "table"
        case .array: "array"
        case .string: "string"
        case .integer: "integer"
        case .float: "floating-point number"
        case .boolean: "bool"
        case .date: "date"
        case .time: "time"
        case .dateTime: "date-time"
        }
    }
}
