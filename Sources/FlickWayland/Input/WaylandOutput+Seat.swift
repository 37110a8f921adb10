import FlickCore

/// The Wayland output serves the seat: its connection, and its surface's size for mapping the
/// seat's surface coordinates onto the panel.
extension WaylandOutput: WaylandSeatHost {
    /// The window's size in surface-local units, where the seat's positions are.
    public var seatSurfaceSize: Size? { Size(width: Double(surfaceSize.width), height: Double(surfaceSize.height)) }
}
