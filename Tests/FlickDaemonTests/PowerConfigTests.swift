import FlickCore
@testable import FlickDaemon
import Testing

/// `[power]`: read into the configuration; bad windows, brightness and methods are errors with
/// the file, the line and the key.
@Suite struct PowerConfigTests {
    @Test func theSectionIsRead() throws {
        let c = try ConfigLoader.parse("""
            [power]
            dim_after_s = 30
            dim_brightness = 15
            off_after_s = 120
            on_hours = ["07:30-22:00", "22:30-23:00"]
            wake_outside_hours = false
            method = "backlight"
            backlight = "intel_backlight"
            wake_guard_ms = 500
            """, path: "f")
        #expect(c.power.dimAfterSeconds == 30 && c.power.dimBrightness == 15 && c.power.offAfterSeconds == 120)
        #expect(c.power.onHours.map(\.description) == ["07:30-22:00", "22:30-23:00"])
        #expect(!c.power.wakeOutsideHours && c.power.method == .backlight && c.power.backlight == "intel_backlight")
        #expect(c.power.wakeGuard == .milliseconds(500))
        // The defaults: power management off.
        #expect(!Configuration().power.isActive)
    }

    @Test func badValuesNameTheLineAndKey() throws {
        let overlap = try #require(configError("[power]\noff_after_s = 60\non_hours = [\"07:00-09:00\", \"08:30-10:00\"]\n"))
        #expect(overlap.line == 3 && overlap.key == "power.on_hours" && overlap.path == "flickd.toml")
        #expect(overlap.message.contains("\"07:00-09:00\" and \"08:30-10:00\" overlap"), "\(overlap.message)")
        let unparsable = try #require(configError("[power]\non_hours = [\"7:30-22:00\"]\n"))
        #expect(unparsable.line == 2 && unparsable.message.contains("\"7:30-22:00\" is not a window"), "\(unparsable.message)")
        let brightness = try #require(configError("[power]\n\ndim_brightness = 101\n"))
        #expect(brightness.line == 3 && brightness.key == "power.dim_brightness" && brightness.found == "101")
        #expect(configError("[power]\nmethod = \"sleep\"\n")?.key == "power.method")
        #expect(configError("[power]\noff_after_s = -5\n")?.key == "power.off_after_s")
    }

    /// The panel dims before it goes off: a dim timer at or past the off timer is refused at
    /// the key written later, with the other key's value in what was expected.
    @Test func aDimTimerAtOrPastTheOffTimerIsAnError() throws {
        let dimLater = try #require(configError("[power]\noff_after_s = 6\ndim_after_s = 60\n"))
        #expect(dimLater.description == "flickd.toml:3: power.dim_after_s: the panel dims before it goes off; "
                + "expected seconds less than power.off_after_s (6), or 0 (never dims), got 60", "\(dimLater)")
        let offLater = try #require(configError("[power]\ndim_after_s = 60\n\noff_after_s = 6\n"))
        #expect(offLater.line == 4 && offLater.key == "power.off_after_s" && offLater.found == "6", "\(offLater)")
        #expect(offLater.expected == "seconds more than power.dim_after_s (60), or 0 (never off by idle)")
        let equal = try #require(configError("[power]\ndim_after_s = 30.5\noff_after_s = 30.5\n"))
        #expect(equal.key == "power.off_after_s" && equal.found == "30.5", "\(equal)")
        // Either timer off (0) leaves nothing to contradict; dimming first is the point.
        for text in ["dim_after_s = 60\noff_after_s = 0", "dim_after_s = 0\noff_after_s = 6", "dim_after_s = 30\noff_after_s = 120"] {
            #expect(configError("[power]\n" + text + "\n") == nil, "\(text)")
        }
    }
}
