import FlickCore

/// What a Wayland seat gives the pipeline, in order: touch frames (fingers, and the pointer's
/// button held as one more finger) and the pointer's wheel, touchpad scrolls and pinches.
public enum WaylandInput: Hashable, Sendable {
    /// Fingers, as a touchscreen's decoder would report them, in the panel's pixels.
    case touch(TouchFrame)
    /// A wheel, a touchpad scroll or pinch.
    case pointer(PointerInput)

    /// When it happened.
    public var time: Instant {
        switch self {
        case let .touch(frame): frame.time
        case let .pointer(input): input.time
        }
    }
}

/// How the surface's coordinates map onto the panel's pixels: the surface's logical size (its
/// last configure) and the size flickd draws (the buffer: the surface times its scale).
public struct WaylandSurfaceMapping: Hashable, Sendable {
    /// The surface in the compositor's logical coordinates; nil until known (then 1:1).
    public var surfaceSize: Size?
    /// The panel as flickd lays it out: the buffer's pixels.
    public var outputSize: Size

    /// Creates a mapping.
    public init(surfaceSize: Size?, outputSize: Size) {
        self.surfaceSize = surfaceSize
        self.outputSize = outputSize
    }

    /// Pixels per surface unit along each axis.
    var scale: Vector {
        guard let s = surfaceSize, s.width > 0, s.height > 0, outputSize.width > 0, outputSize.height > 0 else {
            return Vector(dx: 1, dy: 1)
        }
        return Vector(dx: outputSize.width / s.width, dy: outputSize.height / s.height)
    }

    /// A surface-local point in the panel's pixels.
    func map(_ x: Double, _ y: Double) -> Point {
        let k = scale
        return Point(x: x * k.dx, y: y * k.dy)
    }
}
