import FlickCore
import FlickDisplay
import Foundation
import Testing

/// `flickd pyramid` as an integrator runs it: progress on standard error, the .dzi's path on
/// standard output, a second run reusing the pyramid, failures with their sysexits status.
@Suite struct PyramidCommandTests {
    @Test func buildsThenReuses() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let image = try #require(TestPattern.make(PixelSize(width: 300, height: 200)))
        try PNGCodec.write(image, to: dir + "/map.png")
        let (status, out, err) = try runBuilt("flickd", ["pyramid", dir + "/map.png", "--cache-directory", dir])
        #expect(status == 0)
        let path = out.trimmingCharacters(in: .newlines)
        #expect(path.hasPrefix(dir + "/map-") && path.hasSuffix("/map.dzi") && FileManager.default.fileExists(atPath: path))
        #expect(err.split(separator: "\n").last?.hasPrefix("built 300x200 in 10 levels, 11 tiles in ") == true, "\(err)")
        let again = try runBuilt("flickd", ["pyramid", dir + "/map.png", "--cache-directory", dir])
        #expect(again.status == 0 && again.out == out && again.err == "already built\n")
    }

    /// Issue 34: a cache folder that is not there yet is made, with its parents, mode 0755.
    @Test func makesItsCacheFolderWithItsParents() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let image = try #require(TestPattern.make(PixelSize(width: 30, height: 20)))
        try PNGCodec.write(image, to: dir + "/map.png")
        let cache = dir + "/var/cache/flickd"
        let (status, out, err) = try runBuilt("flickd", ["pyramid", dir + "/map.png", "--cache-directory", cache])
        #expect(status == 0, "\(err)")
        #expect(out.hasPrefix(cache + "/map-") && FileManager.default.fileExists(atPath: out.trimmingCharacters(in: .newlines)))
        for folder in [dir + "/var", dir + "/var/cache", cache] {
            let mode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
            #expect(mode == 0o755, "\(folder): \(String(describing: mode))")
        }
    }

    @Test func failuresSayWhatAndExitWithTheirStatus() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let image = try #require(TestPattern.make(PixelSize(width: 30, height: 20)))
        try PNGCodec.write(image, to: dir + "/map.png")
        // A folder cannot be made under a file (issue 34: a missing one is made, below).
        let missing = try runBuilt("flickd", ["pyramid", dir + "/map.png", "--cache-directory", dir + "/map.png/cache"])
        #expect(missing.status == 74)
        #expect(missing.err == "flickd: \(dir)/map.png/cache: cannot write the pyramid cache (create the cache folder): "
                + "Not a directory (errno 20); nothing partial was left behind\n", "\(missing.err)")
        let absent = try runBuilt("flickd", ["pyramid", dir + "/absent.png", "--cache-directory", dir])
        #expect(absent.status == 66 && absent.err.hasPrefix("flickd: \(dir)/absent.png: cannot read: No such file"))
        let usage = try runBuilt("flickd", ["pyramid", dir + "/map.png", "--tile-size", "0"])
        #expect(usage.status == 64 && usage.err.contains("--tile-size must be from 1 to 8192, not 0."))
    }

    /// A content update replaces the file (a new inode, so a new pyramid): each build removes
    /// the image's pyramids of versions the file no longer is, but the one `--keep` names (shown),
    /// and says so; over `--cache-max-mb` the least recently shown go too.
    @Test func aNewVersionRemovesTheChangedOnesButTheKeptOne() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = dir + "/cache"
        func version(_ width: Int, keep: [String] = [], limit: Int? = nil) throws -> (dzi: String, err: String) {
            let image = try #require(TestPattern.make(PixelSize(width: width, height: 20)))
            try PNGCodec.write(image, to: dir + "/map.png.new")
            #expect(rename(dir + "/map.png.new", dir + "/map.png") == 0)
            let run = try runBuilt("flickd", ["pyramid", dir + "/map.png", "--cache-directory", cache]
                                   + keep.flatMap { ["--keep", $0] } + (limit.map { ["--cache-max-mb", "\($0)"] } ?? []))
            #expect(run.status == 0, "\(run.err)")
            return (run.out.trimmingCharacters(in: .newlines), run.err)
        }
        func folder(_ dzi: String) -> String { (dzi as NSString).deletingLastPathComponent }
        func name(_ dzi: String) -> String { (folder(dzi) as NSString).lastPathComponent }
        let first = try version(30)
        // The second keeps the first (shown, say): nothing goes.
        let second = try version(31, keep: [first.dzi])
        #expect(!first.err.contains("removed") && !second.err.contains("removed"), "\(second.err)")
        // The third keeps the second: the first goes, said on standard error.
        let third = try version(32, keep: [second.dzi])
        let said = try #require(third.err.split(separator: "\n").first { $0.hasPrefix("removed ") }, "\(third.err)")
        #expect(said == "removed 1 pyramid from \(cache): \(name(first.dzi)) (changed); 0 MB left, limit 4096 MB", "\(said)")
        #expect(!FileManager.default.fileExists(atPath: folder(first.dzi)) && FileManager.default.fileExists(atPath: second.dzi))
        // The fourth keeps nothing more: the second and third go.
        let fourth = try version(33)
        #expect(fourth.err.contains("removed 2 pyramids from \(cache): "), "\(fourth.err)")
        #expect(!FileManager.default.fileExists(atPath: folder(second.dzi)) && !FileManager.default.fileExists(atPath: folder(third.dzi)))
        #expect(FileManager.default.fileExists(atPath: fourth.dzi))
        #expect(try runBuilt("flickd", ["pyramid", dir + "/map.png", "--cache-max-mb", "-1"]).status == 64)
    }
}
