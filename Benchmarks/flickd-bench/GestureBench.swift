import FlickCore

/// Gesture + model cost: a long synthetic session of mixed gestures (taps, drags, flicks,
/// pinches, long presses) at 120 Hz through the recogniser and the scroll view on a virtual
/// clock, with animations stepped at 60 Hz as the daemon would.
enum GestureBench {
    /// Builds the frame stream once; `contactUpdates` counts what a decoder would have seen as
    /// evdev events (x, y per moving contact, plus one SYN_REPORT per frame).
    static func frames(seconds: Double) -> (frames: [TouchFrame], evdevEvents: Int) {
        var frames: [TouchFrame] = []
        var events = 0
        var t = Instant.seconds(1)
        var rng: UInt64 = 0x1234_5678
        func random(_ n: Int) -> Int {
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            return Int((rng >> 33) % UInt64(n))
        }
        let period = Duration.nanoseconds(8_333_333)
        func frame(_ contacts: [Contact], began: [ContactID] = [], ended: [Contact] = []) {
            frames.append(TouchFrame(time: t, contacts: contacts, began: began, ended: ended))
            events += 1 + 2 * (contacts.count + ended.count) + 2 * began.count
            t = t + period
        }
        let end = Instant.seconds(1 + seconds)
        while t < end {
            let a = ContactID(1), b = ContactID(2)
            switch random(5) {
            case 0: // tap
                frame([Contact(id: a, position: Point(x: 300, y: 300))], began: [a])
                for _ in 0..<8 { frame([Contact(id: a, position: Point(x: 300, y: 300))]) }
                frame([], ended: [Contact(id: a, position: Point(x: 300, y: 300))])
            case 1, 2: // drag or flick
                var y = 400.0
                frame([Contact(id: a, position: Point(x: 400, y: y))], began: [a])
                let step = Double(2 + random(30))
                for _ in 0..<30 { y -= step; frame([Contact(id: a, position: Point(x: 400 + Double(random(3)), y: y))]) }
                frame([], ended: [Contact(id: a, position: Point(x: 400, y: y))])
            case 3: // pinch
                var d = 100.0
                frame([Contact(id: a, position: Point(x: 400 - d, y: 240)), Contact(id: b, position: Point(x: 400 + d, y: 240))], began: [a, b])
                for _ in 0..<40 {
                    d += 3
                    frame([Contact(id: a, position: Point(x: 400 - d, y: 240)), Contact(id: b, position: Point(x: 400 + d, y: 240))])
                }
                frame([], ended: [Contact(id: a, position: Point(x: 400 - d, y: 240)), Contact(id: b, position: Point(x: 400 + d, y: 240))])
            default: // long press with jitter
                frame([Contact(id: a, position: Point(x: 200, y: 200))], began: [a])
                for i in 0..<70 { frame([Contact(id: a, position: Point(x: 200 + Double(i % 2), y: 200))]) }
                frame([], ended: [Contact(id: a, position: Point(x: 200, y: 200))])
            }
            t = t + .milliseconds(Int64(100 + random(400)))
        }
        return (frames, events)
    }

    /// Runs the stream once; returns nanoseconds spent and outputs produced (kept so the work
    /// cannot be optimised away).
    static func run(_ frames: [TouchFrame]) -> (ns: Int64, outputs: Int) {
        var view = try! ScrollView(boundsSize: Size(width: 800, height: 480), contentSize: Size(width: 1600, height: 50_000))
        try! view.setZoomScaleLimits(minimum: 0.5, maximum: 4)
        var recognizer = GestureRecognizer(scrollView: view)
        var outputs = 0
        var nextVblank = frames.first?.time ?? .zero
        let vblank = Duration.nanoseconds(16_666_667)
        let start = monotonicNanoseconds()
        for frame in frames {
            while nextVblank <= frame.time {
                recognizer.fireTimers(upTo: nextVblank)
                if recognizer.scrollView.isAnimating { recognizer.advance(to: nextVblank) }
                nextVblank = nextVblank + vblank
            }
            recognizer.handle(frame)
            outputs += recognizer.takeOutputs().count
        }
        return (monotonicNanoseconds() - start, outputs)
    }
}
