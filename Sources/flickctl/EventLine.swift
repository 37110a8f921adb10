import FlickControl
import FlickCore

/// One event as a line for people: the time, the event, and its fields that matter.
enum EventLine {
    static func text(_ m: ControlMessage) -> String {
        let name = m.type == "gesture" ? "gesture " + (m.gesture ?? "?") : m.type ?? "?"
        var parts = [(m.t ?? 0).fixed(3, width: 12), name]
        if let contact = m.contact { parts.append("touch \(contact)") }
        if let x = m.x, let y = m.y { parts.append("at (\(short(x)), \(short(y)))") }
        if let vx = m.vx, let vy = m.vy { parts.append("v (\(short(vx)), \(short(vy))) px/s") }
        if let r = m.targetOffset, r.count == 2 { parts.append("rest (\(short(r[0])), \(short(r[1])))") }
        if let d = m.translation, d.count == 2 { parts.append("by (\(short(d[0])), \(short(d[1])))") }
        if let edge = m.edge { parts.append("edge \(edge)") }
        if let distance = m.distance { parts.append("past by \(short(distance))") }
        if let from = m.fromPage { parts.append("from page \(from)") }
        if let page = m.page { parts.append("page \(page)") }
        if let uri = m.uri { parts.append("→ \(uri)") }
        if let file = m.file { parts.append("→ file \(file)") }
        if let to = m.toPage { parts.append(m.file == nil ? "→ page \(to)" : "its page \(to)") }
        if let d = m.destination, d.count == 2 { parts.append("to (\(short(d[0])), \(short(d[1])))") }
        if let why = m.missing { parts.append("leads nowhere: \(why)") }
        if let from = m.fromScale { parts.append("from zoom \(short(from))") }
        if m.type == "power", let state = m.state { parts.append("\(state) (\(m.reason ?? "?"))") }
        if m.type == "state", let state = m.scrollState { parts.append("\(state.flags)") }
        if let d = m.willDecelerate { parts.append("willDecelerate \(d)") }
        if let o = m.offset, o.count == 2 { parts.append("offset (\(short(o[0])), \(short(o[1])))") }
        if let z = m.zoomScale { parts.append("zoom \(short(z))") }
        return parts.joined(separator: "  ")
    }

    /// The one number format (`Double.brief`): a zoom of 0.025 is `0.025`; any value the daemon
    /// sends, however large, gives text.
    static func short(_ x: Double) -> String { x.brief }
}
