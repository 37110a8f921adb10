@testable import FlickDisplay
@testable import FlickSystem
import FlickTestSupport
import Glibc
import Synchronization
import Testing

/// The worker threads run below the loop (issue 36 part 7): each reads its own scheduling back
/// from the kernel (`/proc/thread-self/stat`) inside a job, so what is checked is what the
/// scheduler applies, not what the code meant to ask.
@Suite struct WorkerPriorityTests {
    /// What a worker at `level` should run at, created by the calling thread (the tests' stand-in
    /// for the loop): `SCHED_BATCH`, that many nice levels below it.
    static func expected(_ level: WorkerPriority.Level) throws -> ThreadScheduling {
        let creator = try #require(ThreadScheduling.callingThread())
        return ThreadScheduling(policy: ThreadScheduling.batch, nice: min(19, creator.nice + level.rawValue))
    }

    @Test(arguments: WorkerPriority.Level.allCases)
    func aBackgroundWorkersThreadRunsBatchItsLevelBelowTheLoop(level: WorkerPriority.Level) throws {
        let loop = try #require(ThreadScheduling.callingThread())
        let expected = try Self.expected(level)
        let worker = try #require(BackgroundWorker(level: level))
        defer { worker.stop() }
        let seen = Mutex<ThreadScheduling?>(nil)
        #expect(worker.submit { seen.withLock { $0 = ThreadScheduling.callingThread() } })
        try waitUntilReadable(worker.fileDescriptor.rawValue, "the worker's job", timeout: workerDeadline)
        #expect(worker.takeDone())
        #expect(worker.priorityRefusal == nil)
        #expect(seen.withLock { $0 } == expected)
        // Only the worker was lowered: on Linux both calls are the thread's, not the process's.
        #expect(ThreadScheduling.callingThread() == loop)
    }

    @Test func everyTileDecoderRunsBatchTenNiceLevelsBelowTheLoop() throws {
        let loop = try #require(ThreadScheduling.callingThread())
        let expected = try Self.expected(.ahead)
        let source = try #require(SchedulingProbe(size: PixelSize(width: 2048, height: 2048)))
        let loader = try #require(TileLoader(source: source, workers: 3))
        defer { loader.stop() }
        let grid = source.grid
        loader.want(grid.tiles(at: grid.maxLevel, covering: PixelRect(x0: 0, y0: 0, x1: 2048, y1: 2048)))
        try loader.waitUntilIdle()
        let seen = source.seen.withLock { $0 }
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0 == expected }, "\(seen)")
        #expect(ThreadScheduling.callingThread() == loop)
    }

    @Test func aStatLineIsReadFromTheLastParenthesis() {
        // A thread named "a) (b 1": the name's own parentheses and spaces must not shift fields.
        let rest = (3...52).map { field in field == 19 ? "7" : field == 41 ? "3" : "0" }.joined(separator: " ")
        #expect(ThreadScheduling.parse(stat: "1234 (a) (b 1) " + rest) == ThreadScheduling(policy: ThreadScheduling.batch, nice: 7))
        #expect(ThreadScheduling.parse(stat: "1234 (short) 0 0") == nil)
        #expect(ThreadScheduling.parse(stat: "no name") == nil)
        #expect(ThreadScheduling(policy: ThreadScheduling.batch, nice: 10).description == "SCHED_BATCH, nice 10")
    }
}

/// The test pattern's tiles, each noting the scheduling of the thread that made it.
private final class SchedulingProbe: TileSource, @unchecked Sendable {
    let pattern: TestPatternSource
    let seen = Mutex<[ThreadScheduling?]>([])
    var grid: TileGrid { pattern.grid }
    var lowestLevel: Int { 0 }
    var isOpaque: Bool { true }
    var name: String { "scheduling probe" }

    init?(size: PixelSize) {
        guard let pattern = TestPatternSource(size: size) else { return nil }
        self.pattern = pattern
    }

    func tile(_ key: TileKey) throws -> PixelBuffer {
        seen.withLock { $0.append(ThreadScheduling.callingThread()) }
        return try pattern.tile(key)
    }
}
