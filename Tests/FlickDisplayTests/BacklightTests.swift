import FlickCore
import Glibc
import Testing
@testable import FlickDisplay

/// `Backlight` against a fake `/sys/class/backlight` in a temporary folder: found by name, by
/// the card it belongs to, or as the only one; dimmed, off, on with the brightness restored; a
/// path that is no backlight refused.
@Suite struct BacklightTests {
    /// A fake backlight `name` under `root`, at `brightness` of `maximum`, its `device` linked to
    /// `device` when given.
    func fake(_ root: String, _ name: String, brightness: Int = 180, maximum: Int = 255, powerSwitch: Bool = true,
              device: String? = nil) {
        let dir = root + "/" + name
        mkdir(dir, 0o755)
        writeBytes(Array("\(maximum)\n".utf8), to: dir + "/max_brightness")
        writeBytes(Array("\(brightness)\n".utf8), to: dir + "/brightness")
        writeBytes(Array("\(brightness)\n".utf8), to: dir + "/actual_brightness")
        if powerSwitch { writeBytes(Array("0\n".utf8), to: dir + "/bl_power") }
        if let device { symlink(device, dir + "/device") }
    }

    func value(_ file: String) -> Int? { Backlight.readNumber(file) }

    @Test func dimOffOnRestoresTheBrightnessFoundAtStart() throws {
        let root = makeTemporaryDirectory()
        fake(root, "panel")
        let b = try #require(try Backlight.find(root: root, named: nil, cardDevice: nil))
        #expect(b.name == "panel" && b.maximum == 255 && b.brightnessAtStart == 180)
        try b.dim(percent: 10)
        #expect(value(root + "/panel/brightness") == 25 && value(root + "/panel/bl_power") == 0)
        try b.off()
        #expect(value(root + "/panel/bl_power") == 4)
        try b.on()
        #expect(value(root + "/panel/brightness") == 180 && value(root + "/panel/bl_power") == 0)
        // A dim of 1 % of a small maximum still lights it.
        fake(root, "tiny", brightness: 5, maximum: 7, powerSwitch: false)
        let tiny = try Backlight(path: root + "/tiny")
        try tiny.dim(percent: 1)
        #expect(value(root + "/tiny/brightness") == 1)
        try tiny.off()
        #expect(value(root + "/tiny/brightness") == 0)
        try tiny.on()
        #expect(value(root + "/tiny/brightness") == 5)
    }

    @Test func theCardsOwnAmongSeveralOrTheNamedOne() throws {
        let root = makeTemporaryDirectory()
        let devices = makeTemporaryDirectory()
        mkdir(devices + "/card0", 0o755)
        mkdir(devices + "/card0/card0-DSI-1", 0o755)
        mkdir(devices + "/other", 0o755)
        fake(root, "acpi_video0", device: devices + "/other")
        fake(root, "dsi_panel", device: devices + "/card0/card0-DSI-1")
        #expect(try Backlight.find(root: root, named: nil, cardDevice: devices + "/card0")?.name == "dsi_panel")
        #expect(throws: BacklightError.ambiguous(root: root, names: ["acpi_video0", "dsi_panel"])) {
            try Backlight.find(root: root, named: nil, cardDevice: nil)
        }
        #expect(try Backlight.find(root: root, named: "acpi_video0", cardDevice: devices + "/card0")?.name == "acpi_video0")
        // None at all: nil, not an error.
        #expect(try Backlight.find(root: makeTemporaryDirectory(), named: nil, cardDevice: nil) == nil)
    }

    @Test func aPathThatIsNoBacklightIsRefused() throws {
        let root = makeTemporaryDirectory()
        mkdir(root + "/notone", 0o755)
        writeBytes(Array("hello\n".utf8), to: root + "/notone/brightness")
        #expect(throws: BacklightError.notABacklight(path: root + "/notone", missing: "max_brightness")) {
            try Backlight.find(root: root, named: "notone", cardDevice: nil)
        }
        #expect(throws: BacklightError.notABacklight(path: root + "/missing", missing: "max_brightness")) {
            try Backlight.find(root: root, named: "missing", cardDevice: nil)
        }
        fake(root, "nobrightness")
        unlink(root + "/nobrightness/brightness")
        #expect(throws: BacklightError.notABacklight(path: root + "/nobrightness", missing: "brightness")) {
            try Backlight(path: root + "/nobrightness")
        }
    }
}
