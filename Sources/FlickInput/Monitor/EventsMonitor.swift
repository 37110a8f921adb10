import FlickCore

/// Turns what a touch source observed into `flickd events`' lines: one per contact change, with
/// the device's units beside the screen pixels they map to, `SYN_DROPPED`, and the report rate
/// every `rateInterval` of touch time. The format is stable (README, "Bring up a new panel"):
///
///        0.016 s  #1 down  slot 0  dev (400, 240)  px (400.0, 240.0)  pressure 50
///        0.024 s  #1 move  slot 0  dev (410, 240)  px (410.0, 240.0)  pressure 52
///        0.100 s  #1 up  px (410.0, 240.0)
///        1.000 s  rate: 125.0 reports/s, interval median 8.00 ms, p95 8.00 ms, jitter 0.00 ms (112 intervals)
///        2.000 s  SYN_DROPPED on /dev/input/event3: events lost, the next report resynchronises
///
/// Times are seconds from `origin` (the first thing observed unless given).
public final class EventsMonitor {
    /// How much touch time passes between two rate lines.
    public let rateInterval: Duration
    /// Time zero of the printed times.
    public private(set) var origin: Instant?
    /// Frames seen.
    public private(set) var reports = 0

    private var rate = ReportRate()
    private var windowStart: Instant?
    /// What the last line said of each contact that is down, so a report that changes nothing
    /// for it (another finger moved) prints nothing for it.
    private var shown: [ContactID: (Contact, RawContact?)] = [:]

    /// Creates a monitor.
    public init(origin: Instant? = nil, rateInterval: Duration = .seconds(1)) {
        self.origin = origin
        self.rateInterval = rateInterval
    }

    /// `t` as printed: seconds from the origin, three decimals, right-aligned.
    public func stamp(_ t: Instant) -> String {
        ((t - (origin ?? t)).inSeconds).fixed(3, width: 9) + " s"
    }

    /// The lines for one observation.
    public func lines(for observation: InputObservation) -> [String] {
        switch observation {
        case let .dropped(t, device):
            if origin == nil { origin = t }
            return ["\(stamp(t))  SYN_DROPPED on \(device): events lost, the next report resynchronises"]
        case let .frame(frame, raw, _):
            if origin == nil { origin = frame.time }
            reports += 1
            var out: [String] = []
            let at = stamp(frame.time)
            for contact in frame.contacts {
                let r = raw[contact.id]
                let began = frame.began.contains(contact.id)
                if !began, let last = shown[contact.id], last.0 == contact, last.1 == r { continue }
                shown[contact.id] = (contact, r)
                out.append("\(at)  \(contact.id) \(began ? "down" : "move")" + Self.details(contact, r))
            }
            for contact in frame.ended {
                shown[contact.id] = nil
                if frame.began.contains(contact.id) { out.append("\(at)  \(contact.id) down" + Self.details(contact, nil)) }
                let what = frame.cancelled.contains(contact.id) ? "cancelled" : "up"
                out.append("\(at)  \(contact.id) \(what)" + Self.details(contact, nil))
            }
            rate.add(frame.time, continuing: frame.contacts.contains { !frame.began.contains($0.id) })
            if let start = windowStart, frame.time - start >= rateInterval {
                windowStart = frame.time
                if let summary = rate.takeWindow() { out.append("\(at)  rate: \(summary)") }
            } else if windowStart == nil {
                windowStart = frame.time
            }
            return out
        }
    }

    /// The closing line: the rate over the whole run.
    public func finish() -> String {
        "rate over the run: " + (rate.total.map { "\($0)" } ?? "no report intervals measured (\(reports) reports)")
    }

    private static func details(_ c: Contact, _ r: RawContact?) -> String {
        var s = ""
        if let slot = r?.slot { s += "  slot \(slot)" }
        if let r { s += "  dev (\(r.x), \(r.y))" }
        s += "  px (\(c.position.x.fixed(1)), \(c.position.y.fixed(1)))"
        if let p = r?.pressure { s += "  pressure \(p)" }
        if let m = r?.touchMajor { s += "  major \(m)" }
        switch c.tool {
        case .finger: break
        case .pen: s += "  pen"
        case .palm: s += "  palm"
        }
        return s
    }

    /// The lines that open a session: the device, its axes, and the mapping to the screen.
    public static func header(device path: String, description d: DeviceDescription, mapping: TouchMapping,
                              screen: Size) -> [String] {
        var axes: [String] = []
        if let (x, y) = d.positionAxes {
            axes.append("x \(x.minimum)…\(x.maximum)" + (x.resolution > 0 ? " (\(x.resolution)/mm)" : ""))
            axes.append("y \(y.minimum)…\(y.maximum)" + (y.resolution > 0 ? " (\(y.resolution)/mm)" : ""))
        }
        if d.touchProtocol == .slots, let slots = d.absAxes[EventCode.ABS_MT_SLOT] {
            axes.append("\(Int64(slots.maximum) - Int64(slots.minimum) + 1) slots")
        }
        let pressure = d.absAxes[EventCode.ABS_MT_PRESSURE] ?? (d.touchProtocol == .singleTouch ? d.absAxes[EventCode.ABS_PRESSURE] : nil)
        if let p = pressure { axes.append("pressure \(p.minimum)…\(p.maximum)") }
        if let m = d.absAxes[EventCode.ABS_MT_TOUCH_MAJOR] { axes.append("touch major \(m.minimum)…\(m.maximum)") }
        var map = "touch rotation \(mapping.rotation)"
        if mapping.flipX { map += ", flip x" }
        if mapping.flipY { map += ", flip y" }
        map += ", calibration " + (mapping.calibration.map { "[" + $0.map(\.brief).joined(separator: " ") + "]" } ?? "none")
        return ["device \(path) '\(d.name)': \(d.touchProtocol.rawValue), " + axes.joined(separator: ", "),
                "screen \(screen.width.brief)x\(screen.height.brief) px, \(map)"]
    }
}
