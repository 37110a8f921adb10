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

    @Test func aBigImageIsSaidToNeedAPyramidAndAnEmptyPathThePlaceholder() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let image = try #require(PixelBuffer(width: 600, height: 400))
        image.fill(0xFF80_4020)
        try PNGCodec.write(image, to: dir + "/big.png")
        try "[content]\npath = \"\(dir)/big.png\"\npixel_budget = 65536\ncache_directory = \"\(dir)/cache\"\n"
            .write(toFile: dir + "/c.toml", atomically: true, encoding: .utf8)
        let run = try runBuilt("flickd", ["check-config", dir + "/c.toml", "--user", FlickdProcess.user])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("content: 600x400 PNG: over content.pixel_budget, a pyramid will be built into \(dir)/cache once, ~"), "\(run.out)")
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
