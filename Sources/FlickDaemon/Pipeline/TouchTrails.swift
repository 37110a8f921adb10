import FlickCore
import FlickDisplay

/// What the touch overlay shows (`debug.touch_overlay`): a dot at each contact and a trail of
/// where it was over the last `lifetime`, fading with age; after the finger lifts its dot fades
/// over `lifetime` too. Then nothing is left, and nothing asks for a frame: at rest the overlay
/// costs no wake-up.
struct TouchTrails {
    /// How long a trail point, or a lifted finger's dot, stays visible.
    static let lifetime: Duration = .milliseconds(250)
    /// At most this many points a trail (a 1 kHz panel would otherwise keep 250).
    static let pointLimit = 32
    static let dotRadius = 14.0, dotOpacity = 0.85
    static let trailRadius = 5.0, trailOpacity = 0.6

    private struct Trail {
        var points: [(position: Point, time: Instant)] = []
        var lifted: Instant?
    }
    private var trails: [ContactID: Trail] = [:]

    /// Whether nothing is drawn any more.
    var isEmpty: Bool { trails.isEmpty }

    /// Forgets everything (the overlay turned off).
    mutating func removeAll() { trails.removeAll() }

    /// Takes a frame's contacts.
    mutating func add(_ frame: TouchFrame) {
        for contact in frame.contacts { append(contact, at: frame.time) }
        for contact in frame.ended {
            append(contact, at: frame.time)
            trails[contact.id]?.lifted = frame.time
        }
    }

    private mutating func append(_ contact: Contact, at t: Instant) {
        var trail = trails[contact.id] ?? Trail()
        if trail.points.last?.position != contact.position { trail.points.append((contact.position, t)) }
        if trail.points.count > Self.pointLimit { trail.points.removeFirst(trail.points.count - Self.pointLimit) }
        trails[contact.id] = trail
    }

    /// The marks of a frame shown at `t`; forgets what has faded by then.
    mutating func marks(at t: Instant) -> [TouchMark] {
        var marks: [TouchMark] = []
        for id in trails.keys.sorted() {
            guard var trail = trails[id] else { continue }
            // The newest point is the dot, kept while the finger is down, however still.
            let newest = trail.points.last?.time
            trail.points.removeAll { t - $0.time >= Self.lifetime && $0.time != newest }
            if let lifted = trail.lifted, t - lifted >= Self.lifetime {
                trails[id] = nil
                continue
            }
            trails[id] = trail
            for point in trail.points.dropLast() {
                marks.append(TouchMark(position: point.position, radius: Self.trailRadius,
                                       opacity: Self.trailOpacity * Self.fading(since: point.time, at: t)))
            }
            if let last = trail.points.last {
                let opacity = trail.lifted.map { Self.fading(since: $0, at: t) } ?? 1
                marks.append(TouchMark(position: last.position, radius: Self.dotRadius, opacity: Self.dotOpacity * opacity))
            }
        }
        return marks
    }

    /// When the marks change next by themselves after a frame at `t`: at once while anything
    /// fades (a trail point, a lifted dot), else never (a still finger's dot stays as it is).
    func nextFrame(after t: Instant) -> Instant? {
        let fading = trails.values.contains { trail in
            trail.lifted != nil || trail.points.dropLast().contains { t - $0.time < Self.lifetime }
        }
        return fading ? t : nil
    }

    /// 1 at `since`, 0 after `lifetime`.
    private static func fading(since: Instant, at t: Instant) -> Double {
        let age = max(0, (t - since).inSeconds)
        return max(0, 1 - age / lifetime.inSeconds)
    }
}
