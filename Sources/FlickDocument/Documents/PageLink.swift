/// A link on one page: the area a touch follows it from, and where it leads. The helper finds
/// them (a PDF's link annotations through poppler, an SVG's `<a>` elements measured by librsvg)
/// and sends each page's to flickd, which decides what a tap on one does.
public struct PageLink: Equatable, Sendable {
    /// Where a link leads.
    public enum Target: Equatable, Sendable {
        /// A page of the document (0-based), and the point there to show, in that page's points
        /// from its top-left; nil where the destination leaves it as it is.
        case page(Int, x: Double?, y: Double?)
        /// A URI: a PDF's URI action, or an SVG `href` that is not `#id`.
        case uri(String)
        /// A file outside the document (a PDF's GoToR or Launch action), and its page (0-based)
        /// when the link names one. Never opened: flickd only reports it.
        case file(String, page: Int?)
        /// An internal link whose destination does not exist (a page past the last, a named
        /// destination or an SVG id nobody has): what is missing, for a journal line.
        case missing(String)
    }

    /// The page (0-based) the link is on.
    public var page: Int
    /// The link's area in the page's points, from its top-left (the user space a page is drawn in).
    public var x: Double, y: Double, width: Double, height: Double
    /// Where it leads.
    public var target: Target

    /// Creates a link.
    public init(page: Int, x: Double, y: Double, width: Double, height: Double, target: Target) {
        self.page = page
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.target = target
    }

    /// Whether the area can be touched: finite, and wider and higher than nothing.
    var hasArea: Bool {
        x.isFinite && y.isFinite && width.isFinite && height.isFinite && width > 0 && height > 0
    }
}
