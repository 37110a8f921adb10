/// SVG documents as text: a floor plan, and hostile ones.
public enum SampleSVG {
    /// A small floor plan (`width` × `height` CSS px): rooms, a door arc, labels.
    public static func floorPlan(width: Int = 800, height: Int = 600) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 800 600">
          <rect x="0" y="0" width="800" height="600" fill="#f4f1e8"/>
          <rect x="40" y="40" width="340" height="240" fill="#cfe3f5" stroke="#203040" stroke-width="6"/>
          <rect x="380" y="40" width="380" height="240" fill="#f5dccf" stroke="#203040" stroke-width="6"/>
          <rect x="40" y="280" width="720" height="280" fill="#d9f0d0" stroke="#203040" stroke-width="6"/>
          <path d="M 200 280 A 60 60 0 0 1 260 220" fill="none" stroke="#803020" stroke-width="3"/>
          <circle cx="600" cy="420" r="50" fill="#e0b040" stroke="#604010" stroke-width="4"/>
          <text x="80" y="120" font-family="DejaVu Sans" font-size="36" fill="#102030">Gallery 1</text>
          <text x="420" y="120" font-family="DejaVu Sans" font-size="36" fill="#102030">Gallery 2</text>
          <text x="80" y="340" font-family="DejaVu Serif" font-size="28" fill="#102030">Hall — exit to the garden</text>
        </svg>
        """
    }

    /// References outside the document: an image beside it, an absolute file, one on the network.
    public static func externalReferences() -> String {
        """
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="400" height="300">
          <rect width="400" height="300" fill="#336699"/>
          <image href="other.png" x="0" y="0" width="100" height="100"/>
          <image xlink:href="file:///etc/passwd" x="100" y="0" width="100" height="100"/>
          <image href="http://192.0.2.1/tracker.png" x="200" y="0" width="100" height="100"/>
          <use href="other.svg#shape"/>
          <text x="20" y="250" font-size="30" fill="white">still drawn</text>
        </svg>
        """
    }

    /// Billion laughs with XML entities: each level ten of the one below.
    public static func entityLaughs() -> String {
        var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE svg [\n<!ENTITY lol0 \"lol\">\n"
        for level in 1...9 { text += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">\n" }
        return text + "]>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\"><text y=\"20\">&lol9;</text></svg>\n"
    }

    /// Billion laughs with `<use>`: each group uses the one below ten times (10⁹ rectangles at
    /// nine levels; fewer levels stay under librsvg's limit, for a fuzz seed).
    public static func useLaughs(levels: Int = 9) -> String {
        var text = "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"100\" height=\"100\">\n"
        text += "<defs><rect id=\"g0\" width=\"1\" height=\"1\"/>\n"
        for level in 1...max(1, levels) {
            text += "<g id=\"g\(level)\">" + String(repeating: "<use xlink:href=\"#g\(level - 1)\"/>", count: 10) + "</g>\n"
        }
        return text + "</defs><use xlink:href=\"#g\(max(1, levels))\"/></svg>\n"
    }
}
