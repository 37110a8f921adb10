import FlickCore
import FlickDisplay

extension WaylandOutput {
    /// The monitor's millimetres for the window's share of it.
    public var physicalSize: Size? {
        guard let monitor = window.monitors.current, let mode = monitor.mode, monitor.millimetres.width > 0,
              monitor.millimetres.height > 0 else { return nil }
        // The mode is in buffer pixels of the monitor; the window's buffer at the same scale.
        let perPixel = Size(width: Double(monitor.millimetres.width) / Double(mode.width),
                            height: Double(monitor.millimetres.height) / Double(mode.height))
        let factor = Double(monitor.scale) / Double(max(1, window.scale))
        return Size(width: perPixel.width * Double(size.width) * factor, height: perPixel.height * Double(size.height) * factor)
    }

    /// The refresh period of the monitor the window is on, from its mode, if it says.
    var monitorRefresh: Duration? {
        guard let mHz = window.monitors.current?.refreshMillihertz, mHz > 1000 else { return nil }
        return .nanoseconds(1_000_000_000_000 / Int64(mHz))
    }
}
