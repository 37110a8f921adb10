/// Every tunable of the scroll physics, with its default and where that default comes from
/// (docs/ARCHITECTURE.md, "Differences from UIKit"). The daemon's config file exposes each one.
public struct ScrollPhysics: Hashable, Sendable {
    /// Rubber-band stiffness c in f(x) = (1 − 1/(x·c/dim + 1))·dim. UIKit's observed 0.55.
    public var rubberBandCoefficient: Double = 0.55
    /// Spring stiffness for bounce-back and page snap. Critically damped, settles in ≈ 0.5 s.
    public var springStiffness: Double = 100
    /// Spring mass.
    public var springMass: Double = 1
    /// Below this release speed (px/s) a lift has no momentum. Flutter's bouncing physics.
    public var minimumFlingVelocity: Double = 100
    /// Release speeds above this (px/s) are clamped to it. Flutter's bouncing physics.
    public var maximumFlingVelocity: Double = 8000
    /// A release faster than this (px/s) towards the next page turns to it. AndroidX ViewPager.
    public var pagingVelocityThreshold: Double = 400
    /// A drag past this fraction of a page turns to it. AndroidX ViewPager, Flutter.
    public var pagingDistanceThreshold: Double = 0.5
    /// Lock to an axis when its motion exceeds this multiple of the other's at drag start. GTK.
    public var directionalLockRatio: Double = 2
    /// Duration of animated programmatic scrolls and zooms, seconds. UIKit's ≈ 0.3 s, whatever
    /// the distance.
    public var animationDuration: Double = 0.3
    /// The timing curve of animated programmatic scrolls and zooms. UIKit's looks ease-in-out.
    public var animationCurve: AnimationCurve = .easeInOut
    /// When above 0, animated scrolls (`setContentOffset`, `scrollRectToVisible`, scroll to top)
    /// move at this many px/s instead of taking `animationDuration`: their duration follows the
    /// distance, within `constantRateDurations`. Zooms keep `animationDuration`. 0: off (UIKit).
    public var animationSpeed: Double = 0
    /// The shortest and the longest a constant-rate scroll takes, seconds: a few pixels still
    /// move over several frames, and a scroll to the top of a long page does not crawl.
    public static let constantRateDurations = 0.1...2.0
    /// Duration of the zoom bounce back inside min/max, seconds.
    public var zoomBounceDuration: Double = 0.3
    /// Momentum ends when less than this many px of travel remain (then snaps to rest).
    public var restDistance: Double = 0.5
    /// A spring ends within this many px of its target…
    public var springRestDistance: Double = 0.25
    /// …and slower than this many px/s.
    public var springRestSpeed: Double = 5
    /// How long scroll indicators take to fade out once motion stops, seconds (≈ UIKit).
    public var indicatorFadeDuration: Double = 0.3
    /// How long `flashScrollIndicators` keeps them fully visible before fading, seconds.
    public var indicatorFlashDuration: Double = 0.5

    /// The defaults above.
    public init() {}

    /// How long an animated scroll over `distance` px takes: `animationDuration`, or at
    /// `animationSpeed` within `constantRateDurations` when a speed is set.
    public func scrollAnimationDuration(distance: Double) -> Double {
        guard animationSpeed > 0 else { return animationDuration }
        let range = Self.constantRateDurations
        return Swift.min(Swift.max(distance / animationSpeed, range.lowerBound), range.upperBound)
    }

    /// Checks every tunable.
    /// - Throws: `ScrollViewError.invalidTunable` naming the first bad one and what it expects.
    public func validate() throws(ScrollViewError) {
        let positive: [(String, Double)] = [
            ("rubber_band_coefficient", rubberBandCoefficient), ("spring_stiffness", springStiffness),
            ("spring_mass", springMass), ("maximum_fling_velocity", maximumFlingVelocity),
            ("rest_distance", restDistance), ("spring_rest_distance", springRestDistance),
            ("spring_rest_speed", springRestSpeed), ("directional_lock_ratio", directionalLockRatio),
        ]
        for (name, value) in positive where !(value.isFinite && value > 0) {
            throw .invalidTunable(name: name, value: value, expected: "a finite number greater than 0")
        }
        let nonNegative: [(String, Double)] = [
            ("minimum_fling_velocity", minimumFlingVelocity), ("paging_velocity_threshold", pagingVelocityThreshold),
            ("animation_duration", animationDuration), ("animation_speed", animationSpeed),
            ("zoom_bounce_duration", zoomBounceDuration),
            ("indicator_fade_duration", indicatorFadeDuration), ("indicator_flash_duration", indicatorFlashDuration),
        ]
        for (name, value) in nonNegative where !(value.isFinite && value >= 0) {
            throw .invalidTunable(name: name, value: value, expected: "a finite number of at least 0")
        }
        if !(pagingDistanceThreshold > 0 && pagingDistanceThreshold < 1) {
            throw .invalidTunable(name: "paging_distance_threshold", value: pagingDistanceThreshold,
                                  expected: "a fraction of a page between 0 and 1 (exclusive)")
        }
        // A spring's frequency √(k/m) is what the motion feels like (10/s by default, settling in
        // half a second); far outside this range it either never moves or never settles.
        let frequency = (springStiffness / springMass).squareRoot()
        if !(frequency >= 0.1 && frequency <= 10_000) {
            throw .invalidTunable(name: "spring_stiffness", value: springStiffness,
                                  expected: "with spring_mass \(springMass), a frequency √(stiffness/mass) from 0.1 to 10000 per second")
        }
        if minimumFlingVelocity > maximumFlingVelocity {
            throw .invalidTunable(name: "minimum_fling_velocity", value: minimumFlingVelocity,
                                  expected: "at most maximum_fling_velocity (\(maximumFlingVelocity))")
        }
    }
}
