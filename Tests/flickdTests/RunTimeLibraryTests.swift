import Foundation
import Testing

/// The C libraries the README tells an integrator to install on a board, and the ones
/// `scripts/deb-check.sh` requires of the package's Depends, are those the built binaries link:
/// each library a binary needs (`readelf -d`) is looked up in the package database (`dpkg -S`).
@Suite struct RunTimeLibraryTests {
    static let binaries = ["flickd", "flickctl", "flickd-render"]

    /// The Swift runtime (static in the release build), and what every Debian system has.
    static func alwaysThere(_ library: String, package: String?) -> Bool {
        let swift = ["libswift", "libFoundation", "libdispatch", "libBlocksRuntime"]
        return swift.contains { library.hasPrefix($0) } || ["libc6", "libgcc-s1"].contains(package ?? "")
    }

    /// The sonames `binary` needs.
    static func needed(_ binary: String) throws -> [String] {
        let path = URL(fileURLWithPath: FlickdProcess.binary).deletingLastPathComponent().appendingPathComponent(binary).path
        let (status, out) = try UnitFileTests.run("/usr/bin/readelf", ["-d", "--wide", path])
        #expect(status == 0, "\(out)")
        // `0x… (NEEDED)  Shared library: [libdrm.so.2]`
        return out.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            line.split(separator: "[").last?.split(separator: "]").first.map(String.init)
        }
    }

    /// The package holding `library` as the dynamic linker finds it, without its architecture.
    static func package(of library: String, cache: String) throws -> String? {
        // `\tlibdrm.so.2 (libc6,x86-64) => /lib/x86_64-linux-gnu/libdrm.so.2`
        guard let line = cache.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(library + " ") }),
              let found = line.components(separatedBy: " => ").last else { return nil }
        // With /lib merged into /usr/lib, the database may know either spelling of the path.
        let resolved = URL(fileURLWithPath: found).resolvingSymlinksInPath().path
        for path in [found, resolved, "/usr" + found, resolved.replacingOccurrences(of: "/usr/lib/", with: "/lib/")] {
            let (status, out) = try UnitFileTests.run("/usr/bin/dpkg", ["-S", path])
            if status == 0, let name = out.split(separator: ":").first { return String(name) }
        }
        return nil
    }

    /// The packages in the README's back-quoted lists of libraries for a board.
    static func readmePackages() throws -> Set<String> {
        let text = try String(contentsOf: UnitFileTests.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "a board needs only the\nC libraries").last?
            .components(separatedBy: "\n## ").first)
        let lists = section.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        return Set(lists.filter { $0.hasPrefix("lib") }.flatMap { $0.split(separator: " ").map(String.init) })
    }

    @Test func theReadmeAndThePackageCheckNameEveryLibraryTheBinariesLink() throws {
        let (status, cache) = try UnitFileTests.run("/usr/sbin/ldconfig", ["-p"])
        #expect(status == 0)
        var packages: Set<String> = []
        for binary in Self.binaries {
            for library in try Self.needed(binary) {
                let package = try Self.package(of: library, cache: cache)
                if Self.alwaysThere(library, package: package) { continue }
                let known = try #require(package, "\(binary) needs \(library), which no package holds")
                packages.insert(known)
            }
        }
        // flickd-render's own: the document libraries are among them.
        #expect(packages.isSuperset(of: ["libpoppler-glib8", "librsvg2-2", "libcairo2", "libevdev2"]), "\(packages.sorted())")
        let readme = try Self.readmePackages()
        #expect(packages.subtracting(readme).isEmpty, "the README's lists lack \(packages.subtracting(readme).sorted())")
        let check = try String(contentsOf: UnitFileTests.root.appendingPathComponent("scripts/deb-check.sh"), encoding: .utf8)
        let line = try #require(check.components(separatedBy: "for lib in ").dropFirst().first?.components(separatedBy: "; do").first)
        let checked = Set(line.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\\" }).map(String.init))
        #expect(packages.subtracting(checked).isEmpty, "scripts/deb-check.sh does not require \(packages.subtracting(checked).sorted())")
    }
}
