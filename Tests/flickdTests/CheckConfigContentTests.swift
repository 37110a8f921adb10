import FlickDisplay
import FlickTestSupport
import Foundation
import Testing

/// `flickd check-config` looks at the content too: missing or unreadable fails with EX_CONFIG
/// naming the file, line and key; present, it says what showing it will take.
@Suite struct CheckConfigContentTests {
    @Test func aMissingContentPathFailsWithTheKeyAndItsLine() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "# kiosk\n[content]\npath = \"\(dir)/gone.png\"\n".write(toFile: dir + "/c.toml", atomically: true, encoding: .utf8)
        let run = try runBuilt("flickd", ["check-config", dir + "/c.toml", "--user", FlickdProcess.user])
        #expect(run.status == 78)
        #expect(run.err.hasPrefix("flickd: \(dir)/c.toml:3: content.path: \(dir)/gone.png: no such file or directory"), "\(run.err)")
    }

    /// The size it says is the pyramid `flickd pyramid` then writes, within a tenth (on disk,
    /// as the cache's limit counts it).
    @Test func aBigImageIsSaidToNeedAPyramidAndAnEmptyPathThePlaceholder() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let image = try #require(PixelBuffer(width: 1300, height: 900))
        for y in 0..<900 {
            for x in 0..<1300 { image[x, y] = 0xFF00_0000 | UInt32((x * 7 ^ y * 13) & 0xFF) << 8 | UInt32(x * 255 / 1300) }
        }
        try PNGCodec.write(image, to: dir + "/big.png")
        try "[content]\npath = \"\(dir)/big.png\"\npixel_budget = 65536\ncache_directory = \"\(dir)/cache\"\n"
            .write(toFile: dir + "/c.toml", atomically: true, encoding: .utf8)
        let run = try runBuilt("flickd", ["check-config", dir + "/c.toml", "--user", FlickdProcess.user])
        #expect(run.status == 0, "\(run.err)")
        let said = "content: 1300x900 PNG: over content.pixel_budget, a pyramid will be built into \(dir)/cache once, ~"
        #expect(run.out.contains(said), "\(run.out)")
        let figure = run.out.components(separatedBy: said).dropFirst().first?.split(separator: " ").prefix(2) ?? []
        let estimate = try #require(Double(figure.first ?? "")) * (figure.last == "MB" ? 1_048_576 : 1024)
        try FileManager.default.createDirectory(atPath: dir + "/cache", withIntermediateDirectories: true)
        let built = try runBuilt("flickd", ["pyramid", dir + "/big.png", "--cache-directory", dir + "/cache"])
        #expect(built.status == 0, "\(built.err)")
        let real = Double(diskBytes(dir + "/cache"))
        #expect(abs(estimate - real) <= real / 10, "said \(figure.joined(separator: " ")), built \(real) bytes")
        #expect(run.out.contains("cache: \(dir)/cache, writable by \(FlickdProcess.user); under the shipped unit (ProtectSystem=strict) only if a drop-in adds it to ReadWritePaths="), "\(run.out)")
        try "".write(toFile: dir + "/e.toml", atomically: true, encoding: .utf8)
        let empty = try runBuilt("flickd", ["check-config", dir + "/e.toml", "--user", FlickdProcess.user])
        #expect(empty.status == 0 && empty.out.contains("content: none (content.path is empty): the placeholder (black) shows"), "\(empty.out)")
    }

    @Test func unreadableContentFails() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let image = try #require(PixelBuffer(width: 8, height: 8))
        try PNGCodec.write(image, to: dir + "/secret.png")
        #expect(chmod(dir + "/secret.png", 0) == 0)
        try "[content]\npath = \"\(dir)/secret.png\"\n".write(toFile: dir + "/c.toml", atomically: true, encoding: .utf8)
        // As root, the service's user (here `nobody`, which owns nothing) is who must read it; as
        // anyone else the caller is, who cannot read its own file of mode 0 either.
        try #require(geteuid() != 0 || getpwnam("nobody") != nil, "no user nobody to check as")
        let who = geteuid() == 0 ? "nobody" : FlickdProcess.user
        let run = try runBuilt("flickd", ["check-config", dir + "/c.toml", "--user", "nobody"])
        #expect(run.status == 78)
        #expect(run.err.contains("content.path: \(dir)/secret.png: not readable by \(who)"), "\(run.err)")
    }

    /// A cache the pyramid cannot be built in left the daemon on its placeholder for good while
    /// check-config said ok: now it fails at `content.cache_directory`.
    @Test func aCacheFolderTheServiceCannotMakeOrWriteFailsWhenThePyramidNeedsIt() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer {
            chmod(dir + "/shut", 0o755)
            try? FileManager.default.removeItem(atPath: dir)
        }
        #expect(chmod(dir, 0o755) == 0) // the image readable by the user checked
        let image = try #require(PixelBuffer(width: 600, height: 400))
        try PNGCodec.write(image, to: dir + "/big.png")
        #expect(chmod(dir + "/big.png", 0o644) == 0)
        try FileManager.default.createDirectory(atPath: dir + "/shut", withIntermediateDirectories: true)
        #expect(chmod(dir + "/shut", 0o555) == 0)
        // As root the service's user (`nobody`, which owns nothing here) is checked; as anyone
        // else, the caller, who cannot write a folder of mode 0555 either.
        try #require(geteuid() != 0 || getpwnam("nobody") != nil, "no user nobody to check as")
        let who = geteuid() == 0 ? "nobody" : FlickdProcess.user
        func check(_ cache: String, budget: Int = 65536) throws -> (status: Int32, out: String, err: String) {
            try "[content]\npath = \"\(dir)/big.png\"\npixel_budget = \(budget)\ncache_directory = \"\(cache)\"\n"
                .write(toFile: dir + "/c.toml", atomically: true, encoding: .utf8)
            return try runBuilt("flickd", ["check-config", dir + "/c.toml", "--user", "nobody"])
        }
        let missing = try check(dir + "/shut/cache")
        #expect(missing.status == 78)
        #expect(missing.err.hasPrefix("flickd: \(dir)/c.toml:4: content.cache_directory: \(dir)/shut/cache: cannot be created: \(dir)/shut is not writable by \(who) (mode 555"),
                "\(missing.err)")
        #expect(missing.err.contains("the pyramid could not be built, and the placeholder would stay"), "\(missing.err)")
        let unwritable = try check(dir + "/shut")
        #expect(unwritable.status == 78 && unwritable.err.hasPrefix("flickd: \(dir)/c.toml:4: content.cache_directory: \(dir)/shut: not writable by \(who)"),
                "\(unwritable.err)")
        let file = try check(dir + "/big.png/cache")
        #expect(file.status == 78 && file.err.hasPrefix("flickd: \(dir)/c.toml:4: content.cache_directory: \(dir)/big.png/cache: cannot be created: \(dir)/big.png is not a folder"), "\(file.err)")
        // An image the budget holds needs no cache: nothing to check.
        let small = try check(dir + "/shut/cache", budget: 1_000_000)
        #expect(small.status == 0 && !small.out.contains("cache:"), "\(small.err)")
    }
}

/// The bytes the files under `path` take on disk, as `du` counts them.
private func diskBytes(_ path: String) -> Int64 {
    var info = stat()
    guard lstat(path, &info) == 0 else { return 0 }
    var total = Int64(info.st_blocks) * 512
    if info.st_mode & S_IFMT == S_IFDIR, let names = try? FileManager.default.contentsOfDirectory(atPath: path) {
        for name in names { total += diskBytes("\(path)/\(name)") }
    }
    return total
}
