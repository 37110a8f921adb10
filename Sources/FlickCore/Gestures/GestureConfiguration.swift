/// Every tunable of gesture recognition, with its default and where that default comes from
/// (docs/ARCHITECTURE.md, "Differences from UIKit"). The daemon's config file exposes each one.
public struct GestureConfiguration: Hashable, Sendable {
    /// How long a still touch is held back before the content hears of it. UIKit's
    /// `delaysContentTouches` delay is 150 ms (Android and Flutter use 100 ms); 0 delivers at once.
    public var contentTouchDelay: Duration = .milliseconds(150)
    /// Whether a touch is held back from the content for `contentTouchDelay` at all. UIKit's
    /// `delaysContentTouches`, default true; false sends the content its touch-down at once
    /// (cancelled if the touch becomes a drag and `canCancelContentTouches`).
    public var delaysContentTouches = true
    /// Whether moving beyond the slop after the content got the touch takes it back (content
    /// touch-cancel) and scrolls. UIKit's `canCancelContentTouches`, default true.
    public var canCancelContentTouches = true
    /// Movement beyond this distance on the panel makes a touch a drag. 3 mm (libinput uses
    /// 1.3 mm for touchpads; a finger on glass wobbles more).
    public var touchSlopMillimetres: Double = 3
    /// The slop in screen pixels when the panel's size is unknown (no ABS resolution). Flutter
    /// raised its slop from 8 to 18 px for hit-ability.
    public var touchSlopPixels: Double = 18
    /// Screen pixels per millimetre of the panel, when the device reports its resolution.
    public var pixelsPerMillimetre: Double?
    /// A still touch this long is a long press. Android and Flutter: 500 ms.
    public var longPressDuration: Duration = .milliseconds(500)
    /// A second tap beginning within this time of the first's lift is a double tap. Android
    /// and Flutter: 300 ms.
    public var doubleTapInterval: Duration = .milliseconds(300)
    /// A second tap sooner than this after the first is a bounce of the same tap, not a double
    /// tap. Android and Flutter: 40 ms.
    public var doubleTapMinimumInterval: Duration = .milliseconds(40)
    /// How near the first tap the second must land to make a double tap, in millimetres
    /// (Android: 100 dp ≈ 16 mm).
    public var doubleTapSlopMillimetres: Double = 16
    /// The same distance in pixels when the panel's size is unknown.
    public var doubleTapSlopPixels: Double = 100
    /// What a double tap does.
    public var doubleTapAction: DoubleTapAction = .zoomToggle(scale: .factor(2))
    /// The scale a `zoomToggle` double tap toggles with: nil, the minimum zoom scale (Photos);
    /// a kiosk sets its start scale, so two double taps come back to the home zoom.
    public var doubleTapHomeScale: ScaleSetting?
    /// Velocity estimate: samples older than this are not used. Android and Flutter: 100 ms.
    public var velocityWindow: Duration = .milliseconds(100)
    /// Velocity estimate: at most this many samples. Android and Flutter: 20.
    public var velocitySamples = 20
    /// Velocity estimate: a pause this long means the finger stopped; older samples are
    /// dropped. Flutter's `assumePointerMoveStoppedMilliseconds`: 40 ms.
    public var velocityResetGap: Duration = .milliseconds(40)
    /// A touch that lands while the content moves slower than this, in pixels per frame,
    /// stops it and is an ordinary touch (content-touch delay, tap, long press, drag); faster,
    /// it only stops it (UIKit). A decay's long tail and a spring's last millimetres move less
    /// than a pixel a frame, and a visitor's tap there must not be eaten. 0: UIKit's rule always.
    public var imperceptibleMotionPixelsPerFrame: Double = 1
    /// The panel's refresh rate (Hz), which makes that a speed; set from the display.
    public var refreshRate: Double = 60
    /// Whether two fingers zoom.
    public var pinchEnabled = true
    /// A tap this close to the top edge, in screen pixels, scrolls to the top instead of
    /// reaching the content, as a tap on a phone's status bar does; 0 turns it off. Off by
    /// default: a kiosk's content may have buttons up there.
    public var scrollToTopStripHeight: Double = 0

    /// The defaults above.
    public init() {}

    /// The slop in screen pixels: from millimetres when the panel's size is known.
    public var touchSlop: Double {
        if let ppmm = pixelsPerMillimetre, ppmm.isFinite, ppmm > 0 { return touchSlopMillimetres * ppmm }
        return touchSlopPixels
    }

    /// The speed (px/s) below which moving content does not catch a touch.
    public var imperceptibleSpeed: Double { imperceptibleMotionPixelsPerFrame * refreshRate }

    /// The double-tap distance in screen pixels.
    public var doubleTapSlop: Double {
        if let ppmm = pixelsPerMillimetre, ppmm.isFinite, ppmm > 0 { return doubleTapSlopMillimetres * ppmm }
        return doubleTapSlopPixels
    }
}

/// What a double tap does.
public enum DoubleTapAction: Hashable, Sendable {
    /// From `GestureConfiguration.doubleTapHomeScale` (the minimum by default: Photos
    /// behaviour), zoom in to `scale` about the tap; from any other zoom, back to it.
    case zoomToggle(scale: DoubleTapZoom)
    /// Always zoom in to `scale` about the tap.
    case zoomIn(scale: DoubleTapZoom)
    /// Deliver a `doubleTap` to the content and leave the zoom alone.
    case content
}

/// Where a double tap zooms to: a zoom scale, or a step from the zoom where it lands. A step is
/// what maps do (Google and Apple Maps double the zoom, OpenSeadragon's `zoomPerClick` is 2): a
/// scale is the same zoom whatever the content, so a 2 that steps ×4 into a photo fitted at 0.5
/// jumps ×83 into a map fitted at 0.024.
public enum DoubleTapZoom: Hashable, Sendable, CustomStringConvertible, ExpressibleByFloatLiteral,
    ExpressibleByIntegerLiteral {
    /// This zoom scale.
    case scale(Double)
    /// The zoom where the tap lands times this.
    case factor(Double)

    /// A zoom scale.
    public init(floatLiteral value: Double) { self = .scale(value) }
    /// A whole zoom scale.
    public init(integerLiteral value: Int) { self = .scale(Double(value)) }

    /// The factors a step takes: more than 1 (a step in), at most the zoom range's span.
    public static let factorRange = 1.0.nextUp...1000.0

    /// The setting as the config file spells it: `2.5` or `"2.5x"`.
    public var description: String {
        switch self {
        case let .scale(s): s.written
        case let .factor(f): "\"\(f.written)x\""
        }
    }

    /// The zoom a double tap at zoom `zoomScale` goes to, before the limits.
    public func target(from zoomScale: Double) -> Double {
        switch self {
        case let .scale(s): s
        case let .factor(f): zoomScale * f
        }
    }
}
