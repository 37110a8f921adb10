import FlickCore

/// Why a document cannot be shown: the helper's `documentError` (docs/documents.md, "The two
/// messages"). flickd does not restart the helper for it: the document will not get better.
public struct DocumentError: FlickError, Hashable, Sendable {
    /// The `reason` field's words.
    public enum Reason: String, Hashable, Sendable, CaseIterable {
        /// Neither a PDF, an SVG, a PNG nor a JPEG by its first bytes, or its parser refuses it.
        case notADocument
        /// A PDF that needs a password.
        case encrypted
        /// Damaged or cut short.
        case truncated
        /// One page laid out is over 16777216 px long.
        case pageTooLarge
        /// More pages than allowed, or than fit 16777216 px.
        case tooManyPages
        /// No pages at all.
        case noPages
        /// An SVG over librsvg's limits (billion laughs).
        case tooComplex
        /// Over `--memory-mb` while parsing.
        case outOfMemory
        /// Anything else the libraries cannot show.
        case unsupported
    }

    /// The file's name as flickd passed it.
    public var file: String
    /// The page in that file, 1-based, when the error is about one.
    public var page: Int?
    /// Why.
    public var reason: Reason
    /// The sentence for the journal and `status`, starting with the file's name.
    public var message: String

    /// Creates an error; `detail` is what follows `file: ` in the message.
    public init(file: String, page: Int? = nil, reason: Reason, detail: String) {
        self.file = file
        self.page = page
        self.reason = reason
        self.message = "\(file): \(detail)"
    }

    /// The reason a layout refusal is reported with.
    public static func reason(for error: DocumentLayoutError) -> Reason {
        switch error {
        case .noPages: .noPages
        case .tooManyPages, .contentTooLarge: .tooManyPages
        case .invalidPageSize: .truncated
        case .pageTooLarge: .pageTooLarge
        case .invalidSetting: .unsupported
        }
    }

    public var context: ErrorContext { ErrorContext(reason: message) }
}
