@testable import FlickDisplay
import FlickTestSupport

/// How long a test waits for a worker thread before it fails: far beyond what the work takes,
/// so that only a worker that never finishes reaches it, not a loaded machine.
let workerDeadline: Duration = .seconds(60)

// The tests' ways to wait for the display's worker threads. The loop never waits: it watches
// their fds. A test drives the loop's side by hand, so it blocks on the same signals instead.

extension TileLoader {
    /// Waits until nothing is wanted or being made.
    /// - Throws: `WaitTimedOut` when the workers are still busy after `workerDeadline`.
    func waitUntilIdle() throws {
        guard waitUntil(pendingAtMost: 0, timeout: workerDeadline) else {
            throw WaitTimedOut(what: "the tile loader to make its \(pendingCount) pending tiles", timeout: workerDeadline)
        }
    }
}

extension ScanOutBand {
    /// Waits for the band being drawn, then takes it (`takeFinished()`): `true` if there is a new
    /// one to show from, `false` at once when none is being drawn.
    /// - Throws: `WaitTimedOut` when the worker has not finished after `workerDeadline`.
    func finishFilling() throws -> Bool {
        guard isFilling else { return false }
        try waitUntilReadable(fileDescriptor.rawValue, "the scan-out band's worker to finish", timeout: workerDeadline)
        return takeFinished()
    }
}

extension FrameComposer {
    /// Waits for the scan-out band being drawn, then takes it (`takeBandFill()`): `true` if
    /// frames can now be scanned out from it, `false` at once when none is being drawn.
    /// - Throws: `WaitTimedOut` when the worker has not finished after `workerDeadline`.
    func finishBandFill() throws -> Bool {
        guard isFillingBand, let fd = fileDescriptor else { return false }
        try waitUntilReadable(fd.rawValue, "the scan-out band's worker to finish", timeout: workerDeadline)
        return takeBandFill()
    }
}
