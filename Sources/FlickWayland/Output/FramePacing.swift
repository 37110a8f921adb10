import FlickCore

/// The committed frame on its way to the screen under a compositor: one frame in flight at most,
/// as on DRM, and it is shown (`.presented(at:)` for the presenter) once the compositor has
/// both called back (`wl_surface.frame`: it wants the next frame) and said when it showed this
/// one (`wp_presentation_feedback`), so the next frame is drawn for the vblank after it.
///
/// | state                      | event                         | next                                   |
/// |----------------------------|-------------------------------|----------------------------------------|
/// | idle                       | committed                     | inFlight(done: false, feedback asked or none) |
/// | inFlight                   | frameDone                     | idle if the feedback is in (shown), else inFlight(done: true) |
/// | inFlight                   | presented(at, refresh)        | idle if done (shown at that time), else inFlight with the time |
/// | inFlight                   | discarded                     | idle if done (shown now), else inFlight(discarded) |
/// | any                        | forgotten (a new size)        | idle, nothing shown                    |
/// | idle                       | frameDone, presented, discarded | idle: a late event of a forgotten frame, ignored |
///
/// A surface the compositor does not show (minimised, on another workspace) gets no frame
/// callback: the frame stays in flight with nothing timed, so flickd neither wakes nor commits
/// until it is shown again (the presenter's lost-flip timeout, meant for DRM drivers that lose
/// flip events, is off for this output: `Output.flipsCanWaitIndefinitely`). Without
/// `wp_presentation` the callback alone completes the frame, at the time it is read.
struct FramePacing: Equatable {
    /// What the compositor has said of the presentation feedback.
    enum Feedback: Equatable {
        /// Not asked for: the compositor has no `wp_presentation`.
        case none
        /// Asked for, not in yet.
        case pending
        /// Shown at this time (CLOCK_MONOTONIC), with the output's refresh period if it knows it.
        case presented(Instant, refresh: Duration?)
        /// Not shown (replaced, or the surface is not on any output).
        case discarded
    }

    /// The states.
    enum State: Equatable {
        case idle
        case inFlight(done: Bool, feedback: Feedback)
    }

    /// The events.
    enum Event: Equatable {
        case committed(withFeedback: Bool)
        case frameDone
        case presented(at: Instant, refresh: Duration?)
        case discarded
        case forgotten
    }

    /// What a completed frame reports.
    struct Shown: Equatable {
        /// When it reached the screen (or was taken as shown).
        var at: Instant
        /// The refresh period the compositor reported with it, if any.
        var refresh: Duration?
    }

    private(set) var state = State.idle

    /// Whether a frame is in flight.
    var isInFlight: Bool { state != .idle }

    /// Takes one event.
    /// - Parameters:
    ///   - event: what happened.
    ///   - now: when it was read (stands for the presentation time when the compositor gives none).
    /// - Returns: the completed frame's presentation, when this event completed it.
    mutating func handle(_ event: Event, now: Instant) -> Shown? {
        switch (state, event) {
        case (_, .committed(let withFeedback)):
            state = .inFlight(done: false, feedback: withFeedback ? .pending : .none)
            return nil
        case (_, .forgotten):
            state = .idle
            return nil
        case (.idle, .frameDone), (.idle, .presented), (.idle, .discarded):
            return nil
        case let (.inFlight(_, feedback), .frameDone):
            return settle(done: true, feedback: feedback, now: now)
        case let (.inFlight(done, _), .presented(at, refresh)):
            return settle(done: done, feedback: .presented(at, refresh: refresh), now: now)
        case let (.inFlight(done, _), .discarded):
            return settle(done: done, feedback: .discarded, now: now)
        }
    }

    private mutating func settle(done: Bool, feedback: Feedback, now: Instant) -> Shown? {
        switch (done, feedback) {
        case (false, _), (true, .pending):
            state = .inFlight(done: done, feedback: feedback)
            return nil
        case let (true, .presented(at, refresh)):
            state = .idle
            return Shown(at: at, refresh: refresh)
        case (true, .none), (true, .discarded):
            state = .idle
            return Shown(at: now, refresh: nil)
        }
    }
}
