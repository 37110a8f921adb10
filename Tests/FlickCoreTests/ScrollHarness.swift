@testable import FlickCore

/// Drives a ScrollView on a virtual clock, as a gesture script: `down()`, `move(…)`, `up(…)`,
/// `run(until:)`; collects the delegate messages in order.
struct ScrollHarness {
    var view: ScrollView
    var now: Instant = .milliseconds(1000)
    var events: [ScrollEvent] = []
    /// Frame period for `run`, seconds.
    var period = 1.0 / 60

    init(bounds: Size = Size(width: 400, height: 300), content: Size = Size(width: 400, height: 3000),
         configure: (inout ScrollView) -> Void = { _ in }) {
        view = try! ScrollView(boundsSize: bounds, contentSize: content)
        configure(&view)
    }

    mutating func collect() -> [ScrollEvent] {
        events += view.takeEvents()
        return events
    }

    /// Takes the events collected so far (and clears them).
    mutating func take() -> [ScrollEvent] {
        let all = collect()
        events = []
        return all
    }

    mutating func advance(ms: Double) {
        now = now + .seconds(double: ms / 1000)
    }

    mutating func down() { view.touchDown(at: now); _ = collect() }

    /// Moves the finger by (dx, dy) in `steps` frames over `ms` milliseconds.
    mutating func move(dx: Double = 0, dy: Double = 0, steps: Int = 1, ms: Double = 16) {
        for _ in 0..<steps {
            advance(ms: ms / Double(steps))
            view.drag(by: Vector(dx: dx / Double(steps), dy: dy / Double(steps)), at: now)
            _ = collect()
        }
    }

    mutating func up(vx: Double = 0, vy: Double = 0) {
        view.release(velocity: Vector(dx: vx, dy: vy), at: now)
        _ = collect()
    }

    /// Steps frames until the model stops animating (or `seconds` pass); returns the frame count.
    @discardableResult
    mutating func runToRest(seconds: Double = 20) -> Int {
        var frames = 0
        let end = now + .seconds(double: seconds)
        while view.isAnimating && now < end {
            advance(ms: period * 1000)
            view.advance(to: now)
            _ = collect()
            frames += 1
        }
        return frames
    }

    /// The events with consecutive duplicates of `didScroll`/`didZoom` folded, for readable
    /// sequence assertions.
    static func folded(_ events: [ScrollEvent]) -> [ScrollEvent] {
        var out: [ScrollEvent] = []
        for e in events {
            if let last = out.last, last == e, e == .didScroll || e == .didZoom { continue }
            out.append(e)
        }
        return out
    }

    /// Names only, for sequences whose payloads are checked separately.
    static func names(_ events: [ScrollEvent]) -> [String] { folded(events).map(\.name) }
}

/// Checks the delegate grammar documented on `ScrollEvent`; returns the first violation.
/// `allowingInstantStops` for streams that stamp a touch with the lift's own time (see
/// `DelegateGrammar.init`).
func grammarViolation(_ events: [ScrollEvent], allowingInstantStops: Bool = false) -> String? {
    var grammar = DelegateGrammar(allowingInstantStops: allowingInstantStops)
    for e in events {
        if let violation = grammar.accept(e) { return violation }
    }
    return nil
}
