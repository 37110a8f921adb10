import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Foundation
import Testing

/// A DRM card whose monitor is off is waited for (issue 35): never passed over for its own fbdev
/// emulation, never a failure, never the headless fallback; a real fbdev driver is still taken
/// where there is no card.
@Suite struct DisplayOpenerTests {
    static let off = ConnectorSummary(id: ConnectorID(rawValue: 31), name: "Virtual-1", isConnected: false, modes: [])
    static let hdmiOff = ConnectorSummary(id: ConnectorID(rawValue: 32), name: "HDMI-A-1", isConnected: false, modes: [])
    static let card = DisplayDevices.Card(path: "/dev/dri/card0", connectors: [off, hdmiOff])

    func opener(cards: [DisplayDevices.Card], emulation: Bool) -> DisplayOpener {
        var opener = DisplayOpener()
        opener.fbdevDevice = "/nonexistent/fb0"
        opener.devices = DisplayDevices(cards: cards, fbdevIsDRMEmulation: emulation)
        return opener
    }

    @Test(arguments: [DisplayOpener.Fallback.fail, .headless])
    func aCardWithNoMonitorIsWaitedForNotPassedOverForItsEmulation(fallback: DisplayOpener.Fallback) throws {
        var opener = opener(cards: [Self.card], emulation: true)
        opener.fallback = fallback
        for endpoint in [DisplayEndpoint.auto, .drm(card: nil)] {
            let opened = try opener.open(endpoint)
            #expect(opened.waitingFor == "/dev/dri/card0")
            #expect(opened.output.isConnected == false && !opened.isFallback)
            #expect(opened.output is DisconnectedOutput)
            #expect(opened.description == "drm /dev/dri/card0: waiting for a monitor to be connected")
            #expect(opened.output.size == opener.headlessSize)
        }
    }

    @Test func aConfiguredModeSizesTheViewWhileWaiting() throws {
        var opener = opener(cards: [Self.card], emulation: true)
        opener.drm.mode = ModeRequest(width: 1024, height: 768)
        #expect(try opener.open(.auto).output.size == PixelSize(width: 1024, height: 768))
    }

    @Test func aPinnedConnectorThatIsOffIsWaitedFor() throws {
        var opener = opener(cards: [Self.card], emulation: false)
        opener.drm.connectorName = "HDMI-A-1"
        let opened = try opener.open(.auto)
        #expect(opened.description == "drm /dev/dri/card0: waiting for connector HDMI-A-1 to be connected")
        #expect(opened.warnings.isEmpty)
    }

    @Test func aPinnedNameNoConnectorHasIsAWarningNamingThoseThere() throws {
        var opener = opener(cards: [Self.card], emulation: true)
        opener.drm.connectorName = "DP-7"
        let opened = try opener.open(.auto)
        #expect(opened.warnings == ["display.connector = \"DP-7\" names no connector (there are Virtual-1, HDMI-A-1): the first connected one is taken"])
        #expect(opened.description == "drm /dev/dri/card0: waiting for a monitor to be connected")
    }

    @Test func withNoCardARealFbdevIsStillTried() throws {
        let opener = opener(cards: [], emulation: false)
        #expect(throws: DisplayOpener.Failure.self) { try opener.open(.auto) }
        do {
            _ = try opener.open(.auto)
        } catch {
            #expect(error.reasons.contains { $0.hasPrefix("fbdev:") && $0.contains("/nonexistent/fb0") })
            #expect(!error.reasons.contains { $0.contains("emulation") })
        }
    }

    @Test func theKernelsNameTellsAnEmulationFromARealFbdevDriver() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-sysfs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (node, name) in [("fb0", "vkmsdrmfb\n"), ("fb1", "mxsfb\n"), ("fb2", "virtio_gpudrmfb\n")] {
            try FileManager.default.createDirectory(atPath: root + "/class/graphics/" + node, withIntermediateDirectories: true)
            try Data(name.utf8).write(to: URL(fileURLWithPath: root + "/class/graphics/" + node + "/name"))
        }
        #expect(DisplayDevices.isDRMEmulation(fbdev: "/dev/fb0", sysfs: root))
        #expect(!DisplayDevices.isDRMEmulation(fbdev: "/dev/fb1", sysfs: root))
        #expect(DisplayDevices.isDRMEmulation(fbdev: "/dev/fb2", sysfs: root))
        #expect(!DisplayDevices.isDRMEmulation(fbdev: "/dev/fb3", sysfs: root))
    }
}
