import FlickControl
import Foundation
import Glibc
import Testing

/// What `flickctl` says to a person at its edges: a wrong command line answered with that
/// subcommand's own usage and what is missing, a relative path to `load` taken from where the
/// person stands, a reload that says what it applied, `scroll-to-top --no-animate`.
@Suite struct FlickctlUsageTests {
    /// Each subcommand with a wrong or missing argument, and what the error must say.
    static let wrong: [([String], String)] = [
        (["set-offset", "1"], "expected 2 numbers (<x> <y>), got 1: 1"),
        (["set-offset"], "missing <x> <y>: expected 2 numbers"),
        (["set-offset", "x", "1"], "<x>: 'x' is not a number"),
        (["set-offset", "1", "2", "3"], "expected 2 numbers (<x> <y>), got 3: 1 2 3"),
        (["scroll-rect-to-visible", "1", "2"], "expected 4 numbers (<x> <y> <width> <height>), got 2: 1 2"),
        (["scroll-rect-to-visible", "0", "0", "-1", "1"], "the width and height must be at least 0"),
        (["zoom-to-rect"], "missing <x> <y> <width> <height>: expected 4 numbers"),
        (["zoom-to-rect", "0", "0", "nan", "1"], "<width>: 'nan' is not a finite number"),
        (["set-zoom"], "missing <scale>: expected 1 number"),
        (["set-zoom", "0"], "<scale>: the scale must be greater than 0"),
        (["page"], "missing <number>: the page, counted from 0"),
        (["page", "1", "2"], "expected one page number (<number>), got 2: 1 2"),
        (["page", "1.5"], "<number>: '1.5' is not a whole number"),
        (["page", "-1"], "<number>: pages are counted from 0 (the first page is 0), so -1 is none"),
        (["display"], "Missing expected argument '<state>'"),
        (["display", "bright"], "display takes on, off, dim or status, not 'bright'"),
        (["touch-overlay", "maybe"], "Say on or off."),
        (["scroll-enabled"], "Missing expected argument '<state>'"),
        (["scrolls-to-top", "yes"], "Say on or off."),
        (["delays-content-touches", "1"], "Say on or off."),
        (["can-cancel-content-touches", "true"], "Say on or off."),
        (["load"], "Missing expected argument '<path>'"),
        (["snapshot"], "Missing expected argument '<file>'"),
        (["subscribe", "--count", "0"], "--count takes a number of events of at least 1, not 0"),
        (["monitor", "--count", "many"], "The value 'many' is invalid for '--count <count>'"),
        (["status", "--wait", "1e9"], "--wait takes seconds from 0 to 86400"),
        (["scroll-to-top", "0"], "Unexpected argument '0'"),
        (["stop", "now"], "Unexpected argument 'now'"),
        (["reload", "flickd.toml"], "Unexpected argument 'flickd.toml'"),
        (["claim"], "Missing expected argument '<contact>'"),
        (["claim", "x"], "The value 'x' is invalid for '<contact>'"),
        (["claim", "1", "2"], "Unexpected argument '2'"),
    ]

