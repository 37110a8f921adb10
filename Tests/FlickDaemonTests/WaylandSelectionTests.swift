import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Foundation
import Testing

/// `--display wayland[:WxH]` and `display.backend = "wayland"`, and `auto` taking a compositor's
/// window only when the display cannot be had directly and `WAYLAND_DISPLAY` is set.
@Suite struct WaylandSelectionTests {
    @Test func waylandEndpointsParseOrSayWhatIsExpected() throws {
        #expect(try DisplayEndpoint(parsing: "wayland") == .wayland(size: nil))
        #expect(try DisplayEndpoint(parsing: "wayland:1024x600") == .wayland(size: PixelSize(width: 1024, height: 600)))
        #expect(DisplayEndpoint.wayland(size: PixelSize(width: 1024, height: 600)).description == "wayland:1024x600")
        // Absurd sizes are refused on the command line, naming the range.
        for bad in ["wayland:", "wayland:0x0", "wayland:100000x100000", "wayland:800", "wayland:-5x10", "wayland:800x600x2"] {
            do {
                _ = try DisplayEndpoint(parsing: bad)
                Issue.record("\(bad) parsed")
            } catch {
                #expect(error.kind == .usage)
                #expect(error.description.contains(bad == "wayland:" ? "expected auto" : "wayland:WIDTHxHEIGHT with both from 1 to 16384"), "\(error)")
            }
        }
    }

    @Test func theConfigAcceptsWaylandAsABackend() throws {
        let configuration = try ConfigLoader.parse("[display]\nbackend = \"wayland\"\n", path: "flickd.toml")
        #expect(configuration.displayBackend == "wayland")
        #expect(try DisplayEndpoint(parsing: configuration.displayBackend) == .wayland(size: nil))
    }

    /// A socket nothing listens on, in a folder of its own.
    static func deadSocket() throws -> (directory: String, path: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-wl-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return (directory, directory + "/wayland-none")
    }

    @Test func autoTriesTheCompositorOnlyWhenWaylandDisplayIsSetAndSaysWhy() throws {
        let (directory, socket) = try Self.deadSocket()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var opener = DisplayOpener()
        opener.drm.cardPath = "/nonexistent/card0"
        opener.fbdevDevice = "/nonexistent/fb0"
        opener.waylandDisplay = socket
        do {
            _ = try opener.open(.auto)
            Issue.record("auto opened a display with no DRM, no fbdev and no compositor")
        } catch {
            #expect(error.reasons.count == 4, "\(error.reasons)")
            #expect(error.reasons[2].hasPrefix("wayland: wayland: no compositor at \(socket): No such file or directory"), "\(error.reasons)")
            #expect(error.kind == .unavailable)
        }
        opener.waylandDisplay = nil
        do {
            _ = try opener.open(.auto)
            Issue.record("auto opened a display")
        } catch {
            #expect(!error.reasons.contains { $0.hasPrefix("wayland") }, "\(error.reasons)")
        }
    }

    @Test func waylandAskedForWithoutACompositorIsAClearFailure() throws {
        let (directory, socket) = try Self.deadSocket()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            // What `.wayland(size:)` opens, on a socket named here rather than in the environment.
            _ = try DisplayOpener().openWayland(size: nil, socket: socket)
            Issue.record("a window opened with no compositor")
        } catch {
            #expect(error.kind == .unavailable)
            #expect(error.description == "no display: wayland: wayland: no compositor at \(socket): No such file or directory (errno 2); "
                + "expected a running Wayland compositor (WAYLAND_DISPLAY and XDG_RUNTIME_DIR naming its socket)")
        }
    }

    /// A window the compositor does not show: what flickd waits for, and the likely cause as
    /// the compositor's globals suggest it (no seat: a kiosk shell that never activates it).
    @Test func aWindowNotShownIsSaidWithItsLikelyCause() {
        let seatless = WaylandDisplay.notShown(after: .seconds(5), socket: "/run/user/1000/wayland-0", hasSeat: false)
        #expect(seatless.hasPrefix("waiting for the compositor at /run/user/1000/wayland-0 to show the window: no frame of it shown 5 s "
                                   + "after it was configured; likely the compositor offers no seat"), "\(seatless)")
        #expect(seatless.contains("Weston's kiosk-shell") && seatless.hasSuffix("not ready until it is shown (docs/wayland.md)"))
        let seated = WaylandDisplay.notShown(after: .milliseconds(2500), socket: "wayland-1", hasSeat: true)
        #expect(seated.contains("shown 2.5 s after") && seated.contains("likely the window is not on screen (minimised"), "\(seated)")
        #expect(WaylandDisplay.defaultShowWait == .seconds(5))
    }
}
