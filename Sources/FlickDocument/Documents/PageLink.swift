import FlickCore

/// A link on one page: the area a touch follows it from, and where it leads. The helper finds
/// them (a PDF's link annotations through poppler, an SVG's `<a>` elements measured by librsvg)
/// and sends each page's to flickd, which decides what a tap on one does.
public struct PageLink: Equatable, Sendable {
    /// Where a link leads: flickd's own type (a page and position, a URI, another file, or
    /// missing), so the two sides cannot disagree on what a link is.
    public typealias Target = DocumentLink.Target

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
