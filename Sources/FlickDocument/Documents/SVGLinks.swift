import CRsvg
import FlickCore
import FlickSystem
import Glibc

/// An SVG's links, measured by librsvg: each `<a>` the scan kept (`SVGLinkScan`), found by its id,
/// its ink rectangle in the page's points with the page as the viewport (as it is drawn).
extension SVGPage {
    /// The links on the page, measured on the first call and kept. `href="#id"` leads to the
    /// top-left of that element's ink (the page itself for an element that draws nothing, or for
    /// a bare `#`), `missing` when no element has the id; any other `href` is a URI. A link that
    /// draws nothing (in `<defs>`, hidden) has no area and is left out. When links were left out
    /// (`SVGPage.linkLimit`, `SVGPage.linkBudget`), one line on stderr says how many.
    func links(page index: Int) -> [PageLink] {
        guard index == 0 else { return [] }
        if let measuredLinks { return measuredLinks }
        var targets: [String: PageLink.Target] = [:]
        var links: [PageLink] = []
        for anchor in scan.anchors {
            guard let area = inkRectangle(of: anchor.id), area.width > 0, area.height > 0 else { continue }
            let target: PageLink.Target
            if anchor.href.first == "#" {
                let id = String(anchor.href.dropFirst())
                let known = targets[id] ?? place(of: id)
                targets[id] = known
                target = known
            } else {
                target = .uri(anchor.href)
            }
            links.append(PageLink(page: 0, x: area.x, y: area.y, width: area.width, height: area.height, target: target))
        }
        measuredLinks = links
        if scan.leftOut > 0 {
            let line = "flickd-render: \(name): \(scan.leftOut) of its \(scan.found) links left out: at most \(Self.linkLimit) are kept, "
                + "and only as many as librsvg measures in about 0.3 s (links among thousands of siblings cost it the most)\n"
            try? writeWhole(Array(line.utf8), to: STDERR_FILENO, context: "stderr")
        }
        return links
    }

    /// Where `#id` leads on the page.
    private func place(of id: String) -> PageLink.Target {
        guard !id.isEmpty else { return .page(0, x: nil, y: nil) }
        guard rsvg_handle_has_sub(handle, "#" + id) != 0 else { return .missing("no element with id \"\(id)\" in \(name)") }
        guard let ink = inkRectangle(of: id), ink.width > 0 || ink.height > 0 else { return .page(0, x: nil, y: nil) }
        return .page(0, x: ink.x, y: ink.y)
    }

    /// The ink rectangle of the element `id` in the page's points; nil when librsvg cannot
    /// measure it (no such element, or an error drawing it).
    private func inkRectangle(of id: String) -> RsvgRectangle? {
        guard let size = pageSizes.first else { return nil }
        var viewport = RsvgRectangle(x: 0, y: 0, width: size.width, height: size.height)
        var ink = RsvgRectangle(), logical = RsvgRectangle()
        var failure: UnsafeMutablePointer<GError>?
        let measured = rsvg_handle_get_geometry_for_layer(handle, "#" + id, &viewport, &ink, &logical, &failure) != 0
        if let failure { g_error_free(failure) }
        guard measured, ink.x.isFinite, ink.y.isFinite, ink.width.isFinite, ink.height.isFinite else { return nil }
        return ink
    }
}
