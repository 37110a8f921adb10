import FlickCore

/// A busy kiosk's touches on the rig's 320×200 panel: gestures of every kind, in a seeded
/// random order and at seeded places, one every 1.5–4 s (about what 20 000 gestures in twelve
/// hours are). The mix is a map or a photo wall's: mostly flicks, taps and drags.
struct GestureMix {
    enum Kind: String, CaseIterable, Hashable {
        case tap, doubleTap, longPress, drag, flick, pinch
    }

    /// Each kind's share, in percent.
    static let shares: [(Kind, Int)] = [(.flick, 30), (.tap, 25), (.drag, 20), (.doubleTap, 10), (.pinch, 10), (.longPress, 5)]

    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// SplitMix64: the same stream on every machine, unlike the system generator.
    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    private mutating func between(_ a: Double, _ b: Double) -> Double { a + (b - a) * unit() }

    /// The next gesture: its kind, its frames from `t`, and when the next one starts.
    mutating func gesture(at t: Instant) -> (kind: Kind, frames: [TouchFrame], next: Instant) {
        var pick = Int(unit() * 100)
        var kind = Kind.flick
        for (k, share) in Self.shares {
            if pick < share { kind = k; break }
            pick -= share
        }
        let p = Point(x: between(60, 260), y: between(50, 150))
        let made = frames(kind, at: t, p)
        let end = made.last?.time ?? t
        return (kind, made, end + .seconds(double: between(1.5, 4)))
    }

    private mutating func frames(_ kind: Kind, at t: Instant, _ p: Point) -> [TouchFrame] {
        let f = ContactID(1), g = ContactID(2)
        func at(_ ms: Int64) -> Instant { t + .milliseconds(ms) }
        func down(_ ms: Int64, _ q: Point) -> TouchFrame { TouchFrame(time: at(ms), contacts: [Contact(id: f, position: q)], began: [f]) }
        func still(_ ms: Int64, _ q: Point) -> TouchFrame { TouchFrame(time: at(ms), contacts: [Contact(id: f, position: q)]) }
        func up(_ ms: Int64, _ q: Point) -> TouchFrame { TouchFrame(time: at(ms), contacts: [], ended: [Contact(id: f, position: q)]) }
        switch kind {
        case .tap:
            return [down(0, p), up(60, p)]
        case .doubleTap:
            return [down(0, p), up(50, p), down(150, p), up(200, p)]
        case .longPress:
            return [down(0, p), still(300, p), still(600, p), up(800, p)]
        case .drag, .flick:
            // A drag moves 10 px a report and holds still before it lifts; a flick moves 25 px a
            // report and lifts moving.
            let axis = Int(next() % 4)
            let step = kind == .drag ? 10.0 : 25.0
            let d = [Vector(dx: 0, dy: -step), Vector(dx: 0, dy: step), Vector(dx: -step, dy: 0), Vector(dx: step, dy: 0)][axis]
            let start = Point(x: 160 - d.dx * 3, y: 100 - d.dy * 3)
            var frames = [down(0, start)]
            var q = start
            for i in 1...6 {
                q = Point(x: start.x + d.dx * Double(i), y: start.y + d.dy * Double(i))
                frames.append(still(8 * Int64(i), q))
            }
            if kind == .drag { for i in 7...21 { frames.append(still(8 * Int64(i), q)) } }
            frames.append(up((frames.last.map { ($0.time - t).nanoseconds / 1_000_000 } ?? 0) + 8, q))
            return frames
        case .pinch:
            let opening = next() % 2 == 0
            func fingers(_ gap: Double) -> [Contact] {
                [Contact(id: f, position: Point(x: 160 - gap / 2, y: 100)), Contact(id: g, position: Point(x: 160 + gap / 2, y: 100))]
            }
            var frames = [TouchFrame(time: at(0), contacts: fingers(opening ? 60 : 200), began: [f, g])]
            var gap = 0.0
            for i in 1...20 {
                gap = opening ? 60 + 7 * Double(i) : 200 - 7 * Double(i)
                frames.append(TouchFrame(time: at(8 * Int64(i)), contacts: fingers(gap)))
            }
            frames.append(TouchFrame(time: at(8 * 21), contacts: [], ended: fingers(gap)))
            return frames
        }
    }
}
