import FlickCore
import FlickSystem
import Glibc

/// Makes tiles on worker threads so that no frame waits for a decode.
///
/// The event loop says which tiles it wants, most wanted first (`want(_:)`): the list replaces
/// the previous one, so tiles a fast flick has already left behind are never decoded. Each
/// worker takes the first wanted tile nobody is making, makes it, and hands it back; the first
/// tile handed back since the loop last looked makes `fileDescriptor` (a pipe) readable, the
/// loop takes what arrived (`takeArrivals()`) and redraws once.
///
/// States of one tile here: wanted → making → arrived → (taken by the loop). A tile wanted again
/// while it is being made is not made twice.
///
/// The workers run below the loop's priority and the band's worker (`WorkerPriority.Level.ahead`):
/// a decode is ahead of need, and with as many workers as cores the loop would otherwise wait
/// behind them for a core.
public final class TileLoader: TileFetching, @unchecked Sendable {
    public typealias Arrival = TileArrival

    /// Readable while arrivals wait to be taken.
    public var fileDescriptor: Descriptor { wake.fileDescriptor }
    private let wake: WakePipe
    /// How many worker threads make tiles.
    public let workerCount: Int
    private let source: any TileSource
    // Guarded by `mutex`; workers sleep on `ready` while nothing is wanted, and a thread in
    // `waitUntil(pendingAtMost:timeout:)` on `settled` until fewer tiles are pending.
    private var mutex = pthread_mutex_t()
    private var ready = pthread_cond_t()
    private var settled = pthread_cond_t()
    private var wanted: [TileKey] = []
    private var making: Set<TileKey> = []
    private var arrivals: [Arrival] = []
    private var stopping = false
    /// Whether the source may have work to do ahead (`TileSource.prepareAhead()`), and tiles
    /// made since a worker last did some: ahead-work takes every third job while tiles are
    /// wanted, so it neither waits for a quiet moment nor holds up the view's tiles.
    private var preparing = true
    private var tilesSincePrepare = 0
    private var threads: [pthread_t] = []

    /// Starts `workers` threads (at least one) making tiles of `source`.
    /// - Returns: `nil` if the pipe or a thread cannot be made.
    public init?(source: any TileSource, workers: Int) {
        guard let wake = WakePipe() else { return nil }
        self.wake = wake
        self.source = source
        workerCount = max(1, workers)
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&ready, nil)
        // On the monotonic clock: a wait's deadline does not move with the wall clock.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(&settled, &attributes)
        pthread_condattr_destroy(&attributes)
        for _ in 0..<workerCount {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(self).toOpaque()
            guard pthread_create(&thread, nil, { context in
                let loader = Unmanaged<TileLoader>.fromOpaque(context!).takeRetainedValue()
                loader.work()
                return nil
            }, context) == 0 else {
                Unmanaged<TileLoader>.fromOpaque(context).release()
                stop()
                return nil
            }
            threads.append(thread)
        }
    }

    /// How many worker threads suit this machine: one per core, at most four (a Raspberry Pi 4
    /// or 5 has four). The loop's own work per frame is small (a scanned-out frame is tens of
    /// µs), and with one core left to it a 2-core board decoded too slowly to keep a fast flick
    /// scanned out (BENCHMARKS.md section 10).
    public static var defaultWorkers: Int {
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        return min(4, max(1, cores))
    }

    /// Replaces the wanted tiles, most wanted first. Tiles being made are not wanted again.
    public func want(_ keys: [TileKey]) {
        locked {
            wanted = keys.filter { !making.contains($0) }
            if !wanted.isEmpty { pthread_cond_broadcast(&ready) }
            pthread_cond_broadcast(&settled)
        }
    }

    /// Tiles wanted or being made.
    public var pendingCount: Int { locked { wanted.count + making.count } }

    /// Whether `key` is being made now.
    public func isMaking(_ key: TileKey) -> Bool { locked { making.contains(key) } }

    /// What arrived since the last call; clears `fileDescriptor`'s readiness.
    public func takeArrivals() -> [Arrival] {
        // Emptied under the lock, so a worker's next first arrival always writes anew.
        return locked {
            wake.drain()
            defer { arrivals.removeAll(keepingCapacity: true) }
            return arrivals
        }
    }

    /// Blocks the calling thread until at most `count` tiles are wanted or being made, or
    /// `timeout` has passed: for a thread that hands the loader work and needs it done before it
    /// goes on (a tool, a benchmark, a test). Never the loop, which must not block: it learns of
    /// arrivals from `fileDescriptor`.
    /// - Returns: whether `pendingCount` came down to `count` in time; `false` once stopping.
    public func waitUntil(pendingAtMost count: Int, timeout: Duration) -> Bool {
        // `settled` runs on the monotonic clock; Instant's arithmetic saturates, so a timeout
        // beyond the clock's range waits as long as it can.
        let end = Instant.monotonicNow() + max(timeout, .zero)
        var deadline = timespec(tv_sec: Int(end.nanoseconds / 1_000_000_000), tv_nsec: Int(end.nanoseconds % 1_000_000_000))
        return locked {
            while !stopping && wanted.count + making.count > count {
                if pthread_cond_timedwait(&settled, &mutex, &deadline) == ETIMEDOUT { break }
            }
            return !stopping && wanted.count + making.count <= count
        }
    }

    /// Stops the workers after the tile each is making, and waits for them.
    public func stop() {
        let running: [pthread_t] = locked {
            stopping = true
            pthread_cond_broadcast(&ready)
            pthread_cond_broadcast(&settled)
            defer { threads.removeAll() }
            return threads
        }
        for thread in running { pthread_join(thread, nil) }
    }

    deinit {
        pthread_cond_destroy(&ready)
        pthread_cond_destroy(&settled)
        pthread_mutex_destroy(&mutex)
    }

    private func work() {
        WorkerPriority.lowerCallingThread(to: .ahead)
        while let job = next() {
            guard case .tile(let key) = job else {
                if !source.prepareAhead() { locked { preparing = false } }
                continue
            }
            let result = source.make(key)
            let first = locked {
                making.remove(key)
                arrivals.append(Arrival(key: key, result: result))
                pthread_cond_broadcast(&settled)
                return arrivals.count == 1
            }
            if first { wake.signal() }
        }
    }

    /// A worker's job: a tile, or work ahead.
    private enum Job {
        case tile(TileKey)
        case prepare
    }

    /// The next job, or `nil` once stopping.
    private func next() -> Job? {
        locked {
            while !stopping && wanted.isEmpty && !preparing { pthread_cond_wait(&ready, &mutex) }
            guard !stopping else { return nil }
            if preparing && (wanted.isEmpty || tilesSincePrepare >= 2) {
                tilesSincePrepare = 0
                return .prepare
            }
            tilesSincePrepare += 1
            let key = wanted.removeFirst()
            making.insert(key)
            return .tile(key)
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
