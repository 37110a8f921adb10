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

    /// What a `links` line stays under, in bytes, its newline included: well within the 64 KiB
    /// flickd reads a line to.
    public static let linksLineLimit = 60_000

    /// `links` for page `page` (over the document): its links as flickd reads them, in as many
    /// lines as keep each under `linksLineLimit` (flickd appends those of one page). Each link is
    /// its area in the page's points from its top-left, and one of `toPage` (0-based over the
    /// document) with `toX`/`toY` when the destination fixes them, `uri`, `file` (with `toPage`
    /// in that file when named) or `missing`. No line for a page without links.
    public static func links(page: Int, _ links: [PageLink]) -> [String] {
        let head = "{\"cmd\":\"links\",\"page\":\(page),\"links\":[", tail = "]}\n"
        let room = linksLineLimit - 1 - head.utf8.count - tail.utf8.count
        var lines: [String] = [], objects: [String] = [], used = 0
        for link in links {
            var object = self.object(link)
            if object.utf8.count > room {
                // A URI or a file name of tens of kilobytes: the link cannot be sent as it is,
                // but flickd can still say where a touch found nothing to follow.
                let size = object.utf8.count
                object = self.object(PageLink(page: link.page, x: link.x, y: link.y, width: link.width, height: link.height,
                                              target: .missing("a link too long to send (\(size) bytes of JSON)")))
            }
            // One comma before every object but a line's first.
            if !objects.isEmpty, used + 1 + object.utf8.count > room {
                lines.append(head + objects.joined(separator: ",") + tail)
                objects = []
                used = 0
            }
            used += (objects.isEmpty ? 0 : 1) + object.utf8.count
            objects.append(object)
        }
        if !objects.isEmpty { lines.append(head + objects.joined(separator: ",") + tail) }
        return lines
    }

    /// One link of a `links` line.
    private static func object(_ link: PageLink) -> String {
        var fields = ["\"x\":\(number(link.x))", "\"y\":\(number(link.y))", "\"width\":\(number(link.width))",
                      "\"height\":\(number(link.height))"]
        switch link.target {
        case let .page(page, x, y):
            fields.append("\"toPage\":\(page)")
            if let x { fields.append("\"toX\":\(number(x))") }
            if let y { fields.append("\"toY\":\(number(y))") }
        case let .uri(uri):
            fields.append("\"uri\":\(string(uri))")
        case let .file(file, page):
            fields.append("\"file\":\(string(file))")
            if let page { fields.append("\"toPage\":\(page)") }
        case let .missing(what):
            fields.append("\"missing\":\(string(what))")
        }
        return "{" + fields.joined(separator: ",") + "}"
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
