/// A page's size in points (1/72 inch; an SVG's intrinsic size in CSS px counts as points).
public struct DocumentPageSize: Hashable, Sendable {
    /// The page's width.
    public var width: Double
    /// The page's height.
    public var height: Double

    /// Creates a page size.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// Which way a document's pages follow one another.
public enum DocumentDirection: String, Hashable, Sendable, CaseIterable {
    /// Top to bottom.
    case vertical
    /// Left to right.
    case horizontal
}

/// Where a document's pages lie in its content (docs/documents.md, "Layout"). flickd and
/// `flickd-render` each compute it from the same inputs and must agree bit for bit (the daemon
/// refuses a `provide` whose size differs), so everything here is integer arithmetic or a
/// Double rounded `.toNearestOrAwayFromZero`: no locale, no platform rounding.
///
/// - Continuous (no `cell`): each page `pageWidth` wide, its height kept in proportion (at
///   least 1 px); pages one after another along the direction with `gap` between them.
/// - Paged (`cell` given, the screen's size): page i fills the i-th cell along the direction,
///   fitted (aspect kept) into the cell inset by gap/2 on every side and centred, so paging by
///   the bounds lands on pages exactly.
public struct DocumentLayout: Hashable, Sendable {
    /// A size in whole content pixels.
    public struct PixelSize: Hashable, Sendable, CustomStringConvertible {
        /// The horizontal extent.
        public var width: Int
        /// The vertical extent.
        public var height: Int

        /// Creates a size.
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }

        public var description: String { "\(width)x\(height)" }
    }

    /// The largest extent of the content on either axis, px (the provider protocol's bound).
    public static let maximumExtent = 16_777_216
    /// The gaps a layout takes, px.
    public static let gapRange = 0...4096

    /// The content's size at zoom 1, px.
    public let size: PixelSize
    /// Where each page's paper is drawn, content px, in page order.
    public let pages: [Rect]
    /// The direction the pages follow.
    public let direction: DocumentDirection
    /// Where each page's slot begins along the direction: its paper's start (continuous) or its
    /// cell's (paged). A slot runs to the next one's start, so gaps belong to the page before.
    private let slotStarts: [Double]

    /// Lays out `pages`.
    /// - Parameters:
    ///   - pages: the pages' sizes in points, in order over all files.
    ///   - direction: the way pages follow one another.
    ///   - pageWidth: a page's width at zoom 1 when continuous, px (1…`maximumExtent`).
    ///   - cell: the screen's size when paging is on: one page per cell.
    ///   - gap: px between pages (continuous), or around each page inside its cell (paged).
    ///   - maxPages: the most pages a document may have (`content.document_max_pages`).
    /// - Throws: `DocumentLayoutError`: no pages, too many, a page of no or infinite size, or
    ///   content over `maximumExtent` px on either axis.
    public init(pages sizes: [DocumentPageSize], direction: DocumentDirection, pageWidth: Int,
                cell: PixelSize? = nil, gap: Int, maxPages: Int) throws(DocumentLayoutError) {
        try Self.checkSettings(pageWidth: pageWidth, cell: cell, gap: gap, maxPages: maxPages)
        guard !sizes.isEmpty else { throw .noPages }
        guard sizes.count <= maxPages else { throw .tooManyPages(count: sizes.count, maximum: maxPages) }
        for (index, page) in sizes.enumerated() {
            guard page.width.isFinite, page.height.isFinite, page.width > 0, page.height > 0 else {
                throw .invalidPageSize(page: index + 1, width: page.width, height: page.height)
            }
        }
        self.direction = direction
        if let cell {
            (size, pages, slotStarts) = try Self.paged(sizes, direction: direction, cell: cell, gap: gap)
        } else {
            (size, pages, slotStarts) = try Self.continuous(sizes, direction: direction, pageWidth: pageWidth, gap: gap)
        }
    }

    /// The level of detail a document's provider declares: `maximum` (`--detail-max`), lowered
    /// while the finest level, 2^detail × the content's longer side, would pass `maximumExtent`.
    public func detail(maximum: Int) -> Int {
        var detail = max(0, min(3, maximum))
        while detail > 0, (max(size.width, size.height) << detail) > Self.maximumExtent { detail -= 1 }
        return detail
    }

    private static func checkSettings(pageWidth: Int, cell: PixelSize?, gap: Int, maxPages: Int) throws(DocumentLayoutError) {
        let sides = 1...maximumExtent
        guard sides.contains(pageWidth) else {
            throw .invalidSetting(name: "page width", value: "\(pageWidth)", expected: "1 to \(maximumExtent) px")
        }
        if let cell, !sides.contains(cell.width) || !sides.contains(cell.height) {
            throw .invalidSetting(name: "cell", value: "\(cell)", expected: "a width and height of 1 to \(maximumExtent) px")
        }
        guard gapRange.contains(gap) else {
            throw .invalidSetting(name: "gap", value: "\(gap)", expected: "0 to \(gapRange.upperBound) px")
        }
        guard maxPages >= 1 else {
            throw .invalidSetting(name: "max pages", value: "\(maxPages)", expected: "at least 1")
        }
    }