    /// Nothing is sent (no daemon listens), the status is EX_USAGE, and the usage printed is the
    /// subcommand's, not flickctl's list of subcommands.
    @Test func aWrongCommandLineIsAnsweredWithItsSubcommandsUsage() throws {
        let socket = "--socket=/nonexistent/flickd-usage-test.sock"
        for (arguments, message) in Self.wrong {
            let run = try runBuilt("flickctl", [arguments[0], socket] + arguments.dropFirst())
            #expect(run.status == 64, "\(arguments): \(run.status) \(run.err)")
            #expect(run.err.contains("Error: \(message)"), "\(arguments): \(run.err)")
            #expect(run.err.contains("Usage: flickctl \(arguments[0]) ") && !run.err.contains("flickctl <subcommand>"),
                    "\(arguments): \(run.err)")
        }
        // Every subcommand is covered, and answers an unknown option with its own usage too.
        let commands = try ManPageTests.names(of: "flickctl").commands.subtracting(["flickctl", "help"])
        #expect(commands.subtracting(Self.wrong.map { $0.0[0] }).sorted() == ["flash-indicators", "provider"])
        for command in commands {
            let run = try runBuilt("flickctl", [command, socket, "--bogus"])
            #expect(run.status == 64 && run.err.contains("Usage: flickctl \(command) "), "\(command): \(run.err)")
        }
    }

    @Test func loadTakesARelativePathFromTheCallersFolderAndReloadSaysWhatItApplied() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let allowed = dir + "/allowed"
        try FileManager.default.createDirectory(atPath: allowed + "/menu", withIntermediateDirectories: true)
        try ControlTests.writePattern(to: allowed + "/menu/small.png", width: 400, height: 300)
        try "not a picture".write(toFile: allowed + "/notes.txt", atomically: true, encoding: .utf8)
        func config(_ rate: String) -> String {
            FlickdProcess.config(directory: dir, scroll: "deceleration_rate = \"\(rate)\"",
                                 extra: "[content]\nload_directories = [\"\(allowed)\"]\n")
        }
        try config("normal").write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        let socket = "--socket=" + dir + "/control.sock"

        // Relative to the caller's folder, whatever the daemon's is.
        let loaded = try runBuilt("flickctl", ["load", socket, "small.png"], in: allowed + "/menu")
        #expect(loaded.status == 0, "\(loaded.err)")
        let shown = try daemon.client().call(ControlRequest(cmd: "status")).status?.content
        let real = try #require(realpath(allowed + "/menu/small.png", nil))
        defer { free(real) }
        #expect(shown == String(cString: real))
        // `..` too; outside the allowed folders it is refused as such.
        let outside = try runBuilt("flickctl", ["load", socket, "../flickd.toml"], in: allowed)
        #expect(outside.status == 65 && outside.err.contains("outside the allowed folders"), "\(outside.err)")
        // A file that is no content hears every kind there is.
        let notes = try runBuilt("flickctl", ["load", socket, "notes.txt"], in: allowed)
        #expect(notes.status == 65, "\(notes.err)")
        for kind in ["PNG, JPEG or WebP image", "a PDF or an SVG", "(.pdf, .svg)", "Deep Zoom descriptor (.dzi, .xml)", "a folder of pages"] {
            #expect(notes.err.contains(kind), "\(kind): \(notes.err)")
        }
        // The daemon itself still refuses a relative path, and says why.
        let relative = try daemon.client().call(ControlRequest(cmd: "load", path: "menu/small.png"))
        #expect(relative.ok == false && relative.error?.contains("the daemon cannot know the client's folder") == true, "\(relative)")

        // A reload says which file it read and each key it changed, as the journal does.
        try config("fast").write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let reload = try runBuilt("flickctl", ["reload", socket])
        #expect(reload.status == 0, "\(reload.err)")
        #expect(reload.out == "reloaded \(dir)/flickd.toml: 1 key changed\n  scroll.deceleration_rate: \"normal\" → \"fast\"\n",
                "\(reload.out)")
        let again = try runBuilt("flickctl", ["reload", socket])
        #expect(again.status == 0 && again.out == "reloaded \(dir)/flickd.toml: no key changed\n", "\(again.out)")
        let json = try runBuilt("flickctl", ["reload", socket, "--json"])
        let reply = try JSONDecoder().decode(ControlMessage.self, from: Data(json.out.utf8))
        #expect(reply.ok == true && reply.config == dir + "/flickd.toml" && reply.changes == [], "\(json.out)")
        #expect(try daemon.terminate() == 0)
    }

    /// `--no-animate` jumps: the view is at the top as the reply comes, and a subscriber hears one
    /// didScroll and didScrollToTop, no animation's end.
    @Test func scrollToTopWithoutAnimationJumps() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FlickdProcess.config(directory: dir).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        let socket = "--socket=" + dir + "/control.sock"
        let client = try daemon.client()
        let subscriber = try EventCollector(daemon)
        #expect(try client.call(ControlRequest(cmd: "set-offset", x: 40, y: 900, animated: false)).ok == true)
        let before = try subscriber.waitFor("didScroll", daemon: daemon).count
        let run = try runBuilt("flickctl", ["scroll-to-top", socket, "--no-animate", "--json"])
        #expect(run.status == 0, "\(run.err)")
        let reply = try JSONDecoder().decode(ControlMessage.self, from: Data(run.out.utf8))
        #expect(reply.offset == [40, 0], "\(run.out)")
        #expect(try client.call(ControlRequest(cmd: "status")).status?.offset == [40, 0])
        let events = try subscriber.waitFor("didScrollToTop", daemon: daemon)
        #expect(events.dropFirst(before).map { $0.type ?? "?" }.filter { $0 != "state" } == ["didScroll", "didScrollToTop"],
                "\(events)")
        #expect(try daemon.terminate() == 0)
    }
}
