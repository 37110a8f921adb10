import FlickCore

/// A pointer's wheel, touchpad scrolls and pinches (a Wayland seat's `PointerInput`s) into the
/// recogniser, in time order among the touch frames. A pointer's button held is a finger and
/// comes as a frame; these are the rest.
extension Pipeline {
    /// Hands the recogniser the inputs earlier than `time` (all of them when nil) and returns
    /// the rest.
    func handlePointer(_ inputs: ArraySlice<PointerInput>, before time: Instant?) -> ArraySlice<PointerInput> {
        var rest = inputs
        while let input = rest.first, time.map({ input.time < $0 }) ?? true {
            rest = rest.dropFirst()
            let t = input.time
            observe(t)
            // A pointer is a hand on the kiosk: it wakes a dimmed or dark panel as a touch does
            // and holds attract mode off; it is never swallowed (no finger to lift).
            if power != nil { _ = powerSwallows(TouchFrame(time: t, contacts: [])) }
            lastActivity = max(lastActivity, t)
            emit(recognizer.handle(input))
        }
        return rest
    }
}
