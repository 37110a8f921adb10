import FlickControl
import FlickInput
import Foundation
import Testing

/// `flickctl claim` against the real daemon: a finger resting on the panel, claimed by the id
/// its content-touch events carry, is the content's (exit 0, nothing printed); an id no touch
/// has is refused with why (exit 65), and the daemon goes on.
@Suite struct FlickctlClaimTests {
    @Test func aHeldTouchIsClaimedByItsIdAndAnUnknownOneIsRefused() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FlickdProcess.config(directory: dir).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        // Resting a minute, never quite still: it is down whenever the claim comes (the daemon is
        // stopped first), and its moves reach a subscriber however late it subscribed.
        var script = TouchScript(description: Recordings.panel)
        script.idle(0)
        script.hold(at: 400, 240, seconds: 60, t: 2.5, jitter: 1)
        try script.text.write(toFile: dir + "/hold.event", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--input", "evemu:\(dir)/hold.event"])
        try daemon.waitUntilReady()
        let subscriber = try EventCollector(daemon)
        let socket = ["--socket", dir + "/control.sock"]

        let unknown = try runBuilt("flickctl", ["claim", "999"] + socket)
        #expect(unknown.status == 65 && unknown.out.isEmpty, "\(unknown)")
        #expect(unknown.err == "flickctl: 'claim': contact 999: no touch of the content's with this id is down "
                + "(it lifted, or the content never heard of it)\n", "\(unknown.err)")

        let contact = try #require(try subscriber.waitFor("contentTouchMove", daemon: daemon).last?.contact)
        let claimed = try runBuilt("flickctl", ["claim", "\(contact)"] + socket)
        #expect(claimed.status == 0 && claimed.out.isEmpty && claimed.err.isEmpty, "\(claimed)")
        let json = try runBuilt("flickctl", ["claim", "\(contact)", "--json"] + socket)
        #expect(json.status == 0 && json.out == "{\"ok\":true}\n", "\(json)")
        #expect(try daemon.terminate() == 0)
    }
}
