import FlickControl
import FlickCore
import Foundation
import Testing

/// The man pages `scripts/install.sh` installs (made by `scripts/man.sh`): flickd(8) and
/// flickctl(1) carry every subcommand and option the binaries have and the exit statuses they
/// give; flickd.toml(5) is what the generator makes from the current config/flickd.toml; man
/// reads all three without a warning.
@Suite struct ManPageTests {
    /// The three pages, installed once into a temporary prefix and read back ungzipped.
    static let pages: Result<[String: String], any Error> = Result {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try UnitFileTests.install(into: dir)
        var pages: [String: String] = [:]
        for (section, name) in [("man8", "flickd.8"), ("man1", "flickctl.1"), ("man5", "flickd.toml.5")] {
            let (status, text) = try UnitFileTests.run("/bin/gzip", ["-dc", "\(dir)/usr/share/man/\(section)/\(name).gz"])
            guard status == 0 else { throw TestFailure("gzip -dc \(name): \(text)") }
            pages[name] = text
        }
        return pages
    }

    static func page(_ name: String) throws -> String { try #require(try pages.get()[name]) }

    /// Every subcommand and long option in a binary's own description of itself
    /// (`--experimental-dump-help`, what generate-manual reads).
    static func names(of binary: String) throws -> (commands: Set<String>, options: Set<String>) {
        let (status, out, err) = try runBuilt(binary, ["--experimental-dump-help"])
        #expect(status == 0, "\(err)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        var commands: Set<String> = [], options: Set<String> = []
        func walk(_ command: [String: Any]) {
            if let name = command["commandName"] as? String { commands.insert(name) }
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["shouldDisplay"] as? Bool != false {
                for name in argument["names"] as? [[String: Any]] ?? [] where name["kind"] as? String == "long" {
                    if let long = name["name"] as? String { options.insert(long) }
                }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { walk(sub) }
        }
        walk(try #require(root["command"] as? [String: Any]))
        return (commands, options)
    }

    /// The statuses a page's EXIT STATUS section lists (`.It N`).
    static func exitStatuses(_ page: String) throws -> Set<Int32> {
        let parts = page.components(separatedBy: ".Sh EXIT STATUS\n")
        #expect(parts.count == 2, "one EXIT STATUS section")
        let section = try #require(parts.last?.components(separatedBy: "\n.Sh ").first)
        return Set(section.split(separator: "\n").compactMap { $0.hasPrefix(".It ") ? Int32($0.dropFirst(4)) : nil })
    }

    @Test(arguments: [("flickd", "flickd.8"), ("flickctl", "flickctl.1")])
    func theCommandPagesHaveEveryCommandAndOption(binary: String, page: String) throws {
        let text = try Self.page(page)
        let (commands, options) = try Self.names(of: binary)
        #expect(commands.count > 3 && options.count > 3)
        for command in commands.subtracting([binary]) {
            #expect(text.contains(".It Em \(command)\n"), "\(page) lacks the subcommand \(command)")
        }
        for option in options {
            #expect(text.contains("Fl -\(option)"), "\(page) lacks --\(option)")
        }
        // generate-manual drops what is not ASCII; scripts/man.sh spells the arrows out first.
        #expect(text.contains("evdev -> gestures") || binary == "flickctl")
    }

    @Test func flickdsPageListsEveryExitStatus() throws {
        let kinds = Set((0...255).compactMap { ErrorKind(rawValue: $0)?.rawValue })
        #expect(kinds == [64, 65, 66, 69, 70, 74, 78])
        #expect(try Self.exitStatuses(try Self.page("flickd.8")) == kinds.union([0]))
    }

    @Test func flickctlsPageListsTheStatusesItGives() throws {
        // A refusal or a snapshot file it cannot open (data), its usage, and each way the socket fails.
        let failures: [ControlClientError] = [.connect(path: "", reason: ""), .io(""), .badReply(""), .closed]
        let statuses = Set(failures.map(\.kind.rawValue)).union([0, ErrorKind.usage.rawValue, ControlError.failed("").kind.rawValue])
        #expect(try Self.exitStatuses(try Self.page("flickctl.1")) == statuses)
    }

    @Test func theConfigPageIsMadeFromTheConfigFile() throws {
        let text = try Self.page("flickd.toml.5")
        let date = try #require(text.split(separator: "\n").first { $0.hasPrefix(".Dd ") }).dropFirst(4)
        let (status, made) = try UnitFileTests.run("/usr/bin/awk", ["-v", "date=\(date)", "-f",
            UnitFileTests.root.appendingPathComponent("scripts/config-man.awk").path,
            UnitFileTests.root.appendingPathComponent("config/flickd.toml").path])
        #expect(status == 0)
        #expect(made == text)
    }

    /// What lintian runs on every page (`groff-message`): no warning at all.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/man"), "man is not installed"),
          arguments: ["flickd.8", "flickctl.1", "flickd.toml.5"])
    func manReadsThePageWithoutAWarning(page: String) throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.page(page).write(toFile: dir + "/" + page, atomically: true, encoding: .utf8)
        let (status, output) = try UnitFileTests.run("/bin/sh", ["-c", "man --warnings -E UTF-8 -l -Tutf8 -Z \"$1\" 2>&1 >/dev/null", "sh",
                                                                 dir + "/" + page],
                                                     environment: ["LC_ALL": "C.UTF-8", "MANROFFSEQ": "", "MANWIDTH": "80"])
        #expect(status == 0 && output.isEmpty, "\(page): \(output)")
    }
}
