import FlickControl
import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Testing

/// The touch overlay (`debug.touch_overlay`, `touch-overlay on|off`) in headless pixels: a dot
/// under a finger, a trail behind a moving one, both gone after the lift with the display idle
/// again, scan-out resumed, and nothing at all with the overlay off.
@Suite struct TouchOverlayTests {
    let start = Instant.seconds(5)
    let finger = ContactID(1)

    private func rig(overlay: Bool) throws -> PipelineRig {
        var configuration = Configuration()
        configuration.touchOverlay = overlay
        let rig = try PipelineRig(configuration: configuration, at: start)
        rig.settle(seconds: 0.5)
        return rig
    }

    private func down(_ p: Point, at t: Instant) -> TouchFrame {
        TouchFrame(time: t, contacts: [Contact(id: finger, position: p)], began: [finger])
    }

    private func screen(_ rig: PipelineRig) throws -> PixelBuffer { try #require(rig.output.headless.snapshot()) }

    /// The overlay's pink: strong red and blue over whatever is below.
    private func isPink(_ pixel: UInt32) -> Bool {
        (pixel >> 16) & 0xFF >= 200 && pixel & 0xFF >= 120 && (pixel >> 8) & 0xFF < 120
    }

    @Test func aDotShowsUnderTheFingerAndIsGoneAfterTheLift() throws {
        let on = try rig(overlay: true), off = try rig(overlay: false)
        let p = Point(x: 100, y: 80)
        for r in [on, off] { r.settle([down(p, at: start + .seconds(1))], seconds: 2) }   // held: long press fires
        let lit = try screen(on), plain = try screen(off)
        #expect(isPink(lit[100, 80]) && !isPink(plain[100, 80]))
        #expect(isPink(lit[100 + 10, 80]) && !isPink(lit[100 + 20, 80]))   // a 14 px dot
        #expect(lit[300, 180] == plain[300, 180])
        #expect(!on.output.headless.isScanningOutContent)   // composed while touches show

        let lift = TouchFrame(time: start + .seconds(3), contacts: [], ended: [Contact(id: finger, position: p)])
        for r in [on, off] { r.settle([lift], seconds: 2) }
        let after = try screen(on), reference = try screen(off)
        var differing = 0
        for y in 0..<after.height { for x in 0..<after.width where after[x, y] != reference[x, y] { differing += 1 } }
        #expect(differing == 0)
        // Faded and idle: nothing asks for a frame, and the content is scanned out again.
        #expect(on.pipeline.nextDeadline == nil && on.frames.last?.touchMarks.isEmpty == true)
        #expect(on.output.headless.isScanningOutContent)
        let frames = on.frames.count
        #expect(on.settle(seconds: 30).timerWakeups == 0 && on.frames.count == frames)
        #expect(off.frames.allSatisfy { $0.touchMarks.isEmpty })
    }

    @Test func aMovingFingerLeavesAShortTrailThatFades() throws {
        let on = try rig(overlay: true)
        on.settle(dragFrames(from: start + .seconds(1), at: 60, 150, by: 0, -4, steps: 12),
                 seconds: 1.07, expectRest: false)   // mid-drag: the rig's clock is at about start + 0.017
        let marks = try #require(on.frames.last?.touchMarks)
        #expect(marks.count > 5)
        #expect(marks.filter { $0.radius == TouchTrails.dotRadius }.count == 1)
        // The oldest trail points are the faintest.
        let trail = marks.filter { $0.radius == TouchTrails.trailRadius }
        #expect(trail.first!.opacity < trail.last!.opacity)
        on.settle(seconds: 30)
        #expect(on.frames.last?.touchMarks.isEmpty == true && on.pipeline.nextDeadline == nil)
    }

    @Test func theControlCommandTurnsItOnAndOff() throws {
        let rig = try rig(overlay: false)
        let commands = rig.commands()
        _ = commands.handle(try ControlCommand(ControlRequest(cmd: "touch-overlay", enabled: true)), id: 1)
        #expect(rig.pipeline.touchOverlay)
        rig.settle([down(Point(x: 50, y: 50), at: start + .seconds(1))], seconds: 2)
        let lit = try screen(rig)
        #expect(isPink(lit[50, 50]))
        _ = commands.handle(.touchOverlay(false), id: 2)
        rig.settle(seconds: 1)
        let plain = try screen(rig)
        #expect(!rig.pipeline.touchOverlay && !isPink(plain[50, 50]))
        #expect(throws: ControlError.missingField(command: "touch-overlay", field: "enabled")) {
            try ControlCommand(ControlRequest(cmd: "touch-overlay"))
        }
    }

    @Test func theConfigKeyTurnsItOn() throws {
        let configuration = try ConfigLoader.parse("[debug]\ntouch_overlay = true\n", path: "flickd.toml")
        #expect(configuration.touchOverlay)
        #expect(!Configuration().touchOverlay)
        #expect(throws: (any Error).self) { try ConfigLoader.parse("[debug]\ntouch_overlay = 1\n", path: "flickd.toml") }
    }
}
