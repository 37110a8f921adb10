/// What happens to touch frames between the decoder and the recogniser, and between the model
/// and a frame: each contact smoothed (`TouchSmoother`, the 1€ filter), then remembered so a
/// frame can show the fingers where they will be when it is shown (`TouchResampler`). Either
/// may be off (`input.smoothing`, `input.resample`). `TouchPrediction` holds them and answers
/// what the frames show.
public struct TouchConditioning: Sendable {
    /// `input.resample_max_prediction_ms`'s default: a frame latched `defaultFrameLead` before
    /// its vblank would predict the latest report's age (up to a report interval, 5–17 ms on the
    /// recorded panels) plus the lead, but nothing in the reports says a finger stopped dead
    /// just after the latest one: the content runs past it by the finger's speed times the
    /// horizon (14.9 px at 1000 px/s with 60 Hz reports at 15 ms: BENCHMARKS.md, "the feel"). 8 ms, Android's
    /// bound, keeps that within 8 px; a 60 Hz panel's fastest drags then trail by more
    /// (BENCHMARKS.md, "6. feel", the prediction bound's table).
    public static let defaultMaximumPrediction = Duration.milliseconds(8)
    /// `input.resample_lead_ms`'s default: how long before its vblank a frame of a resampled
    /// drag is prepared, so that the fingers are predicted over this plus the latest report's
    /// age rather than a whole refresh period more. Room for composing a zoomed 1080p frame on a
    /// Raspberry-Pi-class board (BENCHMARKS.md); a frame that misses its vblank widens it.
    public static let defaultFrameLead = Duration.milliseconds(4)
    /// The most `input.resample_lead_ms` takes: a 60 Hz refresh period, where the frame is
    /// prepared as early as without it.
    public static let leadLimit = Duration.milliseconds(17)
    /// The most `input.resample_max_prediction_ms` takes: beyond three 60 Hz frames a
    /// prediction is a guess.
    public static let predictionLimit = Duration.milliseconds(50)
    /// The 1€ filter's tunables, from the recorded panels (docs/input.md, "Smoothing"): a held
    /// finger's jitter smoothed at 1 Hz, the cutoff rising 0.2 Hz per px/s so a finger at
    /// 1000 px/s is trailed by under 1 ms, and the speed behind it followed at 1 Hz (the paper's default).
    public static let defaultSmoothing = OneEuroFilter.Parameters(minimumCutoff: 1, beta: 0.2, derivativeCutoff: 1)

    /// The smoother, when on.
    public var smoother: TouchSmoother?
    /// The resampler, when on.
    public var resampler: TouchResampler?

    /// Creates the stages asked for.
    public init(smoothing: OneEuroFilter.Parameters?, maximumPrediction: Duration?) {
        smoother = smoothing.map { TouchSmoother($0) }
        resampler = maximumPrediction.flatMap { $0 > .zero ? TouchResampler(.init(maximumPrediction: $0)) : nil }
    }

    /// Nothing changed: frames pass as they are, and a frame shows the latest reports.
    public static let off = TouchConditioning(smoothing: nil, maximumPrediction: nil)

    /// A frame from the decoder, as the recogniser gets it.
    public mutating func take(_ frame: TouchFrame) -> TouchFrame {
        let smoothed = smoother?.smooth(frame) ?? frame
        resampler?.add(smoothed)
        return smoothed
    }

    /// The fingers as they will be at `t`, a frame of moves, or nil when none would differ
    /// from the latest reports.
    public func frame(at t: Instant, now: Instant) -> TouchFrame? {
        resampler?.frame(at: t, now: now)
    }
}
