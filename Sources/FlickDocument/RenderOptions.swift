import FlickCore

/// `flickd-render`'s command line (docs/documents.md, "Starting the helper"): flickd writes it,
/// so a wrong one is a bug in flickd or a hand-run helper, said in one line and exit 64.
public struct RenderOptions: Hashable, Sendable {
    /// A document file flickd opened and passed: its descriptor and its name (for messages).
    public struct DocumentFile: Hashable, Sendable {
        /// The descriptor, read from offset 0.
        public var fd: Int32
        /// The file's name (a basename), used only in messages.
        public var name: String

        /// Creates a document file.
        public init(fd: Int32, name: String) {
            self.fd = fd
            self.name = name
        }
    }

    /// The socket to flickd (its end of a socket pair).
    public var socket: Int32
    /// The documents, in page order.
    public var documents: [DocumentFile]
    /// A page's width at zoom 1 when continuous, px.
    public var pageWidth: Int
    /// The screen's size when paging is on.
    public var cell: DocumentLayout.PixelSize?
    /// Between pages, px.
    public var gap: Int = 0
    /// The way pages follow one another.
    public var direction: DocumentDirection = .vertical
    /// Behind and between pages: `0xRRGGBB`.
    public var background: UInt32 = 0
    /// The most levels of detail above zoom 1 (0…3).
    public var detailMax: Int = 0
    /// The tiles' side, px (64…1024).
    public var tileSize: Int = 256
    /// The pool's slots (1…64).
    public var slots: Int = 16
    /// The most pages the document may have.
    public var maxPages: Int = 2000
    /// The helper's address space, MiB (`RLIMIT_AS`).
    public var memoryMB: Int = 512

    /// Creates options with the defaults of the flags flickd may leave out.
    public init(socket: Int32, documents: [DocumentFile], pageWidth: Int) {
        self.socket = socket
        self.documents = documents
        self.pageWidth = pageWidth
    }

    /// The usage line printed with every refusal.
    public static let usage = "usage: flickd-render --socket FD --document FD:NAME [--document FD:NAME ...] --page-width PX "
        + "[--cell WxH] [--gap PX] [--direction vertical|horizontal] [--background '#RRGGBB'] [--detail-max 0-3] "
        + "[--tile-size 64-1024] [--slots 1-64] [--max-pages N] [--memory-mb MB]"

    /// Parses the arguments after the program's name.
    /// - Throws: `RenderUsageError`, naming the flag and what it expected.
    public init(arguments: [String]) throws(RenderUsageError) {
        var socket: Int32?, documents: [DocumentFile] = [], pageWidth: Int?
        var parsed = RenderOptions(socket: 0, documents: [], pageWidth: 1)
        var index = 0
        while index < arguments.count {
            let flag = arguments[index]
            guard index + 1 < arguments.count else { throw RenderUsageError(flag: flag, expected: "a value after it") }
            let value = arguments[index + 1]
            index += 2
            switch flag {
            case "--socket": socket = try Self.descriptor(value, flag)
            case "--document": documents.append(try Self.document(value))
            case "--page-width": pageWidth = try Self.whole(value, flag, 1...DocumentLayout.maximumExtent)
            case "--cell": parsed.cell = try Self.cell(value)
            case "--gap": parsed.gap = try Self.whole(value, flag, DocumentLayout.gapRange)
            case "--direction":
                guard let direction = DocumentDirection(rawValue: value) else {
                    throw RenderUsageError(flag: flag, expected: "vertical or horizontal", found: value)
                }
                parsed.direction = direction
            case "--background": parsed.background = try Self.colour(value)
            case "--detail-max": parsed.detailMax = try Self.whole(value, flag, 0...3)
            case "--tile-size": parsed.tileSize = try Self.whole(value, flag, 64...1024)
            case "--slots": parsed.slots = try Self.whole(value, flag, 1...64)
            case "--max-pages": parsed.maxPages = try Self.whole(value, flag, 1...10_000_000)
            case "--memory-mb": parsed.memoryMB = try Self.whole(value, flag, 16...1_048_576)
            default: throw RenderUsageError(flag: flag, expected: "one of the flags of the usage line")
            }
        }
        guard let socket else { throw RenderUsageError(flag: "--socket", expected: "the socket's descriptor") }
        guard !documents.isEmpty else { throw RenderUsageError(flag: "--document", expected: "at least one document") }
        guard let pageWidth else { throw RenderUsageError(flag: "--page-width", expected: "a page's width in px") }
        let fds = [socket] + documents.map(\.fd)
        guard Set(fds).count == fds.count else {
            throw RenderUsageError(flag: "--document", expected: "a descriptor of its own for each document and the socket")
        }
        parsed.socket = socket
        parsed.documents = documents
        parsed.pageWidth = pageWidth
        self = parsed
    }

    private static func whole(_ text: String, _ flag: String, _ range: ClosedRange<Int>) throws(RenderUsageError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw RenderUsageError(flag: flag, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)", found: text)
        }
        return value
    }

    private static func descriptor(_ text: String, _ flag: String) throws(RenderUsageError) -> Int32 {
        // 0 to 2 are stdin, stdout and stderr: never the socket or a document.
        Int32(try whole(text, flag, 3...65_535))
    }

    private static func document(_ text: String) throws(RenderUsageError) -> DocumentFile {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty, !parts[1].contains("/") else {
            throw RenderUsageError(flag: "--document", expected: "FD:NAME, NAME a file's name without '/'", found: text)
        }
        return DocumentFile(fd: try descriptor(String(parts[0]), "--document"), name: String(parts[1]))
    }

    private static func cell(_ text: String) throws(RenderUsageError) -> DocumentLayout.PixelSize {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        let sides = 1...DocumentLayout.maximumExtent
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), sides.contains(width), sides.contains(height) else {
            throw RenderUsageError(flag: "--cell", expected: "WIDTHxHEIGHT in px, each 1 to \(sides.upperBound)", found: text)
        }
        return DocumentLayout.PixelSize(width: width, height: height)
    }

    private static func colour(_ text: String) throws(RenderUsageError) -> UInt32 {
        let digits = text.utf8.dropFirst()
        guard text.utf8.first == UInt8(ascii: "#"), digits.count == 6, digits.allSatisfy({ isHexDigit($0) }),
              let value = UInt32(String(text.dropFirst()), radix: 16) else {
            throw RenderUsageError(flag: "--background", expected: "#RRGGBB", found: text)
        }
        return value
    }

    private static func isHexDigit(_ c: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(c)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(c)
    }
}

/// A command line `flickd-render` refuses (exit 64, EX_USAGE).
public struct RenderUsageError: FlickError, Hashable, Sendable {
    /// The flag at fault.
    public var flag: String
    /// What it takes.
    public var expected: String
    /// What was given, if anything.
    public var found: String?

    /// Creates a refusal.
    public init(flag: String, expected: String, found: String? = nil) {
        self.flag = flag
        self.expected = expected
        self.found = found
    }

    public var context: ErrorContext { ErrorContext(source: "flickd-render", key: flag, expected: expected, found: found) }
    public var kind: ErrorKind { .usage }
}
