import FlickCore

/// The kiosk's visitors: a seeded stream of gestures of every kind, as touch frames in screen
/// pixels reported every 8 ms. The mix, the timings and the pauses are those of the gesture
/// benchmark's generator (Benchmarks/flickd-bench/GestureBench.swift, `Script.random`: taps,
/// double taps, flicks up and down, slow drags, pinches out and in, long presses with a pixel of
/// jitter), scaled to the soak's small panel; that one writes evemu text for the decoder's cost,
/// while the soak needs frames on a clock that runs for a month.
struct Visitors {
    enum Kind: String, CaseIterable {
        case tap, doubleTap = "double tap", flickUp = "flick up", flickDown = "flick down", slowDrag = "slow drag"
        case pinch, longPress = "long press"
    }

    /// SplitMix64: the same month for a seed on every machine.
    private var state: UInt64
    let panel: Size
    private var nextID = 1
    private(set) var counts: [Kind: Int] = [:]
    var total: Int { counts.values.reduce(0, +) }

    init(seed: UInt64, panel: Size) {
        state = seed
        self.panel = panel
    }

    mutating func next(_ n: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(n))
    }

    /// One random gesture starting at `t`: its frames, and when the next may start (after the
    /// benchmark's pause of 0.3–1 s).
    mutating func gesture(at t: Instant) -> (frames: [TouchFrame], next: Instant) {
        let w = panel.width, h = panel.height
        let x = w * 0.2 + Double(next(Int(w * 0.6))), y = h * 0.2 + Double(next(Int(h * 0.6)))
        let kind = Kind.allCases[next(Kind.allCases.count)]
        counts[kind, default: 0] += 1
        var frames: [TouchFrame]
        switch kind {
        case .tap: frames = hold(x, y, seconds: 0.09, at: t)
        case .doubleTap:
            frames = hold(x, y, seconds: 0.08, at: t)
            frames += hold(x + 1, y + 1, seconds: 0.08, at: frames.last!.time + .milliseconds(120))
        case .flickUp: frames = drag([(x, h * 0.9)], to: [(x, h * 0.9 - h * (0.3 + Double(next(50)) / 100))], seconds: 0.1, at: t)
        case .flickDown: frames = drag([(x, h * 0.1)], to: [(x, h * 0.1 + h * (0.3 + Double(next(50)) / 100))], seconds: 0.12, at: t)
        case .slowDrag:
            frames = drag([(x, y)], to: [(x + Double(next(Int(w / 2))) - w / 4, y + Double(next(Int(h / 2))) - h / 4)],
                          seconds: 1 + Double(next(100)) / 100, at: t)
        case .pinch:
            let c = (w / 2, h / 2), small = h * 0.1, large = h * 0.4
            let (r0, r1) = next(2) == 0 ? (small, large) : (large, small)
            frames = drag([(c.0 - r0, c.1), (c.0 + r0, c.1)], to: [(c.0 - r1, c.1), (c.0 + r1, c.1)], seconds: 0.6, at: t)
        case .longPress: frames = hold(x, y, seconds: 0.7, at: t, jitter: 1)
        }
        return (frames, frames.last!.time + .milliseconds(300 + Int64(next(700))))
    }

    /// A touch that wakes the panel: a short tap somewhere on it.
    mutating func wakeTouch(at t: Instant) -> [TouchFrame] {
        hold(panel.width / 2, panel.height / 2, seconds: 0.09, at: t)
    }

    /// One finger down at (x, y) for `seconds`, reporting every 8 ms with `jitter` pixels of noise.
    private mutating func hold(_ x: Double, _ y: Double, seconds: Double, at t: Instant, jitter: Double = 0) -> [TouchFrame] {
        let id = ContactID(takeID())
        var frames = [TouchFrame(time: t, contacts: [Contact(id: id, position: Point(x: x, y: y))], began: [id])]
        let steps = Int(seconds / 0.008)
        if jitter > 0 {
            for i in 1..<max(steps, 1) {
                frames.append(TouchFrame(time: t + .milliseconds(8 * Int64(i)),
                                         contacts: [Contact(id: id, position: Point(x: x + jitter * Double(i % 2), y: y))]))
            }
        }
        frames.append(TouchFrame(time: t + .seconds(double: seconds), contacts: [],
                                 ended: [Contact(id: id, position: Point(x: x, y: y))]))
        return frames
    }

    /// Fingers moving in straight lines from `from` to `to` (one point each) over `seconds`, then lifting.
    private mutating func drag(_ from: [(Double, Double)], to: [(Double, Double)], seconds: Double, at t: Instant) -> [TouchFrame] {
        let ids = from.map { _ in ContactID(takeID()) }
        let steps = max(2, Int(seconds / 0.008))
        func contacts(_ s: Double) -> [Contact] {
            zip(ids, zip(from, to)).map { id, p in
                Contact(id: id, position: Point(x: p.0.0 + (p.1.0 - p.0.0) * s, y: p.0.1 + (p.1.1 - p.0.1) * s))
            }
        }
        var frames = [TouchFrame(time: t, contacts: contacts(0), began: ids)]
        for i in 1...steps {
            frames.append(TouchFrame(time: t + .milliseconds(8 * Int64(i)), contacts: contacts(Double(i) / Double(steps))))
        }
        frames.append(TouchFrame(time: t + .milliseconds(8 * Int64(steps + 1)), contacts: [], ended: contacts(1)))
        return frames
    }

    private mutating func takeID() -> Int {
        defer { nextID = nextID == 1 << 30 ? 1 : nextID + 1 }
        return nextID
    }
}
