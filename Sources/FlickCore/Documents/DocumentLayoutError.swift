/// Why a document's pages cannot be laid out. Pages are numbered from 1 over all the document's
/// files together, as a person counts; the helper names the file and its own page number instead
/// (`message(page:)`), the daemon the whole document's.
public enum DocumentLayoutError: FlickError, Equatable, Sendable {
    /// The document has no pages at all.
    case noPages
    /// More pages than `maxPages` allows.
    case tooManyPages(count: Int, maximum: Int)
    /// A page whose width or height is not a finite number greater than 0.
    case invalidPageSize(page: Int, width: Double, height: Double)
    /// A page that alone would be longer than the content may be (its size laid out at
    /// `pageWidth` over `DocumentLayout.maximumExtent` px).
    case pageTooLarge(page: Int, width: Double, height: Double, pageWidth: Int, length: Double)
    /// The pages together pass `DocumentLayout.maximumExtent` px along the direction: the page
    /// that passes it, and where it would end.
    case contentTooLarge(page: Int, end: Int)
    /// A layout setting outside its range (`pageWidth`, `cell`, `gap`, `maxPages`).
    case invalidSetting(name: String, value: String, expected: String)

    /// The page the error is about (1-based over the whole document), if any.
    public var page: Int? {
        switch self {
        case let .invalidPageSize(page, _, _), let .pageTooLarge(page, _, _, _, _), let .contentTooLarge(page, _):
            page
        case .noPages, .tooManyPages, .invalidSetting:
            nil
        }
    }

    /// The sentence, with the page named by `page` (`"page 3"`, or `"menu.pdf: page 3"` in the
    /// helper's words): `page 3 is 1 × 100000 pt; laid out 1280 px wide it would be 128000000 px
    /// long (at most 16777216)`.
    public func message(page name: String) -> String {
        let most = DocumentLayout.maximumExtent
        switch self {
        case .noPages:
            return "the document has no pages"
        case let .tooManyPages(count, maximum):
            return "the document has \(count) pages (at most \(maximum): content.document_max_pages)"
        case let .invalidPageSize(_, width, height):
            return "\(name) is \(width.brief) × \(height.brief) pt; expected a width and height greater than 0"
        case let .pageTooLarge(_, width, height, pageWidth, length):
            return "\(name) is \(width.brief) × \(height.brief) pt; laid out \(pageWidth) px wide it would be "
                + "\(length.brief) px long (at most \(most))"
        case let .contentTooLarge(_, end):
            return "\(name) would end \(end) px from the start of the content (at most \(most)): too many pages for their size"
        case let .invalidSetting(name, value, expected):
            return "\(name): expected \(expected), got \(value)"
        }
    }

    public var context: ErrorContext {
        ErrorContext(reason: message(page: page.map { "page \($0)" } ?? "the page"))
    }
}
