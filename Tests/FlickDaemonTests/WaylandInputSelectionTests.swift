import FlickCore
@testable import FlickDaemon
import FlickDisplay
import FlickTestSupport
import FlickWayland
import Foundation
import Testing

/// Under a compositor flickd's input is the compositor's seat: no `/dev/input` device is opened,
/// whatever `input.device` says. A real Weston (headless, run as an ordinary user: Weston
/// refuses root) is the compositor; its headless backend has no seat, which the seat says.
@Suite(.serialized) struct WaylandInputSelectionTests {
    @Test func underACompositorTheSeatIsTheInputAndNoDeviceIsOpened() throws {
        let weston = try HeadlessWeston()
        defer { weston.stop() }
        let connection = try WaylandConnection(name: weston.socket)
        let output = try WaylandOutput(connection: connection, requested: PixelSize(width: 640, height: 400))
        defer { output.close() }
        final class Notes { var lines: [String] = [] }
        let notes = Notes()
        let input = try Daemon.chooseInput(endpoint: .device("/dev/input/event-that-does-not-exist"), configuration: Configuration(),
                                           output: output, logicalSize: Size(width: 640, height: 400), at: .zero, log: { notes.lines.append($0) })
        guard case let .source(source, _) = input else {
            Issue.record("expected the compositor's seat, got \(input)")
            return
        }
        #expect(source is WaylandSeat)
        #expect(source.fileDescriptors.map(ObjectIdentifier.init) == [ObjectIdentifier(connection.descriptor)])
        #expect(notes.lines.contains { $0.contains("its seat is the input") })
        #expect(notes.lines.contains { $0.contains("offers no wl_seat") })
        // Reading the compositor's socket gives no touches from a seat that has no devices.
        #expect(source.dispatch(now: .zero).isEmpty)
    }

    @Test func withoutACompositorTheDevicesAreTheInput() throws {
        let input = try Daemon.chooseInput(endpoint: .auto, configuration: Configuration(),
                                           output: try #require(HeadlessOutput(size: PixelSize(width: 640, height: 400))),
                                           logicalSize: Size(width: 640, height: 400), at: .zero, log: { _ in })
        guard case .devices = input else {
            Issue.record("expected the touchscreens, got \(input)")
            return
        }
    }
}

/// Weston 10's headless backend on a socket of its own, as an ordinary user when the tests run
/// as root (Weston refuses root), stopped by `stop()`.
final class HeadlessWeston {
    let directory: URL
    let socket: String
    private let process = Process()

    init() throws {
        directory = URL(fileURLWithPath: "/tmp/flickd-weston-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let root = getuid() == 0
        if root { _ = chown(directory.path, 65534, 65534) }
        chmod(directory.path, 0o700)
        socket = directory.appendingPathComponent("wayland-test").path
        var arguments = ["weston", "--backend=headless-backend.so", "--use-pixman", "--shell=kiosk-shell.so", "--idle-time=0",
                         "--socket=wayland-test"]
        if root { arguments = ["runuser", "-u", "nobody", "--"] + arguments }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.path
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        environment.removeValue(forKey: "DISPLAY")
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try waitUntil("weston's socket at \(socket)") {
            guard process.isRunning else { throw WestonFailed(status: process.terminationStatus) }
            return FileManager.default.fileExists(atPath: socket + ".lock") && FileManager.default.fileExists(atPath: socket)
        }
    }

    struct WestonFailed: Error { var status: Int32 }

    func stop() {
        if process.isRunning {
            // runuser passes SIGTERM on to weston.
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
