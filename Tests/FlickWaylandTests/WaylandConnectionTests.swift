import FlickCore
import Foundation
import Testing
@testable import FlickWayland

/// The connection's refusals, decided on what the registry recorded (no fake compositor), and a
/// connection to a socket nothing listens on.
@Suite struct WaylandConnectionTests {
    static let socket = "/run/user/1000/wayland-0"

    /// Part of what Debian 12's Weston 10 (headless, pixman, kiosk shell) announces, with its
    /// names and versions as `weston-info` lists them.
    static let weston: [WaylandGlobal] = [
        WaylandGlobal(name: 1, interface: "wl_compositor", version: 4),
        WaylandGlobal(name: 2, interface: "wl_subcompositor", version: 1),
        WaylandGlobal(name: 3, interface: "wp_viewporter", version: 1),
        WaylandGlobal(name: 5, interface: "wp_presentation", version: 1),
        WaylandGlobal(name: 10, interface: "wl_shm", version: 1),
        WaylandGlobal(name: 13, interface: "wl_output", version: 3),
        WaylandGlobal(name: 14, interface: "xdg_wm_base", version: 3),
    ]

    @Test func aCompositorWithEverythingMeetsTheOutputsNeeds() {
        #expect(WaylandRequirements.output.unmet(in: Self.weston, socket: Self.socket) == nil)
    }

    @Test func aCompositorWithoutXdgShellIsRefusedNamingIt() throws {
        let globals = Self.weston.filter { $0.interface != "xdg_wm_base" }
        let error = try #require(WaylandRequirements.output.unmet(in: globals, socket: Self.socket))
        #expect(error == .missingGlobal(interface: "xdg_wm_base", socket: Self.socket))
        #expect(error.description.contains("does not offer xdg_wm_base"))
        #expect(error.kind == .unavailable)
    }

    @Test func aCompositorWithoutSharedMemoryIsRefusedNamingIt() throws {
        let globals = Self.weston.filter { $0.interface != "wl_shm" }
        #expect(WaylandRequirements.output.unmet(in: globals, socket: Self.socket) == .missingGlobal(interface: "wl_shm", socket: Self.socket))
    }

    @Test func aCompositorTooOldForDamageInBufferCoordinatesIsRefused() {
        var globals = Self.weston
        globals[0].version = 3
        #expect(WaylandRequirements.output.unmet(in: globals, socket: Self.socket) == .globalTooOld(interface: "wl_compositor", version: 3, needed: 4))
    }

    @Test func theHighestVersionOfAnInterfaceAnnouncedTwiceCounts() {
        var globals = Self.weston
        globals[0].version = 3
        globals.append(WaylandGlobal(name: 20, interface: "wl_compositor", version: 4))
        #expect(WaylandRequirements.output.unmet(in: globals, socket: Self.socket) == nil)
    }

    @Test func theSocketIsNamedAsLibwaylandResolvesIt() {
        let environment = ["WAYLAND_DISPLAY": "wayland-1", "XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(WaylandConnection.socketPath(name: nil, environment: environment) == "/run/user/1000/wayland-1")
        #expect(WaylandConnection.socketPath(name: "w9", environment: environment) == "/run/user/1000/w9")
        #expect(WaylandConnection.socketPath(name: "/tmp/w", environment: environment) == "/tmp/w")
        #expect(WaylandConnection.socketPath(name: nil, environment: ["XDG_RUNTIME_DIR": "/r"]) == "/r/wayland-0")
        #expect(WaylandConnection.socketPath(name: nil, environment: [:]).contains("XDG_RUNTIME_DIR is not set"))
    }

    @Test func noCompositorOnTheSocketIsAClearError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-wayland-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("wayland-none").path
        do {
            _ = try WaylandConnection(name: path)
            Issue.record("connected to \(path), where nothing listens")
        } catch {
            guard case let .noCompositor(socket, errno) = error else {
                Issue.record("expected noCompositor, got \(error)")
                return
            }
            #expect(socket == path)
            #expect(errno == ENOENT)
            #expect(error.description.hasPrefix("wayland: no compositor at \(path): No such file or directory"))
            #expect(error.kind == .unavailable)
        }
    }
}
