import Glibc

/// Plays gestures on a `VirtualPanel` in real time: one frame every `period` (absolute sleeps,
/// so slow writes under emulation do not stretch the gesture); the kernel stamps each frame
/// when it is written.
struct GesturePlayer {
    let panel: VirtualPanel
    /// Between two frames of a moving finger: 8 ms, a 125 Hz panel.
    var period = 0.008

    /// Down, still for `hold` seconds, up.
    func tap(_ x: Double, _ y: Double, hold: Double = 0.04) throws {
        try panel.frame([0: (x, y)])
        sleep(seconds: hold)
        try panel.frame([:], lift: [0])
    }

    /// Down at `from`, along a straight line to `to` in `duration` seconds, then up: with no
    /// pause the release keeps the finger's speed (a flick); `pauseBeforeLift` stops it first
    /// (a drag that ends still). With `unplugAtEnd`, the device is destroyed instead of lifting.
    func swipe(from: (x: Double, y: Double), to: (x: Double, y: Double), duration: Double,
               pauseBeforeLift: Double = 0, unplugAtEnd: Bool = false) throws {
        try panel.frame([0: from])
        try move(duration) { f in [0: (from.x + (to.x - from.x) * f, from.y + (to.y - from.y) * f)] }
        if unplugAtEnd {
            panel.unplug()
            return
        }
        if pauseBeforeLift > 0 { sleep(seconds: pauseBeforeLift) }
        try panel.frame([:], lift: [0])
    }

    /// Two fingers on a horizontal line through the centre, `startDistance` apart, spreading
    /// (or closing) to `endDistance` in `duration` seconds, held still briefly, then lifted.
    func pinch(centre: (x: Double, y: Double), startDistance: Double, endDistance: Double, duration: Double) throws {
        func fingers(_ d: Double) -> [Int32: (x: Double, y: Double)] {
            [0: (centre.x - d / 2, centre.y), 1: (centre.x + d / 2, centre.y)]
        }
        try panel.frame(fingers(startDistance))
        try move(duration) { f in fingers(startDistance + (endDistance - startDistance) * f) }
        sleep(seconds: 0.1)
        try panel.frame([:], lift: [0, 1])
    }

    /// Frames every `period` until `duration` has passed, each placed by the fraction of the
    /// duration actually elapsed when it is written: a frame written late under emulation is
    /// where a real finger would be by then, so the kernel's timestamps and the positions agree.
    private func move(_ duration: Double, _ positions: (Double) -> [Int32: (x: Double, y: Double)]) throws {
        let start = now()
        var next = start
        while true {
            next += period
            sleep(until: next)
            let f = min(1, (now() - start) / duration)
            try panel.frame(positions(f))
            if f >= 1 { return }
        }
    }

    /// Seconds on CLOCK_MONOTONIC, the clock the kernel stamps input events with.
    func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    func sleep(seconds: Double) { sleep(until: now() + seconds) }

    func sleep(until t: Double) {
        var ts = timespec(tv_sec: Int(t), tv_nsec: Int((t - t.rounded(.down)) * 1e9))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
