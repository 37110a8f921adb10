import FlickControl
import FlickCore
import FlickDisplay
import FlickSystem
import Logging

/// The daemon's side of a document (docs/documents.md): it runs `flickd-render` as
/// `RenderSupervision` says — starts it, hands its connection to the control server as a
/// content provider's, kills it when a tile is overdue, starts it again after a crash, gives up —
/// and checks its layout against flickd's own. The tiles themselves are the provider machinery's
/// (`ProviderHost`), unchanged; a frame never waits for the helper.
///
/// Passive, as the content host is: the process's end is a descriptor (`fileDescriptors`),
/// restarts and kills are deadlines (`nextDeadline`), both met by `dispatch(now:)`.
final class DocumentHost {
    /// What the host needs from around it.
    struct Hooks {
        /// Makes the helper's socket a connection of the control server; nil without one.
        var adopt: (Descriptor) throws -> ControlServer.Caller
        /// Closes the helper's connection.
        var disconnect: (ControlServer.Caller) -> Void
        /// Shows the fallback content (the placeholder), saying why.
        var giveUp: (String) -> Void
    }

    /// The content path that named the document, and its files in page order.
    let path: String
    let files: [String]
    private(set) var arguments: RenderArguments
    private var machine: RenderSupervision
    private var process: RenderProcess?
    /// Helpers killed and not yet seen gone (their descriptors stay watched until then).
    private var ending: [RenderProcess] = []
    /// The helper's connection, once adopted.
    private(set) var caller: ControlServer.Caller?
    /// The pages the layout has, once the helper provided.
    private(set) var pageCount: Int?
    /// When to kill a helper whose connection closed and that has not exited.
    private var killDue: Instant?
    /// The provider's timeouts already acted on.
    private var seenTimeouts = 0
    private let hooks: Hooks
    private let logger: Logger
    /// Where `flickd-render` is.
    var executable = DocumentFiles.helperPath
    /// How long a helper whose connection closed may take to exit before it is killed.
    static let exitGrace = Duration.seconds(1)

    init(path: String, files: [String], arguments: RenderArguments, maxRestarts: Int, hooks: Hooks, logger: Logger) {
        self.path = path
        self.files = files
        self.arguments = arguments
        machine = RenderSupervision(maxRestarts: maxRestarts)
        self.hooks = hooks
        self.logger = logger
    }

    deinit {
        process?.kill()
    }

    /// Whether `caller` is the helper's connection: the one that may send `documentError` and
    /// declare a `document`.
    func isHelper(_ caller: ControlServer.Caller) -> Bool { self.caller == caller }

    /// The machine's state (tests).
    var state: RenderSupervision.State { machine.state }

    /// Starts the helper (again, with `arguments`, if it runs).
    func start(arguments: RenderArguments, maxRestarts: Int, at t: Instant) {
        self.arguments = arguments
        machine.maxRestarts = maxRestarts
        handle(.start, at: t)
    }

    /// Kills the helper: the document no longer shows.
    func stop(at t: Instant) { handle(.stop, at: t) }

    /// The running helpers' ends.
    var fileDescriptors: [Descriptor] { ([process].compactMap { $0 } + ending).map(\.fileDescriptor) }

    /// When a restart, a start's limit, a kill or the provider's next timeout is due.
    func nextDeadline(provider: TileProvider?) -> Instant? {
        [machine.nextDeadline, killDue, caller == nil ? nil : provider?.nextDeadline].compactMap { $0 }.min()
    }

    /// Does what is due at `t`: helpers' exits, an overdue tile (the helper is killed), a
    /// restart. `provider` is the helper's session's, while it serves.
    func dispatch(now t: Instant, provider: TileProvider?) {
        ending.removeAll { old in
            guard let how = old.takeExit() else { return false }
            logger.notice("flickd-render ended (replaced)", metadata: ["PID": "\(old.pid)", "EXIT": "\(how)"])
            return true
        }
        if let process, let how = process.takeExit() {
            self.process = nil
            killDue = nil
            if let caller { hooks.disconnect(caller) }
            caller = nil
            pageCount = nil
            logger.notice("flickd-render ended", metadata: ["PID": "\(process.pid)", "EXIT": "\(how)"])
            handle(.exited(pid: process.pid, how: how), at: t)
        }
        if let due = killDue, due <= t {
            killDue = nil
            process?.kill()
        }
        if let provider, caller != nil {
            provider.expire(now: t)
            if provider.timeouts > seenTimeouts {
                seenTimeouts = provider.timeouts
                logger.warning("flickd-render is overdue with a tile asked of it (nothing drawn for content.provider_timeout_ms, or 8 of them for that tile): killing it",
                               metadata: ["PID": "\(machine.pid ?? 0)"])
                handle(.hung, at: t)
            }
        }
        if let due = machine.nextDeadline, due <= t { handle(.timer, at: t) }
    }

