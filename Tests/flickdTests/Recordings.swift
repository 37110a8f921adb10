import FlickInput

/// The recordings the daemon tests replay through `--input evemu:FILE`: an 800×480 protocol B
/// panel mapped 1:1 onto the 800×480 headless display, each starting with `lead` seconds of
/// nothing so the test can connect before the first touch.
enum Recordings {
    static let panel = DeviceDescription.slotTouchscreen(name: "flickd it panel", width: 800, height: 480,
                                                         slots: 10, resolution: 10)

    /// The panel's recording of what `gesture` plays after an idle report at 0 s.
    static func script(_ gesture: (inout TouchScript) -> Void) -> String {
        var s = TouchScript(description: panel)
        s.idle(0)
        gesture(&s)
        return s.text
    }

    /// A flick up at 1500 px/s (240 px in 0.16 s) at each of `times`.
    static func flicks(at times: [Double], lead: Double = 0) -> String {
        var s = TouchScript(description: panel)
        s.idle(0)
        for t in times { s.drag(from: (400, 400), to: (400, 160), seconds: 0.16, t: lead + t) }
        return s.text
    }
}
