import FlickCore
import FlickDaemon
import FlickDisplay

/// What is looked at every simulated hour: the process's resources, the parts' bookkeeping,
/// and the model's invariants.
struct Checkpoint {
    var process: ProcessProbe
    /// Files under the cache folder (pyramids) and in the content's folder.
    var cacheFiles: Int
    var folderFiles: Int
    /// Parts with a deadline pending (the loop's timers: pipeline, content host, provider app).
    var timers: Int
    /// Descriptors the content host asks the loop to watch.
    var watched: Int
    /// Buffers the panel composes into; tiles cached and their bytes.
    var composedBuffers: Int
    var cachedTiles: Int
    var cachedTileBytes: Int

    init(_ kiosk: Kiosk) {
        process = .now()
        cacheFiles = ProcessProbe.entries(kiosk.cacheDirectory, recursive: true)
        folderFiles = ProcessProbe.entries(kiosk.folder)
        timers = [kiosk.pipeline.nextDeadline, kiosk.host.nextDeadline, kiosk.app.nextDeadline].compactMap { $0 }.count
        watched = kiosk.host.fileDescriptors.count
        composedBuffers = kiosk.panelOutput?.composedBufferCount ?? 0
        cachedTiles = kiosk.pipeline.tiles?.cache.count ?? 0
        cachedTileBytes = kiosk.pipeline.tiles?.cache.usedBytes ?? 0
    }

    /// The invariants of the model and of the kiosk's day at the top of hour `hour`.
    static func invariants(_ kiosk: Kiosk, day: Int, hour: Int) -> [String] {
        var wrong: [String] = []
        let view = kiosk.pipeline.scrollView
        if view.isAnimating || view.isTracking { wrong.append("the view is not at rest a minute after the last touch") }
        let clamped = view.clampedOffset(view.contentOffset)
        if clamped.distance(to: view.contentOffset) > 0.5 || !view.contentOffset.isFinite {
            wrong.append("offset \(view.contentOffset) at rest outside its bounds (\(clamped))")
        }
        if view.zoomScale < view.minimumZoomScale - 1e-9 || view.zoomScale > view.maximumZoomScale + 1e-9 {
            wrong.append("zoom \(view.zoomScale) outside \(view.minimumZoomScale)…\(view.maximumZoomScale)")
        }
        if !kiosk.grammar.isClosed { wrong.append("the delegate grammar is open at rest (a drag, deceleration or zoom never ended)") }
        // docs/power.md's table: the hours' start lights the panel; within them it is on until
        // `off_after_s` after the last touch; outside them off (a waking touch's panel goes off
        // again after the same delay).
        let idle = (kiosk.now - kiosk.lastTouch).inSeconds
        let expected: DisplayPower.State = hour == Kiosk.onHours.lowerBound
            || (Kiosk.onHours.contains(hour) && idle < kiosk.configuration.power.offAfterSeconds) ? .on : .off
        if let state = kiosk.pipeline.power?.state, state != expected {
            wrong.append("power \(state) at \(hour):00 (\(Int(idle)) s after the last touch), the schedule and idle timer say \(expected)")
        } else if kiosk.pipeline.power == nil {
            wrong.append("no power machine")
        }
        // The monitor is unplugged at 23:00 and back at 06:00; the kiosk starts with it plugged in.
        let connected = (7...23).contains(hour) || day == 0
        if kiosk.pipeline.isConnected != connected {
            wrong.append("a panel \(kiosk.pipeline.isConnected ? "attached" : "missing") at \(hour):00")
        }
        if kiosk.app.connected != (hour == 13) { wrong.append("the provider \(kiosk.app.connected ? "connected" : "gone") at \(hour):00") }
        if !kiosk.touches.frames.isEmpty { wrong.append("touches left unplayed") }
        return wrong
    }
}
