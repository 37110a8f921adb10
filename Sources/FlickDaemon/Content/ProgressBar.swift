import FlickDisplay

/// The bar drawn over a solid placeholder while a pyramid is built (`content.show_progress`):
/// a visitor sees the kiosk working, not a dead panel. It is drawn into the placeholder's own
/// pixels, so it costs a redraw when the percent changes and nothing otherwise.
struct ProgressBar {
    /// The placeholder's pixels.
    let page: PixelBuffer
    /// The percent drawn last, nil before the first.
    private(set) var shown: Int?

    /// The bar's rectangle: two fifths of the panel wide, centred, a hundredth of its height
    /// (at least 4 px) thick, at two thirds of the way down.
    var frame: PixelRect {
        let width = max(10, page.width * 2 / 5), height = max(4, page.height / 100)
        let x = (page.width - width) / 2, y = page.height * 2 / 3
        return PixelRect(x0: x, y0: y, x1: x + width, y1: min(page.height, y + height))
    }

    init(page: PixelBuffer) { self.page = page }

    /// Draws `percent` (0…100); false when it is what is drawn already.
    mutating func draw(_ percent: Int) -> Bool {
        let percent = min(max(percent, 0), 100)
        guard percent != shown else { return false }
        shown = percent
        let bar = frame
        let filled = bar.x0 + bar.width * percent / 100
        let done = Color(rgb: 0xC8C8C8).pixel, track = Color(rgb: 0x404040).pixel
        for y in bar.y0..<bar.y1 {
            for x in bar.x0..<bar.x1 { page[x, y] = x < filled ? done : track }
        }
        return true
    }
}
