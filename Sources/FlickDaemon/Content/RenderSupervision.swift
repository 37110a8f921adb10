import FlickCore

/// The life of the document helper, `flickd-render` (docs/documents.md, "What the daemon
/// restarts"): pure, on the loop's time, its actions done by `DocumentHost`. Its table is
/// `### render` in docs/documents.md; `RenderTableTests` holds the code to it.
///
/// States:
/// - **idle**: no document shows.
/// - **starting**: the helper runs and has not provided yet (the placeholder, or the last
///   frame of the helper before it, shows).
/// - **showing**: its `provide` was taken: its tiles show.
/// - **waiting**: it died; started again at `due` (0.25 s, 0.5 s, 1 s … after its exit).
/// - **failed**: the document will not show (`documentError`, its layout refused, or it died
///   `maxRestarts` times in a row): the fallback shows, `failure` says why.
///
/// Transitions (event: from → to):
/// - `start` (a document to show, or new arguments): any → starting (a helper running is
///   killed; the count starts again).
/// - `provided`: starting → showing.
/// - `refused` (`documentError`, a layout not flickd's): starting, showing → failed (the helper
///   exits by itself; `DocumentHost` kills it if it lingers).
/// - `exited` (the current helper's): starting, showing → waiting while the restarts in a row
///   are fewer than `maxRestarts`, else → failed; in failed (the refused helper going) and idle,
///   nothing. A helper that served for `resetAfter` starts the count again.
/// - `hung` (a tile past `content.provider_timeout_ms`): starting, showing → the same state, the
///   helper killed (its `exited` follows).
/// - `timer`: starting past `startLimit` → killed (as `hung`); showing for `resetAfter` → the
///   count reset; waiting at `due` → starting.
/// - `stop`: any → idle, the helper killed.
struct RenderSupervision {
    /// Where the helper is.
    enum State: String, Hashable, Sendable {
        case idle, starting, showing, waiting, failed
    }

    /// What happened.
    enum Event: Hashable, Sendable {
        case start
        case provided
        case refused(reason: String, message: String)
        /// The process `pid` ended (nil: it could not be started), as `how` says.
        case exited(pid: Int32?, how: String)
        case hung
        case timer
        case stop

        /// The column of the table.
        var name: String {
            switch self {
            case .start: "start"
            case .provided: "provided"
            case .refused: "refused"
            case .exited: "exited"
            case .hung: "hung"
            case .timer: "timer"
            case .stop: "stop"
            }
        }
    }

    /// What the host must do.
    enum Action: Hashable, Sendable {
        /// Start a helper (then tell `running(pid:)`, or `exited(pid: nil, …)`).
        case spawn
        /// SIGKILL the process.
        case kill(Int32)
        /// Start it again after its exit: said in the journal with the delay.
        case restartScheduled(after: Duration, attempt: Int)
        /// Gave up: show the fallback, say why.
        case giveUp(reason: String, message: String)
    }

    /// Restarts in a row allowed (`content.render_restarts`).
    var maxRestarts: Int
    /// How long a helper may take to provide before it counts as hung.
    var startLimit = Self.defaultStartLimit
    /// `startLimit` unless a test sets another (a replay's helper has the same).
    static let defaultStartLimit = Duration.seconds(30)
    /// Serving this long starts the count of restarts again.
    var resetAfter: Duration = .seconds(60)
    /// The first restart's delay; each next one doubles, up to `longestDelay`.
    var firstDelay: Duration = .milliseconds(250)
    var longestDelay: Duration = .seconds(30)

    private(set) var state = State.idle
    /// The helper's process, while one runs.
    private(set) var pid: Int32?
    /// Restarts in a row.
    private(set) var restarts = 0
    /// Why it failed (state failed).
    private(set) var failure: (reason: String, message: String)?
    /// When the helper was started, and when it provided.
    private var startedAt: Instant?
    private var servingSince: Instant?
    /// When the next restart is due (waiting).
    private var due: Instant?

    init(maxRestarts: Int) {
        self.maxRestarts = maxRestarts
    }

    /// When `timer` is due, if ever.
    var nextDeadline: Instant? {
        switch state {
        case .starting: startedAt.map { $0 + startLimit }
        case .showing: restarts > 0 ? servingSince.map { $0 + resetAfter } : nil
        case .waiting: due
        case .idle, .failed: nil
        }
    }

    /// The helper started as `spawn` asked: process `pid`.
    mutating func running(pid: Int32) {
        self.pid = pid
    }

    /// Takes `event` at `t`: the actions to do, in order, and the transition if the state
    /// changed or the pair is invalid.
    mutating func handle(_ event: Event, at t: Instant) -> (actions: [Action], transition: Transition?) {
        let from = state
        var actions: [Action] = []
        var invalid = false
        func killRunning() {
            if let pid { actions.append(.kill(pid)) }
            pid = nil
        }
        switch (state, event) {
        case (_, .start):
            killRunning()
            restarts = 0
            failure = nil
            begin(at: t, &actions)
        case (_, .stop):
            killRunning()
            state = .idle
            failure = nil
            due = nil
        case (.starting, .provided):
            state = .showing
            servingSince = t
        case (.starting, .refused(let reason, let message)), (.showing, .refused(let reason, let message)):
            // It exits 65 by itself (`DocumentHost` kills it if it lingers): its exit is in failed.
            fail(reason, message, &actions)
        case (.starting, .exited(let exited, let how)), (.showing, .exited(let exited, let how)):
            guard exited == pid else { break }   // a helper killed before this one
            pid = nil
            if state == .showing, let since = servingSince, t - since >= resetAfter { restarts = 0 }
            if restarts < maxRestarts {
                let delay = min(longestDelay, firstDelay * (1 << min(restarts, 16)))
                restarts += 1
                state = .waiting
                due = t + delay
                actions.append(.restartScheduled(after: delay, attempt: restarts))
            } else {
                let times = maxRestarts == 0 ? "it ended" : "it ended \(maxRestarts + 1) times in a row"
                fail("crashed", "flickd-render: \(times) (last: \(how)); content.render_restarts = \(maxRestarts)", &actions)
            }
        case (.starting, .hung), (.showing, .hung):
            if let pid { actions.append(.kill(pid)) }
        case (.starting, .timer):
            if let started = startedAt, t >= started + startLimit, let pid {
                actions.append(.kill(pid))
                startedAt = nil   // once: its exit follows
            }
        case (.showing, .timer):
            if let since = servingSince, t >= since + resetAfter { restarts = 0 }
        case (.waiting, .timer):
            if let due, t >= due { begin(at: t, &actions) }
        case (.failed, .exited(let exited, _)):
            if exited == pid { pid = nil }
        case (.idle, .exited), (.idle, .timer), (.failed, .timer):
            break
        default:
            invalid = true
        }
        let transition = invalid || state != from
            ? Transition(.render, at: t, from: from.rawValue, on: event.name, to: state.rawValue, invalid: invalid) : nil
        return (actions, transition)
    }

    private mutating func begin(at t: Instant, _ actions: inout [Action]) {
        state = .starting
        startedAt = t
        servingSince = nil
        due = nil
        actions.append(.spawn)
    }

    private mutating func fail(_ reason: String, _ message: String, _ actions: inout [Action]) {
        state = .failed
        failure = (reason, message)
        due = nil
        actions.append(.giveUp(reason: reason, message: message))
    }
}