    /// The helper's connection went: its exit should follow; killed if it does not soon.
    func disconnected(at t: Instant) {
        caller = nil
        if process != nil { killDue = t + Self.exitGrace }
    }

    /// The helper's `provide` was taken with the layout's `pages` rects.
    func provided(pages: Int, at t: Instant) {
        pageCount = pages
        seenTimeouts = 0
        handle(.provided, at: t)
        logger.notice("flickd-render serving \(path): \(pages) page\(pages == 1 ? "" : "s")",
                      metadata: ["PID": "\(machine.pid ?? 0)"])
    }

    /// The document cannot be shown (`documentError`, or a layout that is not flickd's): not
    /// retried.
    func refused(reason: String, message: String, at t: Instant) {
        logger.error("document \(path): \(message)", metadata: ["REASON": "\(reason)"])
        handle(.refused(reason: reason, message: message), at: t)
        // It exits 65 after a documentError; one that lingers is killed.
        if process != nil { killDue = t + Self.exitGrace }
    }

    /// `status.document`.
    var status: ControlDocumentStatus {
        let state: String = switch machine.state {
        case .idle, .starting: "starting"
        case .showing: "showing"
        case .waiting: "restarting"
        case .failed: "failed"
        }
        return ControlDocumentStatus(files: files.map { String($0.split(separator: "/").last ?? Substring($0)) },
                                     pages: pageCount, state: state, restarts: machine.restarts,
                                     pid: machine.pid.map(Int.init),
                                     error: machine.failure.map { ControlDocumentStatus.Failure(reason: $0.reason, message: $0.message) })
    }

    private func handle(_ event: RenderSupervision.Event, at t: Instant) {
        let (actions, transition) = machine.handle(event, at: t)
        if let transition { logger.debug("\(transition)") }
        for action in actions {
            switch action {
            case .spawn: spawn(at: t)
            case .kill(let pid):
                guard let running = process, running.pid == pid else { continue }
                running.kill()
                logger.notice("flickd-render killed", metadata: ["PID": "\(pid)"])
                // A helper killed for a new start still ends through its descriptor.
                if machine.pid != pid {
                    ending.append(running)
                    process = nil
                    if let caller { hooks.disconnect(caller) }
                    caller = nil
                }
            case let .restartScheduled(delay, attempt):
                logger.warning("flickd-render restarting in \(Int((delay / .milliseconds(1)).rounded())) ms",
                               metadata: ["ATTEMPT": "\(attempt)", "RESTARTS_ALLOWED": "\(machine.maxRestarts)"])
            case let .giveUp(reason, message):
                logger.error("document \(path) not shown: \(message)", metadata: ["REASON": "\(reason)"])
                hooks.giveUp(message)
            }
        }
    }

    private func spawn(at t: Instant) {
        let started: RenderProcess
        do {
            try DocumentFiles.checkReadable(files)
            let arguments = arguments
            started = try RenderProcess(executable: executable, documents: files) { arguments.line(names: $0) }
        } catch {
            logger.error("flickd-render cannot start: \(error)")
            handle(.exited(pid: nil, how: "cannot start: \(error)"), at: t)
            return
        }
        machine.running(pid: started.pid)
        process = started
        seenTimeouts = 0
        logger.notice("flickd-render started for \(path)",
                      metadata: ["PID": "\(started.pid)", "FILES": "\(files.count)", "RESTARTS": "\(machine.restarts)"])
        do {
            guard let socket = started.takeSocket() else { return }
            caller = try hooks.adopt(socket)
        } catch {
            logger.error("flickd-render's connection cannot be watched: \(error)")
            started.kill()
        }
    }
}
