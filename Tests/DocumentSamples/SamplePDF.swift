import CCairo
import Glibc

/// Documents the tests, the fuzz seeds and the benchmark render, made on the spot (no binary
/// fixtures in the repository): PDFs written by cairo, SVGs as text, and hand-built PDFs for
/// what cairo will not write (encryption, thousands of pages in a few bytes).
public enum SamplePDF {
    /// Writes a PDF of `pages` (sizes in points) to `path`: on each page a tinted band, a heading
    /// and lines of text, a circle, a stroked zig-zag and the page's number, so tiles hold text
    /// and vector shapes and no two pages look alike.
    /// - Returns: false when cairo could not write it.
    @discardableResult
    public static func write(to path: String, pages: [(width: Double, height: Double)], title: String = "Menu") -> Bool {
        // The same bytes as before links existed: no tags, a fixed date (the fuzz seeds are
        // compared with their generator's output).
        writeWithLinks(to: path, pages: pages, links: [], title: title)
    }

    /// A menu-like page: what `write` puts on page `index`.
    static func draw(page index: Int, width: Double, height: Double, title: String, on cr: OpaquePointer) {
        let hue = Double(index % 5) / 5
        cairo_set_source_rgb(cr, 0.85 - 0.3 * hue, 0.9, 0.75 + 0.2 * hue)
        cairo_rectangle(cr, 0, 0, width, height * 0.12)
        cairo_fill(cr)
        cairo_select_font_face(cr, "DejaVu Serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
        cairo_set_font_size(cr, height * 0.05)
        cairo_set_source_rgb(cr, 0.1, 0.15, 0.3)
        cairo_move_to(cr, width * 0.08, height * 0.08)
        cairo_show_text(cr, "\(title) — page \(index + 1)")
        cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, height * 0.022)
        let dishes = ["Soup of the day", "Grilled trout, lemon", "Mushroom risotto", "Apple tart", "Cheese board", "Espresso"]
        for line in 0..<12 {
            let y = height * (0.2 + 0.05 * Double(line))
            cairo_move_to(cr, width * 0.1, y)
            cairo_show_text(cr, "\(dishes[(line + index) % dishes.count]) .......... \(4 + (line * 7 + index) % 19).50")
        }
        cairo_set_source_rgb(cr, 0.7, 0.2, 0.1)
        cairo_arc(cr, width * 0.8, height * 0.8, min(width, height) * 0.08, 0, 2 * Double.pi)
        cairo_fill(cr)
        cairo_set_line_width(cr, max(0.5, width * 0.004))
        cairo_set_source_rgb(cr, 0.1, 0.4, 0.2)
        cairo_move_to(cr, width * 0.1, height * 0.9)
        for step in 1...8 { cairo_line_to(cr, width * (0.1 + 0.07 * Double(step)), height * (step % 2 == 0 ? 0.9 : 0.86)) }
        cairo_stroke(cr)
    }

    /// A PDF assembled by hand from `objects` (object i + 1 is `objects[i]`, without its
    /// `n 0 obj`/`endobj`), object 1 the catalog, with a correct cross-reference table; `trailer`
    /// is added to the trailer dictionary (e.g. an `/Encrypt` reference and `/ID`).
    public static func handBuilt(_ objects: [String], trailer: String = "") -> [UInt8] {
        var out = Array("%PDF-1.4\n".utf8)
        var offsets: [Int] = []
        for (i, body) in objects.enumerated() {
            offsets.append(out.count)
            out += Array("\(i + 1) 0 obj\n\(body)\nendobj\n".utf8)
        }
        let xref = out.count
        var table = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets {
            let digits = String(offset)
            table += String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n"
        }
        table += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R \(trailer)>>\nstartxref\n\(xref)\n%%EOF\n"
        return out + Array(table.utf8)
    }

    /// `count` empty A4 pages, by hand: a few hundred kilobytes for 10 000 pages.
    public static func manyPages(_ count: Int) -> [UInt8] {
        let kids = (0..<count).map { "\($0 + 3) 0 R" }.joined(separator: " ")
        let pages = Array(repeating: "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>", count: count)
        return handBuilt(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [\(kids)] /Count \(count) >>"] + pages)
    }

    /// One page that needs a password: a standard security handler (RC4, revision 2) whose /U
    /// entry no empty password matches, so a reader cannot open it without one.
    public static func encrypted() -> [UInt8] {
        let bytes = String(repeating: "7A", count: 32)
        return handBuilt([
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
            "<< /Filter /Standard /V 1 /R 2 /O <\(bytes)> /U <\(bytes)> /P -44 >>",
        ], trailer: "/Encrypt 4 0 R /ID [<0123456789ABCDEF0123456789ABCDEF> <0123456789ABCDEF0123456789ABCDEF>] ")
    }
}
