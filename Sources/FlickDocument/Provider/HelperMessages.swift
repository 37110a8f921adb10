import FlickCore

/// The lines the helper writes (docs/documents.md, "The two messages"; docs/protocol.md for
/// `tile`). Written by hand, not through FlickControl's request type: `provide`'s `document`
/// field and `documentError` exist only on the helper's connection.
public enum HelperMessages {
    /// The id of the helper's first line, `provide` or `documentError`.
    public static let firstID = 1

    /// `provide` for `document`, drawn in `tileSize` tiles from a pool of `slots`.
    public static func provide(_ document: Document, tileSize: Int, slots: Int, detail: Int) -> String {
        let runs = document.pageRuns.map { "[\(number($0.width)),\(number($0.height)),\($0.count)]" }
        let files = document.files.map(string)
        return "{\"id\":\(firstID),\"cmd\":\"provide\",\"width\":\(document.layout.size.width),\"height\":\(document.layout.size.height),"
            + "\"tileSize\":\(tileSize),\"slots\":\(slots),\"detail\":\(detail),\"opaque\":true,\"name\":\"document\","
            + "\"document\":{\"files\":[\(files.joined(separator: ","))],\"pages\":[\(runs.joined(separator: ","))]}}\n"
    }

    /// `documentError` for `error`.
    public static func documentError(_ error: DocumentError) -> String {
        "{\"id\":\(firstID),\"cmd\":\"documentError\",\"file\":\(string(error.file)),"
            + (error.page.map { "\"page\":\($0)," } ?? "")
            + "\"reason\":\"\(error.reason.rawValue)\",\"message\":\(string(error.message))}\n"
    }

    /// The answer to tile request `request`.
    public static func tile(_ request: Int, drawn: Bool) -> String {
        "{\"cmd\":\"tile\",\"request\":\(request)\(drawn ? "" : ",\"drawn\":false")}\n"
    }

    /// A finite Double as JSON: Swift's shortest text that reads back to the same bits, so
    /// flickd's `DocumentLayout` gets exactly the sizes the helper laid out.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        return value == value.rounded() && abs(value) < 0x1p53 ? String(Int64(value)) : "\(value)"
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