    private typealias Placed = (size: PixelSize, pages: [Rect], slotStarts: [Double])

    private static func continuous(_ sizes: [DocumentPageSize], direction: DocumentDirection, pageWidth: Int,
                                   gap: Int) throws(DocumentLayoutError) -> Placed {
        var pages: [Rect] = [], starts: [Double] = []
        pages.reserveCapacity(sizes.count)
        starts.reserveCapacity(sizes.count)
        var position = 0, across = pageWidth
        for (index, page) in sizes.enumerated() {
            let length = (page.height * Double(pageWidth) / page.width).rounded(.toNearestOrAwayFromZero)
            guard length.isFinite, length <= Double(maximumExtent) else {
                throw .pageTooLarge(page: index + 1, width: page.width, height: page.height, pageWidth: pageWidth, length: length)
            }
            let height = max(1, Int(length))
            let extent = direction == .vertical ? height : pageWidth
            let start = index == 0 ? 0 : position + gap
            guard start + extent <= maximumExtent else { throw .contentTooLarge(page: index + 1, end: start + extent) }
            switch direction {
            case .vertical:
                pages.append(Rect(x: 0, y: Double(start), width: Double(pageWidth), height: Double(height)))
            case .horizontal:
                pages.append(Rect(x: Double(start), y: 0, width: Double(pageWidth), height: Double(height)))
                across = index == 0 ? height : max(across, height)
            }
            starts.append(Double(start))
            position = start + extent
        }
        let size = direction == .vertical ? PixelSize(width: pageWidth, height: position) : PixelSize(width: position, height: across)
        return (size, pages, starts)
    }

    private static func paged(_ sizes: [DocumentPageSize], direction: DocumentDirection, cell: PixelSize,
                              gap: Int) throws(DocumentLayoutError) -> Placed {
        let along = direction == .vertical ? cell.height : cell.width
        // The division keeps the product below Int's range before it is formed.
        guard sizes.count <= maximumExtent / along else {
            throw .contentTooLarge(page: maximumExtent / along + 1, end: (maximumExtent / along + 1) * along)
        }
        let innerWidth = max(1, cell.width - gap), innerHeight = max(1, cell.height - gap)
        var pages: [Rect] = [], starts: [Double] = []
        pages.reserveCapacity(sizes.count)
        starts.reserveCapacity(sizes.count)
        for (index, page) in sizes.enumerated() {
            let scale = min(Double(innerWidth) / page.width, Double(innerHeight) / page.height)
            let width = min(innerWidth, max(1, Int((page.width * scale).rounded(.toNearestOrAwayFromZero))))
            let height = min(innerHeight, max(1, Int((page.height * scale).rounded(.toNearestOrAwayFromZero))))
            let start = index * along
            let cellX = direction == .horizontal ? start : 0, cellY = direction == .vertical ? start : 0
            pages.append(Rect(x: Double(cellX + (cell.width - width) / 2), y: Double(cellY + (cell.height - height) / 2),
                              width: Double(width), height: Double(height)))
            starts.append(Double(start))
        }
        let count = sizes.count
        let size = direction == .vertical ? PixelSize(width: cell.width, height: along * count)
                                          : PixelSize(width: along * count, height: cell.height)
        return (size, pages, starts)
    }
}

extension DocumentLayout {
    /// The page whose slot holds `offset` along the direction (content px): its paper and the gap
    /// after it (continuous) or its cell (paged); before the first page the first, past the last
    /// the last.
    public func page(at offset: Double) -> Int {
        // The last slot starting at or before `offset`.
        var low = 0, high = slotStarts.count
        while low < high {
            let middle = (low + high) / 2
            if slotStarts[middle] <= offset { low = middle + 1 } else { high = middle }
        }
        return max(0, low - 1)
    }

    /// The pages whose paper meets `rect` along the direction, in order (empty when `rect` lies in
    /// a gap or outside the content). Across the direction pages may be shorter than the content
    /// (horizontal pages of several heights, fitted pages): the caller intersects each page's rect.
    public func pages(in rect: Rect) -> Range<Int> {
        let vertical = direction == .vertical
        let lower = vertical ? rect.origin.y : rect.origin.x
        let upper = lower + (vertical ? rect.size.height : rect.size.width)
        guard lower.isFinite, upper.isFinite, upper > lower else { return 0..<0 }
        func start(_ i: Int) -> Double { vertical ? pages[i].origin.y : pages[i].origin.x }
        func end(_ i: Int) -> Double { start(i) + (vertical ? pages[i].size.height : pages[i].size.width) }
        // Papers' starts and ends both grow with the index, so each bound is one binary search.
        var low = 0, high = pages.count
        while low < high {
            let middle = (low + high) / 2
            if end(middle) <= lower { low = middle + 1 } else { high = middle }
        }
        let first = low
        high = pages.count
        while low < high {
            let middle = (low + high) / 2
            if start(middle) < upper { low = middle + 1 } else { high = middle }
        }
        return first..<max(first, low)
    }
}
