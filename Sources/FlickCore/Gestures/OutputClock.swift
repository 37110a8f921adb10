/// The clock of a stream of outputs, which never goes back (docs/protocol.md, "The clock"): the
/// scroll view's messages carry the model's time, and a frame stepped to its vblank puts it
/// ahead of input still to come; a touch reported before that vblank is handled by the model at
/// the vblank, and what it causes is stamped so. The recogniser keeps one for what it hands out
/// and the pipeline one for the whole stream (the decoders' and the presenter's steps join it
/// there), so both stamp the same way.
public struct OutputClock: Hashable, Sendable {
    /// The time of the last output stamped.
    public private(set) var latest: Instant?

    /// Creates a clock that has stamped nothing yet.
    public init() {}

    /// Stamps each output no earlier than the one before it, here or in an earlier call.
    /// - Parameter outputs: the outputs, in order; only times earlier than the latest change.
    public mutating func stamp(_ outputs: inout [GestureOutput]) {
        for i in outputs.indices {
            if let latest, outputs[i].time < latest { outputs[i].time = latest }
            latest = outputs[i].time
        }
    }
}
