import FlickCore
import FlickDisplay
@testable import FlickDaemon
import FlickTestSupport
import Foundation
import Testing

/// Display power through the pipeline on a fake sysfs backlight: turned on by a reload, dimmed
/// and off by the idle timers, lit by a touch (swallowed) with the brightness found at start.
@Suite struct PowerBacklightTests {
    /// A sysfs root holding one backlight, `panel`, with `files`; the root and the backlight's folder.
    static func fakeBacklight(files: [(String, String)]) throws -> (root: String, dir: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-bl-\(UUID())").path
        let dir = root + "/panel"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (file, value) in files { try (value + "\n").write(toFile: dir + "/" + file, atomically: false, encoding: .utf8) }
        return (root, dir)
    }

    /// A pipeline whose display power finds the backlight under `root`.
    static func rig(backlightUnder root: String) throws -> PipelineRig {
        let rig = try PipelineRig()
        let backlight = try #require(try Backlight.find(root: root, named: nil, cardDevice: nil))
        rig.pipeline.powerEnvironment = PowerEnvironment(backlight: backlight, zone: CentralEuropeanZone(),
                                                         anchor: WallClockAnchor(instant: .zero, utcNanoseconds: 0))
        return rig
    }

    @Test func aReloadTurnsItOnTheTimersDimAndDarkenATouchRestores() throws {
        let (root, dir) = try Self.fakeBacklight(files: [("max_brightness", "200"), ("brightness", "150"), ("bl_power", "0")])
        defer { try? FileManager.default.removeItem(atPath: root) }
        func read(_ file: String) -> Int? { Backlight.readNumber(dir + "/" + file) }
        let rig = try Self.rig(backlightUnder: root)
        var configuration = Configuration()
        configuration.power.dimAfterSeconds = 1
        configuration.power.offAfterSeconds = 2
        configuration.power.dimBrightness = 10
        try PipelineBuilder.apply(configuration, previous: Configuration(), to: rig.pipeline, at: rig.pipeline.now)
        #expect(rig.pipeline.power?.state == .on && rig.pipeline.power?.way == .backlight)
        rig.settle(seconds: 1.5, expectRest: false)
        #expect(rig.pipeline.power?.state == .dim && read("brightness") == 20 && read("bl_power") == 0)
        rig.settle()
        #expect(rig.pipeline.power?.state == .off && read("bl_power") == 4)
        #expect(rig.pipeline.presenter.isSuspended && rig.output.headless.isActive && rig.pipeline.nextDeadline == nil)
        let taps = rig.outputs.count { if case .gesture = $0.kind { true } else { false } }
        let touches = rig.pipeline.touchCount
        let t = rig.pipeline.now + .seconds(1)
        rig.settle(dragFrames(from: t, at: 100, 100, by: 0, 0, steps: 1), seconds: 1.5, expectRest: false)
        #expect(rig.pipeline.power?.state == .on && read("bl_power") == 0 && read("brightness") == 150)
        #expect(rig.outputs.count { if case .gesture = $0.kind { true } else { false } } == taps)
        // Swallowed, but a finger touched the panel all the same (the fleet's touches count it).
        #expect(rig.pipeline.touchCount == touches + 1)
        #expect(rig.pipeline.power?.lastWake?.touch == t && rig.pipeline.power?.lastWake?.firstLitFrame != nil,
                "\(rig.presented.suffix(3)) \(rig.pipeline.presenter.state) \(rig.notices)")
    }
    /// A backlight that cannot be written (sysfs read-only under the unit's hardening, or no
    /// permission) must not leave a lit panel that says it is off: `auto` falls back to DPMS and
    /// says why.
    @Test func aBacklightThatCannotBeWrittenFallsBackToDPMSWithAuto() throws {
        let (root, dir) = try Self.fakeBacklight(files: [("max_brightness", "200"), ("brightness", "150")])
        defer { try? FileManager.default.removeItem(atPath: root) }
        // `bl_power` a folder: no write reaches it (the tests run as root, so modes would not stop one).
        try FileManager.default.createDirectory(atPath: dir + "/bl_power", withIntermediateDirectories: false)
        let rig = try Self.rig(backlightUnder: root)
        var configuration = Configuration()
        configuration.power.offAfterSeconds = 1
        try PipelineBuilder.apply(configuration, previous: Configuration(), to: rig.pipeline, at: rig.pipeline.now)
        #expect(rig.pipeline.power?.way == .backlight)
        rig.settle()
        #expect(rig.pipeline.power?.state == .off && rig.pipeline.power?.way == .dpms)
        #expect(!rig.output.headless.isActive && rig.pipeline.presenter.isSuspended)
        #expect(rig.notices.contains { "\($0)".contains("backlight off refused") && "\($0)".contains("DPMS from now on") },
                "\(rig.notices)")
    }
}
