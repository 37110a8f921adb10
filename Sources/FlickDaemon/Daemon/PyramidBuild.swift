import FlickDisplay
import Logging
import Synchronization

/// One image's pyramid built off the event loop (`PyramidBuilder.build` on a worker thread),
/// its progress logged every tenth and readable for `status`; the loop hears of the end through
/// `fileDescriptor` and shows the image then.
///
/// States: building → finished(path or error), taken once by `takeResult()`.
final class PyramidBuild {
    /// The image being built.
    let image: String
    /// Readable once the build has ended.
    var fileDescriptor: Int32 { worker.fileDescriptor }
    private let worker: BackgroundWorker
    private let state: Shared

    /// What the worker and the loop share.
    private final class Shared: Sendable {
        let progress = Mutex<PyramidProgress?>(nil)
        let result = Mutex<Result<String, ContentError>?>(nil)
    }

    /// Starts building `image`'s pyramid into `cacheDirectory`.
    /// - Returns: `nil` if no thread could be started.
    init?(image: String, cacheDirectory: String, logger: Logger) {
        guard let worker = BackgroundWorker() else { return nil }
        self.image = image
        self.worker = worker
        let state = Shared()
        self.state = state
        let started = worker.submit {
            var logged = -1
            let result: Result<String, ContentError>
            do {
                result = .success(try PyramidBuilder.build(image: image, cacheDirectory: cacheDirectory) { progress in
                    state.progress.withLock { $0 = progress }
                    let tenth = Int(progress.fraction * 10)
                    if tenth > logged && !progress.finished {
                        logged = tenth
                        logger.info("content: building the pyramid of \(image): \(progress)")
                    }
                })
            } catch let error as ContentError {
                result = .failure(error)
            } catch {
                result = .failure(ContentError(path: image, reason: .corrupt(detail: "\(error)")))
            }
            state.result.withLock { $0 = result }
        }
        guard started else { return nil }
    }

    deinit { worker.stop() }

    /// How far the build is, in percent.
    var percent: Int { Int((state.progress.withLock { $0?.fraction } ?? 0) * 100) }

    /// The latest progress, if any was reported.
    var progress: PyramidProgress? { state.progress.withLock { $0 } }

    /// The build's end (the `.dzi` written, or why not), once; `nil` while it runs.
    func takeResult() -> Result<String, ContentError>? {
        guard worker.takeDone() else { return nil }
        return state.result.withLock { $0 }
    }
}
