/// SVGs with links (`<a>` elements), as text.
extension SampleSVG {
    /// A plan 800 × 600 px drawn at twice its viewBox (400 × 300), so every length below doubles
    /// on the page:
    /// - `<a href="#room-2">` without an id over (20, 20, 60, 30), to the rect `room-2` at (190, 20);
    /// - `<a id="menu-link" href="https://example.com/menu">` over (100, 20, 60, 30);
    /// - `<a xlink:href="#hall">` over a circle at (300, 250) r 10, to the group `hall`, moved by
    ///   its transform to (20, 150);
    /// - `<a href="#nowhere">` over (20, 100, 40, 20): no element has that id;
    /// - `<svg:a xlink:href="#room-2">` (the SVG namespace through a prefix) over (200, 200, 40, 40);
    /// - an `<a>` in `<defs>` and one inside a `<text>`: not links a touch can follow here;
    /// - an element whose id, `flickd-link-1`, is the first the helper would insert.
    public static func linkedPlan() -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="800" height="600" viewBox="0 0 400 300">
          <rect x="0" y="0" width="400" height="300" fill="#f4f1e8"/>
          <rect id="room-2" x="190" y="20" width="190" height="120" fill="#f5dccf"/>
          <g id="hall" transform="translate(20 150)"><rect x="0" y="0" width="360" height="130" fill="#d9f0d0"/></g>
          <rect id="flickd-link-1" x="390" y="290" width="5" height="5" fill="#203040"/>
          <a href="#room-2"><rect x="20" y="20" width="60" height="30" fill="#3060c0"/></a>
          <a id="menu-link" href="https://example.com/menu"><rect x="100" y="20" width="60" height="30" fill="#c06030"/></a>
          <a xlink:href="#hall"><circle cx="300" cy="250" r="10" fill="#208040"/></a>
          <a href="#nowhere"><rect x="20" y="100" width="40" height="20" fill="#808080"/></a>
          <svg:a xmlns:svg="http://www.w3.org/2000/svg" xlink:href="#room-2"><svg:rect x="200" y="200" width="40" height="40" fill="#a040a0"/></svg:a>
          <defs><a href="https://example.com/hidden"><rect id="hidden" x="0" y="0" width="10" height="10"/></a></defs>
          <text x="20" y="80" font-family="DejaVu Sans" font-size="12" fill="#102030">Call <a href="tel:+15550100">555-0100</a> today</text>
        </svg>
        """
    }

    /// `count` links in a grid of 20 px cells, 100 a row (2000 px wide): link `i` is a 10 × 10
    /// rect `cell-i` at (20 × (i % 100), 20 × (i / 100)) leading to `#cell-(i+1)`. Flat (every
    /// `<a>` a child of the root, the costliest for librsvg to measure), or a `<g>` per row.
    public static func manyLinks(_ count: Int, rows: Bool) -> String {
        let height = max(1, (count + 99) / 100) * 20
        var text = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"2000\" height=\"\(height)\">\n"
        for i in 0..<count {
            if rows, i % 100 == 0 { text += "<g>\n" }
            text += "<a href=\"#cell-\((i + 1) % count)\"><rect id=\"cell-\(i)\" x=\"\(20 * (i % 100))\" y=\"\(20 * (i / 100))\" "
                + "width=\"10\" height=\"10\" fill=\"#3060c0\"/></a>\n"
            if rows, i % 100 == 99 || i == count - 1 { text += "</g>\n" }
        }
        return text + "</svg>\n"
    }

    /// A plan declared in windows-1252 (a "é" as its one byte 0xE9) with a link: libxml2, and so
    /// librsvg, reads that encoding; expat knows only UTF-8, UTF-16, ISO-8859-1 and ASCII, and
    /// refuses it.
    public static func windows1252Plan() -> [UInt8] {
        let head = """
            <?xml version="1.0" encoding="windows-1252"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="400" height="300">
            <a href="#r"><rect id="r" x="10" y="20" width="30" height="40"/></a>
            <text x="10" y="200" font-family="DejaVu Sans" font-size="20">Caf
            """
        return Array(head.utf8) + [0xE9] + Array("</text>\n</svg>\n".utf8)
    }
}
