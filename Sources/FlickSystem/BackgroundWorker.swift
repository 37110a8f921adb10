import Glibc

/// One thread running one job at a time off the event loop; `fileDescriptor` (a pipe) turns
/// readable when a job finished, so the loop learns of it without polling. The thread runs below
/// the loop's priority (`WorkerPriority`, at the level given): its jobs are ahead of need, the
/// loop's frame is not.
///
/// States: idle → busy (`submit`) → done (the job returned; readable) → idle (`takeDone`).
public final class BackgroundWorker: @unchecked Sendable {
    /// Readable while a finished job waits to be taken.
    public var fileDescriptor: Descriptor { finished.fileDescriptor }
    private let finished: WakePipe
    private var mutex = pthread_mutex_t()
    private var wake = pthread_cond_t()
    /// Signalled when a job returns.
    private var returned = pthread_cond_t()
    private var job: (@Sendable () -> Void)?
    private var busy = false
    private var done = false
    private var stopping = false
    private var thread = pthread_t()
    private var started = false
    private var refusal: SystemError?
    /// How far below the loop the thread runs.
    public let level: WorkerPriority.Level

    /// Starts the thread, to run `level` below the loop (the calling thread); `nil` if the pipe
    /// or the thread cannot be made.
    public init?(level: WorkerPriority.Level) {
        guard let finished = WakePipe() else { return nil }
        self.finished = finished
        self.level = level
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&wake, nil)
        pthread_cond_init(&returned, nil)
        let context = Unmanaged.passRetained(self).toOpaque()
        guard pthread_create(&thread, nil, { context in
            Unmanaged<BackgroundWorker>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context) == 0 else {
            Unmanaged<BackgroundWorker>.fromOpaque(context).release()
            return nil
        }
        started = true
    }

    /// Why the thread could not lower its priority, if it could not (it then runs at the
    /// loop's); `nil` also until the thread has started, which is before its first job runs.
    public var priorityRefusal: SystemError? { locked { refusal } }

    /// Whether a job is running or finished and not yet taken.
    public var isBusy: Bool { locked { busy || done } }

    /// Runs `job` on the thread; `false` (and nothing runs) while another is busy or done.
    public func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        locked {
            guard !busy, !done, !stopping else { return false }
            self.job = job
            busy = true
            pthread_cond_signal(&wake)
            return true
        }
    }

    /// Whether a job finished since the last call; makes the worker idle again.
    public func takeDone() -> Bool {
        locked {
            finished.drain()
            defer { done = false }
            return done
        }
    }

    /// Waits until the job running (if any) has returned. The loop calls it only for a job it
    /// has told to stop early, which then returns within a small step of its work.
    public func waitUntilDone() {
        locked {
            while busy { pthread_cond_wait(&returned, &mutex) }
        }
    }

    /// Stops the thread after its job and waits for it.
    public func stop() {
        let join: Bool = locked {
            defer { started = false }
            stopping = true
            pthread_cond_signal(&wake)
            return started
        }
        if join { pthread_join(thread, nil) }
    }

    deinit {
        pthread_cond_destroy(&wake)
        pthread_cond_destroy(&returned)
        pthread_mutex_destroy(&mutex)
    }

    private func run() {
        let refused = WorkerPriority.lowerCallingThread(to: level)
        locked { refusal = refused }
        while true {
            var next: (@Sendable () -> Void)? = locked {
                while !stopping && job == nil { pthread_cond_wait(&wake, &mutex) }
                defer { job = nil }
                return stopping ? nil : job
            }
            guard next != nil else { return }
            next?()
            // What the job holds (a band's tiles) is let go before it is said done: the loop
            // may then write over those tiles (`TileCache.overwritableBuffer`).
            next = nil
            locked {
                busy = false
                done = true
                pthread_cond_broadcast(&returned)
            }
            finished.signal()
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
