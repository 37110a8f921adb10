import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Testing

/// Issue 34, part 5: a flick is logged (and sent to subscribers) at the velocity the content
/// took — the finger's, clamped to `scroll.maximum_fling_velocity` — not at the finger's own.
@Suite struct FlickVelocityLogTests {
    /// The flick of a finger moving up 150 px per 8 ms report (18750 px/s; the tracker, seeing it stop to lift, makes it over 12000) on the rig's tall
    /// content, with the maximum fling velocity at `maximum`.
    static func flick(maximum: Double) throws -> (velocity: Vector, entry: GestureLog.Entry?, wire: Vector?) {
        var configuration = Configuration()
        configuration.physics.maximumFlingVelocity = maximum
        let rig = try PipelineRig(configuration: configuration)
        var flick: (Vector, GestureLog.Entry?)?
        var applied: Vector?
        rig.onOutput = { output, view in
            if case let .gesture(.flick(v, _, _)) = output.kind, flick == nil { flick = (v, GestureLog.entry(for: output, view: view)) }
            if case let .scroll(.willEndDragging(v, _)) = output.kind { applied = v }
        }
        rig.settle(dragFrames(from: .milliseconds(100), at: 160, 180, by: 0, -150, steps: 12), seconds: 10, expectRest: false)
        let found = try #require(flick, "no flick: \(rig.outputs.map(\.kind))")
        return (found.0, found.1, applied)
    }

    @Test func aFlickPast12000PxPerSecondIsLoggedAt8000() throws {
        // Unclamped, the log says the finger's own speed.
        let free = try Self.flick(maximum: 50_000)
        #expect(free.velocity.dy < -12_000 && free.velocity.dx == 0, "\(free)")
        let clamped = try Self.flick(maximum: 8000)
        #expect(abs(clamped.velocity.dy + 8000) < 1e-6 && clamped.velocity.dx == 0, "\(clamped)")
        #expect(clamped.entry?.fields["VELOCITY_Y"] == "-8000", "\(String(describing: clamped.entry))")
        #expect(clamped.entry?.message.hasPrefix("flick up 8000 px/s") == true, "\(String(describing: clamped.entry))")
        // The same velocity as the model's willEndDragging (the offset's: the other sign).
        #expect(clamped.wire == -clamped.velocity, "\(clamped)")
    }
}
