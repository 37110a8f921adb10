import FlickCore

/// The scripted session bundled as `demo/flick-demo.event`: what `scripts/run.sh` replays on a
/// machine with no touchscreen. An 800×480 protocol B panel (10 units/mm): a tap, a flick up,
/// a slow drag back, a pinch out and in, a double tap, a long press. Generated here, so the file
/// is the project's own; a test keeps the committed copy equal to this.
public enum DemoRecording {
    /// The recording as evemu text.
    public static func text() -> String {
        var s = TouchScript(description: .slotTouchscreen(name: "flickd demo panel", width: 800, height: 480,
                                                          slots: 10, resolution: 10))
        s.tap(at: 400, 240, t: 0.5)
        s.drag(from: (400, 400), to: (400, 160), seconds: 0.08, t: 1.5)        // a flick up
        s.drag(from: (200, 100), to: (200, 300), seconds: 2.5, t: 6.0)          // a slow drag down, no momentum
        s.pinch(centre: (400, 240), from: 60, to: 180, seconds: 0.6, t: 9.0)
        s.pinch(centre: (400, 240), from: 180, to: 50, seconds: 0.6, t: 11.0)   // below 1: bounces back
        s.tap(at: 300, 200, t: 13.0)
        s.tap(at: 302, 201, t: 13.2)                                           // a double tap
        s.hold(at: 500, 300, seconds: 0.8, t: 15.0)                            // a long press
        return s.writer.text
    }
}
