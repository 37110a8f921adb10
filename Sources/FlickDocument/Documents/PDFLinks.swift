import CPoppler
import FlickCore

/// A PDF's links: its pages' link annotations as poppler-glib maps them.
///
/// poppler gives a link's area in PDF points from the crop box's bottom-left, already turned with
/// the page's /Rotate into the page as `poppler_page_get_size` measures it (and drawn), so the
/// area only needs its y flipped with that height. A destination's left and top are in the target
/// page's own unturned space, from the crop box's bottom-left: its top flips with the target's
/// height. poppler-glib does not tell a page's /Rotate; a quarter-turned target (its size is its
/// crop box's, sides swapped) gets no position, its top shown rather than a wrong spot. A half
/// turn cannot be told from none: its position would be mirrored (rare in practice).
extension PDFPages {
    /// The links on page `index`, in the order of the page's annotations; targets in this file
    /// (a page outside it is the caller's to make `missing`). Actions other than going to a
    /// destination, a URI, another file or a named page move (JavaScript, forms, media) are left
    /// out: nothing there for a kiosk to follow.
    func links(page index: Int) -> [PageLink] {
        guard pageSizes.indices.contains(index), let page = poppler_document_get_page(document, Int32(index)) else { return [] }
        defer { g_object_unref(UnsafeMutableRawPointer(page)) }
        guard let mapping = poppler_page_get_link_mapping(page) else { return [] }
        defer { poppler_page_free_link_mapping(mapping) }
        let height = pageSizes[index].height
        var links: [PageLink] = []
        var node: UnsafeMutablePointer<GList>? = mapping
        while let item = node {
            node = item.pointee.next
            guard let data = item.pointee.data else { continue }
            let link = data.assumingMemoryBound(to: PopplerLinkMapping.self).pointee
            guard let action = link.action, let target = target(of: action, from: index) else { continue }
            let area = link.area
            links.append(PageLink(page: index, x: min(area.x1, area.x2), y: height - max(area.y1, area.y2),
                                  width: abs(area.x2 - area.x1), height: abs(area.y2 - area.y1), target: target))
        }
        // poppler lists the annotations last first.
        return links.reversed()
    }

    /// Where `action`, on page `index`, leads; nil for an action with nowhere to go.
    private func target(of action: UnsafeMutablePointer<PopplerAction>, from index: Int) -> PageLink.Target? {
        switch action.pointee.type {
        case POPPLER_ACTION_GOTO_DEST:
            return destination(action.pointee.goto_dest.dest, from: index)
        case POPPLER_ACTION_URI:
            guard let uri = action.pointee.uri.uri, uri.pointee != 0 else { return nil }
            return .uri(String(cString: uri))
        case POPPLER_ACTION_GOTO_REMOTE:
            guard let file = action.pointee.goto_remote.file_name else { return nil }
            // A page in another file is 1-based; 0 when the destination is named or unknown.
            let number = action.pointee.goto_remote.dest.map { Int($0.pointee.page_num) } ?? 0
            return .file(String(cString: file), page: number > 0 ? number - 1 : nil)
        case POPPLER_ACTION_LAUNCH:
            guard let file = action.pointee.launch.file_name else { return nil }
            return .file(String(cString: file), page: nil)
        case POPPLER_ACTION_NAMED:
            // The named actions a viewer must have (PDF 32000-1, 12.6.4.11); the rest are a
            // viewer's own (Print, Find…), none of which a kiosk offers.
            switch action.pointee.named.named_dest.map({ String(cString: $0) }) {
            case "NextPage": return .page(index + 1, x: nil, y: nil)
            case "PrevPage": return .page(index - 1, x: nil, y: nil)
            case "FirstPage": return .page(0, x: nil, y: nil)
            case "LastPage": return .page(pageSizes.count - 1, x: nil, y: nil)
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Where a destination in this file leads: a named one looked up in the document's names.
    private func destination(_ dest: UnsafeMutablePointer<PopplerDest>?, from index: Int) -> PageLink.Target {
        guard let dest else { return .missing("a link on page \(index + 1) of \(name) has no destination") }
        guard dest.pointee.type == POPPLER_DEST_NAMED else { return resolved(dest.pointee, from: index) }
        guard let named = dest.pointee.named_dest else { return .missing("a link on page \(index + 1) of \(name) names no destination") }
        guard let found = poppler_document_find_dest(document, named) else {
            return .missing("no destination named \"\(String(cString: named))\" in \(name)")
        }
        defer { poppler_dest_free(found) }
        return resolved(found.pointee, from: index)
    }

    /// A destination with its page: poppler counts from 1, and says 0 for a page the file does
    /// not have (a page number past the last also makes it write two lines on stderr, a
    /// GLib critical and "Invalid page N in Link Destination", which the journal keeps).
    private func resolved(_ dest: PopplerDest, from index: Int) -> PageLink.Target {
        let page = Int(dest.page_num) - 1
        guard dest.type != POPPLER_DEST_UNKNOWN, pageSizes.indices.contains(page) else {
            return .missing("a link on page \(index + 1) of \(name) leads to a page it does not have")
        }
        guard !isQuarterTurned(page) else { return .page(page, x: nil, y: nil) }
        // XYZ, FitH, FitV and their B kinds say which of left and top they set; FitR sets its
        // rectangle whole.
        let whole = dest.type == POPPLER_DEST_FITR
        let x = dest.change_left != 0 || whole ? dest.left : nil
        let y = dest.change_top != 0 || whole ? pageSizes[page].height - dest.top : nil
        return .page(page, x: x.flatMap { $0.isFinite ? $0 : nil }, y: y.flatMap { $0.isFinite ? $0 : nil })
    }

    /// Whether page `index` is shown turned a quarter (/Rotate 90 or 270): its size is then its
    /// crop box's with the sides swapped. A square page cannot tell, and is taken as unturned.
    private func isQuarterTurned(_ index: Int) -> Bool {
        guard let page = poppler_document_get_page(document, Int32(index)) else { return false }
        defer { g_object_unref(UnsafeMutableRawPointer(page)) }
        var crop = PopplerRectangle()
        poppler_page_get_crop_box(page, &crop)
        let width = abs(crop.x2 - crop.x1), height = abs(crop.y2 - crop.y1), size = pageSizes[index]
        return width != height && abs(width - size.height) < 0.01 && abs(height - size.width) < 0.01
    }
}
