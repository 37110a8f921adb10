import FlickDisplay
import FlickSystem
import FoundationEssentials
import Glibc
import Logging
import Synchronization

/// One image's pyramid built off the event loop, by `flickd pyramid` in a child process
/// (`/proc/self/exe`): the build's memory (tens of MiB of row bands) goes back to the system when
/// it exits instead of staying in the daemon's heap, and a decoder that crashes on a hostile
/// file takes only the child with it. A worker thread waits for the child and logs its progress
/// lines; the loop hears of the end through `fileDescriptor` and shows the image then.
///
/// States: building → finished(path or error), taken once by `takeResult()`.
final class PyramidBuild {
    /// The image being built.
    let image: String
    /// Its folder of the cache.
    let cacheDirectory: String
    /// The image file's identity when the build started: a build that fails for a file since
    /// replaced (a content update mid-build) is no verdict on the new one.
    let startedSignature: ContentIdentity.Signature?
    /// Readable once the build has ended.
    var fileDescriptor: Descriptor { worker.fileDescriptor }
    private let worker: BackgroundWorker
    private let state: Shared

    /// What the worker and the loop share.
    private final class Shared: Sendable {
        let progress = Mutex<(line: String, percent: Int)?>(nil)
        let result = Mutex<Result<String, ContentError>?>(nil)
    }

    /// Starts building `image`'s pyramid into `cacheDirectory`; the child then trims the cache
    /// (`PyramidCache`) to `limit` bytes (nil: no limit), keeping `keeping` (the `.dzi` shown now).
    /// - Returns: `nil` if no thread could be started.
    init?(image: String, cacheDirectory: String, keeping: String?, limit: Int64?, logger: Logger) {
        // Its child inherits the thread's scheduling: the build runs as far below the loop as decoders.
        guard let worker = BackgroundWorker(level: .ahead) else { return nil }
        self.image = image
        self.cacheDirectory = cacheDirectory
        startedSignature = ContentIdentity.signature(of: image)
        self.worker = worker
        let state = Shared()
        self.state = state
        let started = worker.submit {
            let keep = keeping.map { ["--keep", $0] } ?? []
            let arguments = ["pyramid", image, "--cache-directory", cacheDirectory, "--cache-max-mb", "\((limit ?? 0) >> 20)"] + keep
            let result = Self.run(arguments, progress: { line in
                // A cache that shrinks is explained in the journal.
                if line.hasPrefix(PyramidCache.removedPrefix) {
                    logger.notice("content: \(line)")
                    return
                }
                // "rows 2540/30000 (8 %), …": the child's progress, a line per tenth.
                let percent = line.split(separator: "(").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) }
                state.progress.withLock { $0 = (line, percent ?? $0?.percent ?? 0) }
                logger.info("content: building the pyramid of \(image): \(line)")
            }, said: { line in
                logger.warning("content: building the pyramid of \(image), flickd pyramid said: \(line)")
            })
            state.result.withLock {
                $0 = result.mapError { ContentError(path: image, reason: .pyramidBuildFailed($0.message)) }
            }
        }
        guard started else { return nil }
    }

    deinit { worker.stop() }

    /// How far the build is, in percent.
    var percent: Int { state.progress.withLock { $0?.percent ?? 0 } }

    /// The child's last progress line.
    var lastProgress: String? { state.progress.withLock { $0?.line } }

    /// The build's end (the `.dzi` written, or why not), once; `nil` while it runs.
    func takeResult() -> Result<String, ContentError>? {
        guard worker.takeDone() else { return nil }
        return state.result.withLock { $0 }
    }

    /// Why the child did not build the pyramid, in its words (or the call that kept it from
    /// starting).
    struct ChildFailure: Error {
        var message: String

        init(message: String) { self.message = message }

        /// The child could not be started: `step: <errno in words>`.
        init(_ step: String, _ cause: SystemError) { message = "\(step): \(cause.message)" }
    }

    /// Whether a line of the child's standard error is its progress (`rows …`, `built …`,
    /// `already built`) or its trim of the cache (`removed …`): anything else is the child
    /// complaining, which is no progress to log at info level.
    static func isProgress(_ line: String) -> Bool {
        line.hasPrefix("rows ") || line.hasPrefix("built ") || line == "already built" || line.hasPrefix(PyramidCache.removedPrefix)
    }

    /// Runs `/proc/self/exe ARGUMENTS`, handing each progress line of its standard error to
    /// `progress` as it comes; returns its standard output's first line, or, if it failed, the
    /// last of its other lines (its error, without its `flickd: `), which a build that succeeded
    /// hands to `said` instead.
    private static func run(_ arguments: [String], progress: (String) -> Void, said: (String) -> Void) -> Result<String, ChildFailure> {
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        guard pipe(&out) == 0 else { return .failure(ChildFailure("cannot make a pipe", .current("pipe", "flickd pyramid"))) }
        guard pipe(&err) == 0 else {
            let cause = SystemError.current("pipe", "flickd pyramid")
            close(out[0]); close(out[1])
            return .failure(ChildFailure("cannot make a pipe", cause))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        for fd in out + err { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv = (["flickd"] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var child: pid_t = 0
        let rc = SignalMask.withChildAttributes { posix_spawn(&child, "/proc/self/exe", &actions, $0, argv, environ) }
        close(out[1])
        close(err[1])
        defer { close(out[0]); close(err[0]) }
        guard rc == 0 else {
            return .failure(ChildFailure("cannot start flickd pyramid", SystemError(call: "posix_spawn", context: "/proc/self/exe", errno: rc)))
        }
        var complaints: [String] = []
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(err[0], &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            pending += chunk[0..<n]
            while let newline = pending.firstIndex(of: 10) {
                let text = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if isProgress(text) {
                    progress(text)
                } else if !text.isEmpty {
                    complaints.append(text.hasPrefix("flickd: ") ? String(text.dropFirst("flickd: ".count)) : text)
                }
            }
        }
        var output: [UInt8] = []
        while true {
            let n = read(out[0], &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            output += chunk[0..<n]
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7F == 0, code = (status >> 8) & 0xFF
        let path = String(decoding: output, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        guard exited && code == 0 && !path.isEmpty else {
            let how = exited ? "exit status \(code)" : "signal \(status & 0x7F)"
            return .failure(ChildFailure(message: "flickd pyramid ended with \(how)" + (complaints.last.map { ": \($0)" } ?? "")))
        }
        complaints.forEach(said)
        return .success(path)
    }
}
