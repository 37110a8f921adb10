import FlickCore

/// What flickd-render declares with its `provide`: the document's files and its pages' sizes
/// in points, run-length (docs/documents.md).
public struct ControlDocumentDeclaration: Codable, Hashable, Sendable {
    /// The files' names, in page order.
    public var files: [String]
    /// `[width, height, count]` per run of pages of one size, in page order over all files.
    public var pages: [[Double]]

    /// Creates a declaration.
    public init(files: [String], pages: [[Double]]) {
        self.files = files
        self.pages = pages
    }

    /// The pages' sizes one by one, at most `limit` of them.
    /// - Throws: `ControlError.badField` for a run that is not `[width, height, count]` with a
    ///   whole count of at least 1, or more pages than `limit`.
    public func pageSizes(limit: Int) throws(ControlError) -> [(width: Double, height: Double)] {
        var sizes: [(width: Double, height: Double)] = []
        for run in pages {
            guard run.count == 3, run[2] >= 1, run[2] <= Double(limit), run[2].rounded() == run[2] else {
                throw .badField(command: "provide", field: "document.pages", expected: "runs of [width, height, count], count a whole number from 1")
            }
            let count = Int(run[2])
            guard sizes.count + count <= limit else {
                throw .badField(command: "provide", field: "document.pages", expected: "at most \(limit) pages")
            }
            sizes += repeatElement((width: run[0], height: run[1]), count: count)
        }
        return sizes
    }
}

/// flickd-render's `documentError`: the document cannot be shown, and why.
public struct ControlDocumentFailure: Codable, Hashable, Sendable {
    /// The file it is about (its name, not a path).
    public var file: String?
    /// The page it is about, 1-based, if any.
    public var page: Int?
    /// `notADocument`, `encrypted`, `truncated`, `pageTooLarge`, `tooManyPages`, `noPages`,
    /// `tooComplex`, `outOfMemory` or `unsupported`.
    public var reason: String
    /// What a person reads: the journal's line and `status.document.error.message`.
    public var message: String

    /// The reasons docs/documents.md lists.
    public static let reasons: Set<String> = ["notADocument", "encrypted", "truncated", "pageTooLarge", "tooManyPages",
                                              "noPages", "tooComplex", "outOfMemory", "unsupported"]

    /// Creates a failure.
    public init(file: String? = nil, page: Int? = nil, reason: String, message: String) {
        self.file = file
        self.page = page
        self.reason = reason
        self.message = message
    }

    /// A `documentError` request's failure.
    /// - Throws: `ControlError` for a missing `reason` or `message`, or a reason not listed.
    init(_ r: ControlRequest) throws(ControlError) {
        guard let reason = r.reason else { throw .missingField(command: r.cmd, field: "reason") }
        guard Self.reasons.contains(reason) else {
            throw .badField(command: r.cmd, field: "reason", expected: "one of \(Self.reasons.sorted().joined(separator: ", "))")
        }
        guard let message = r.message else { throw .missingField(command: r.cmd, field: "message") }
        self.init(file: r.file, page: r.page, reason: reason, message: message)
    }
}

/// A document shown through flickd-render, as `status` reports it (docs/protocol.md).
public struct ControlDocumentStatus: Codable, Hashable, Sendable {
    /// The files, in page order.
    public var files: [String]
    /// Its pages, once the helper has laid them out.
    public var pages: Int?
    /// `starting`, `showing`, `restarting` or `failed`.
    public var state: String
    /// Restarts in a row since it last served for a minute.
    public var restarts: Int
    /// The helper's process id, while it runs.
    public var pid: Int?
    /// Why it failed (`state` is `failed`).
    public var error: Failure?

    /// Why a document is not shown.
    public struct Failure: Codable, Hashable, Sendable {
        /// A `documentError`'s reason, or `crashed` (the helper died too often in a row),
        /// `layoutMismatch` (its layout is not flickd's), `cannotStart` (it could not be run).
        public var reason: String
        /// What a person reads.
        public var message: String

        /// Creates a failure.
        public init(reason: String, message: String) {
            self.reason = reason
            self.message = message
        }
    }

    /// Creates a status.
    public init(files: [String], pages: Int?, state: String, restarts: Int, pid: Int?, error: Failure?) {
        self.files = files
        self.pages = pages
        self.state = state
        self.restarts = restarts
        self.pid = pid
        self.error = error
    }
}

/// One link of flickd-render's `links` line: its area in the page's points (origin at the
/// page's top-left) and exactly one of where it goes (docs/documents.md, "Links").
public struct ControlLink: Codable, Hashable, Sendable {
    public var x: Double, y: Double, width: Double, height: Double
    /// A page of the document (0-based), and the position there in its points, when fixed;
    /// with `file`, the page of that file (0-based).
    public var toPage: Int?
    public var toX: Double?, toY: Double?
    /// A URI.
    public var uri: String?
    /// A file outside the document.
    public var file: String?
    /// An internal link that leads nowhere: why.
    public var missing: String?

    /// Creates a link.
    public init(x: Double, y: Double, width: Double, height: Double, toPage: Int? = nil, toX: Double? = nil, toY: Double? = nil,
                uri: String? = nil, file: String? = nil, missing: String? = nil) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
        (self.toPage, self.toX, self.toY, self.uri, self.file, self.missing) = (toPage, toX, toY, uri, file, missing)
    }

    /// The link, checked: a finite area, and one target.
    /// - Throws: `ControlError.badField` naming what is wrong.
    public func link() throws(ControlError) -> DocumentLink {
        func bad(_ field: String, _ expected: String) -> ControlError { .badField(command: "links", field: "links." + field, expected: expected) }
        guard [x, y, width, height].allSatisfy(\.isFinite), width >= 0, height >= 0 else {
            throw bad("x", "a finite area: x, y, and a width and height of 0 or more")
        }
        guard [toX, toY].allSatisfy({ $0?.isFinite ?? true }) else { throw bad("toX", "finite numbers") }
        let rect = Rect(x: x, y: y, width: width, height: height)
        switch (toPage, uri, file, missing) {
        case let (page?, nil, nil, nil):
            guard page >= 0 else { throw bad("toPage", "a page number from 0") }
            return DocumentLink(rect: rect, target: .page(page, x: toX, y: toY))
        case let (nil, uri?, nil, nil):
            return DocumentLink(rect: rect, target: .uri(uri))
        case let (page, nil, file?, nil):
            return DocumentLink(rect: rect, target: .file(file, page: page))
        case let (nil, nil, nil, why?):
            return DocumentLink(rect: rect, target: .missing(why))
        default:
            throw bad("toPage", "one of toPage, uri, file (with toPage) or missing")
        }
    }
}
