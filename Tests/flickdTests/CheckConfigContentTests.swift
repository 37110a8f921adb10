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
}
