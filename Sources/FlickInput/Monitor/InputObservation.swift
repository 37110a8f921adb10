import FlickCore

/// What a touch source saw besides the frames it delivers, for `flickd events`: each frame with
/// the device's own numbers for its contacts, and the kernel dropping events.
public enum InputObservation: Hashable, Sendable {
    /// A frame, with each contact that is down as the device reported it (by id).
    case frame(TouchFrame, raw: [ContactID: RawContact], device: String)
    /// The kernel dropped events (`SYN_DROPPED`) at about `at`; the next frame resynchronises.
    case dropped(at: Instant, device: String)
}
