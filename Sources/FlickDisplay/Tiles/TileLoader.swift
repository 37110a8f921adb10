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
public final class TileLoader: TileFetching, @unchecked Sendable {
    public typealias Arrival = TileArrival

    /// Readable while arrivals wait to be taken.
    public var fileDescriptor: Descriptor { wake.fileDescriptor }
    private let wake: WakePipe
    /// How many worker threads make tiles.
    public let workerCount: Int
    private let source: any TileSource
    // Guarded by `mutex`; workers sleep on `ready` while nothing is wanted.
    private var mutex = pthread_mutex_t()
    private var ready = pthread_cond_t()
    private var wanted: [TileKey] = []
    private var making: Set<TileKey> = []
    private var arrivals: [Arrival] = []
    private var stopping = false
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

    /// Waits until nothing is wanted or being made (tests and benchmarks; never the loop).
    public func waitUntilIdle() {
        while pendingCount > 0 { usleep(500) }
    }

    /// Stops the workers after the tile each is making, and waits for them.
    public func stop() {
        let running: [pthread_t] = locked {
            stopping = true
            pthread_cond_broadcast(&ready)
            defer { threads.removeAll() }
            return threads
        }
        for thread in running { pthread_join(thread, nil) }
    }

    deinit {
        pthread_cond_destroy(&ready)
        pthread_mutex_destroy(&mutex)
    }

    private func work() {
        while let key = next() {
            let result = source.make(key)
            let first = locked {
                making.remove(key)
                arrivals.append(Arrival(key: key, result: result))
                return arrivals.count == 1
            }
            if first { wake.signal() }
        }
    }

    /// The next tile to make, or `nil` once stopping.
    private func next() -> TileKey? {
        locked {
            while !stopping && wanted.isEmpty { pthread_cond_wait(&ready, &mutex) }
            guard !stopping else { return nil }
            let key = wanted.removeFirst()
            making.insert(key)
            return key
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
