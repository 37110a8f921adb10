import FlickCore
import FoundationEssentials

/// A gesture's journal entry: a sentence for people and `FLICK_*` fields for machines
/// (`journalctl -u flickd FLICK_GESTURE=flick`), written for each gesture at `log.gestures = "all"`
/// and counted at "summary" (`GestureJournal`). Delegate messages and content touches are not
/// logged: they are many per gesture and go to control-socket subscribers instead.
public enum GestureLog {
    /// A log entry.
    public struct Entry: Hashable, Sendable {
        /// `MESSAGE=`.
        public var message: String
        /// The structured fields, names without the `FLICK_` prefix.
        public var fields: [String: String]
    }

    /// The entry for an output, or nil when it is not a gesture.
    public static func entry(for output: GestureOutput, view: ScrollView) -> Entry? {
        guard case let .gesture(gesture) = output.kind else { return nil }
        // The last finger of a pinch lifting where it stood is no gesture of its own.
        if case let .drag(t) = gesture, t.dx == 0, t.dy == 0 { return nil }
        var fields = ["GESTURE": gesture.name, "OFFSET_X": num(view.contentOffset.x), "OFFSET_Y": num(view.contentOffset.y),
                      "ZOOM": num(view.zoomScale)]
        let message: String
        switch gesture {
        case let .tap(p):
            fields["X"] = num(p.x); fields["Y"] = num(p.y)
            message = "tap at (\(num(p.x)), \(num(p.y)))"
        case let .doubleTap(p, zoomedTo):
            fields["X"] = num(p.x); fields["Y"] = num(p.y)
            message = "double tap at (\(num(p.x)), \(num(p.y)))" + (zoomedTo.map { " → zoom \(num($0))" } ?? "")
        case let .longPress(p):
            fields["X"] = num(p.x); fields["Y"] = num(p.y)
            message = "long press at (\(num(p.x)), \(num(p.y)))"
        case let .drag(t):
            fields["DX"] = num(t.dx); fields["DY"] = num(t.dy)
            message = "drag by (\(num(t.dx)), \(num(t.dy))) px, no momentum"
        case let .flick(v, rest, duration):
            fields["VELOCITY_X"] = num(v.dx); fields["VELOCITY_Y"] = num(v.dy)
            fields["REST_X"] = num(rest.x); fields["REST_Y"] = num(rest.y); fields["DURATION"] = num(duration)
            // The rest is said as the position the fields hold, and how far it still is (from
            // the view as the line is written) as a distance of its own: a paged flick rests on
            // a page's edge, which no distance names.
            let distance = ((rest.x - view.contentOffset.x) * (rest.x - view.contentOffset.x)
                            + (rest.y - view.contentOffset.y) * (rest.y - view.contentOffset.y)).squareRoot()
            fields["DISTANCE"] = num(distance.rounded())
            let speed = (v.dx * v.dx + v.dy * v.dy).squareRoot()
            message = "flick \(direction(v)) \(num(speed.rounded())) px/s → \(num(distance.rounded())) px to rest at "
                + "(\(num(rest.x)), \(num(rest.y))) in \(num(duration)) s"
        case let .pinch(from, to):
            fields["SCALE_FROM"] = num(from); fields["SCALE_TO"] = num(to)
            message = "pinch \(num(from)) → \(num(to))"
        case let .stop(p):
            fields["X"] = num(p.x); fields["Y"] = num(p.y)
            message = "stop at (\(num(p.x)), \(num(p.y)))"
        case .cancelled:
            message = "gesture cancelled"
        case let .bounce(edge, distance):
            fields["EDGE"] = edge.rawValue; fields["DISTANCE"] = num(distance)
            message = "bounce off the \(edge.rawValue) edge, \(num(distance)) px past it"
        case let .pageChange(from, to):
            fields["PAGE_FROM"] = String(from); fields["PAGE_TO"] = String(to)
            message = "page \(from) → \(to)"
        case .scrollToTop:
            message = "scroll to top (tap in the top strip)"
        case let .link(p, area):
            let destination = area.destination
            fields["X"] = num(p.x); fields["Y"] = num(p.y); fields["PAGE"] = String(area.page)
            let at = "link at (\(num(p.x)), \(num(p.y))) on page \(area.page)"
            switch area.target {
            case let .page(to, _, _):
                fields["LINK_PAGE"] = String(to)
                if let d = destination { fields["DEST_X"] = num(d.x); fields["DEST_Y"] = num(d.y) }
                message = "\(at) → page \(to)" + (destination.map { " at (\(num($0.x)), \(num($0.y)))" } ?? "")
            case let .uri(uri):
                fields["LINK_URI"] = uri
                message = "\(at) → \(uri) (not opened: for the app)"
            case let .file(file, filePage):
                fields["LINK_FILE"] = file
                if let filePage { fields["LINK_FILE_PAGE"] = String(filePage) }
                message = "\(at) → file \(file)" + (filePage.map { " page \($0)" } ?? "") + " (not opened: for the app)"
            case let .missing(why):
                fields["LINK_MISSING"] = why
                message = "\(at) leads nowhere: \(why)"
            }
        }
        return Entry(message: message, fields: fields)
    }

    /// The finger's direction: the dominant axis.
    static func direction(_ v: Vector) -> String {
        abs(v.dy) >= abs(v.dx) ? (v.dy < 0 ? "up" : "down") : (v.dx < 0 ? "left" : "right")
    }

    /// The one number format (`Double.brief`): 919, 2.5, -1840, a zoom of 0.0244; the message
    /// and the fields say each number alike.
    static func num(_ x: Double) -> String { x.brief }
}
