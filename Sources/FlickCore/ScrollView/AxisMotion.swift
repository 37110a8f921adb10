/// The path of one axis after the finger lifts: decay, then perhaps a spring at an edge, then
/// rest — each piece a closed form of time, with its start and end found once, analytically,
/// at release. Because nothing depends on when frames happen to be drawn, the same flick gives
/// the same positions at any frame rate.
struct AxisMotion: Hashable, Sendable {
    enum Piece: Hashable, Sendable {
        case decay(Deceleration)
        case spring(Spring)
    }

    /// A piece and when it starts, seconds after release.
    struct Timed: Hashable, Sendable {
        var start: Double
        var piece: Piece
    }

    /// The pieces in order; each ends where the next starts, the last at `duration`.
    private(set) var pieces: [Timed] = []
    /// Seconds from release to rest.
    private(set) var duration: Double = 0
    /// Where the axis comes to rest.
    private(set) var restPosition: Double

    /// An axis that does not move.
    init(restingAt position: Double) {
        restPosition = position
    }

    /// Whether the axis moves at all.
    var isMoving: Bool { !pieces.isEmpty }

    /// The position `t` seconds after release.
    func position(at t: Double) -> Double {
        guard t < duration, let index = pieces.lastIndex(where: { $0.start <= t }) else { return restPosition }
        let start = pieces[index].start
        switch pieces[index].piece {
        case let .decay(d): return d.position(at: t - start)
        case let .spring(s): return s.position(at: t - start)
        }
    }

    /// Where a touch `t` seconds after release stops the axis: in the tail of a spring back to
    /// its rest (a bounce to the edge, or a page snap) that moves slower than `unseenSpeed`
    /// px/s, at the rest; anything else where it is. Such a touch lands on content that looks
    /// still a pixel or so short of the edge (−1.35 px in the 3M recording, −0.43 px on an
    /// optical panel's recording): left there, out of bounds, the touch's lift would spring it
    /// back again, a second, tiny bounce.
    func stopped(at t: Double, unseenSpeed: Double) -> Double {
        let p = position(at: t)
        guard t < duration, let index = pieces.lastIndex(where: { $0.start <= t }),
              case let .spring(spring) = pieces[index].piece, spring.target == restPosition else { return p }
        let s = t - pieces[index].start, away = p - restPosition
        // The tail: on its way back (a spring carried past an edge is slow at its furthest
        // point too, far out) and within what its pull covers unseen (|x|·ω, the tail's speed).
        let returning = away * spring.velocity(at: s) <= 0
        return returning && abs(away) * spring.omega < unseenSpeed ? restPosition : p
    }

    /// Momentum after a release at `position` with offset `velocity` (px/s), inside or outside
    /// `[lower, upper]`.
    static func release(at position: Double, velocity: Double, lower: Double, upper: Double,
                        bounces: Bool, rate: DecelerationRate, physics: ScrollPhysics) -> AxisMotion {
        if position < lower || position > upper {
            // Released past an edge: spring back, carrying the finger's velocity into it.
            let edge = position < lower ? lower : upper
            return .spring(from: position, velocity: velocity, to: edge, physics: physics)
        }
        guard velocity != 0 else { return AxisMotion(restingAt: position) }
        let decay = Deceleration(origin: position, velocity: velocity, rate: rate)
        let settle = decay.settleTime(threshold: physics.restDistance)
        var motion = AxisMotion(restingAt: decay.restPosition)
        let edge = velocity < 0 ? lower : upper
        if let hit = decay.time(reaching: edge), hit < settle {
            // Already at the edge it flicks into, with nothing to bounce: no travel, so no
            // deceleration (a willBeginDecelerating for a motion that never moves).
            guard bounces || hit > 0 else { return AxisMotion(restingAt: edge) }
            motion.pieces = [Timed(start: 0, piece: .decay(decay))]
            guard bounces else {
                motion.duration = hit
                motion.restPosition = edge
                return motion
            }
            // Carried past the edge: the spring takes over at the edge with the decay's speed.
            let spring = Spring(from: edge, velocity: decay.velocity(at: hit), to: edge,
                                stiffness: physics.springStiffness, mass: physics.springMass)
            motion.pieces.append(Timed(start: hit, piece: .spring(spring)))
            motion.duration = hit + spring.settleTime(distance: physics.springRestDistance, speed: physics.springRestSpeed)
            motion.restPosition = edge
            return motion
        }
        guard settle > 0 else { return AxisMotion(restingAt: position) }
        motion.pieces = [Timed(start: 0, piece: .decay(decay))]
        motion.duration = settle
        return motion
    }

    /// A spring from `position` to `target`, e.g. a bounce back or a page snap.
    static func spring(from position: Double, velocity: Double, to target: Double, physics: ScrollPhysics) -> AxisMotion {
        let spring = Spring(from: position, velocity: velocity, to: target,
                            stiffness: physics.springStiffness, mass: physics.springMass)
        let duration = spring.settleTime(distance: physics.springRestDistance, speed: physics.springRestSpeed)
        var motion = AxisMotion(restingAt: target)
        guard duration > 0 else { return motion }
        motion.pieces = [Timed(start: 0, piece: .spring(spring))]
        motion.duration = duration
        return motion
    }
}
