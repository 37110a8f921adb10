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

    @Test func failuresSayWhatAndExitWithTheirStatus() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let image = try #require(TestPattern.make(PixelSize(width: 30, height: 20)))
        try PNGCodec.write(image, to: dir + "/map.png")
        let missing = try runBuilt("flickd", ["pyramid", dir + "/map.png", "--cache-directory", dir + "/nope"])
        #expect(missing.status == 74)
        #expect(missing.err == "flickd: \(dir)/nope: cannot write the pyramid cache (create a temporary folder): "
                + "No such file or directory (errno 2); nothing partial was left behind\n")
        let absent = try runBuilt("flickd", ["pyramid", dir + "/absent.png", "--cache-directory", dir])
        #expect(absent.status == 66 && absent.err.hasPrefix("flickd: \(dir)/absent.png: cannot read: No such file"))
        let usage = try runBuilt("flickd", ["pyramid", dir + "/map.png", "--tile-size", "0"])
        #expect(usage.status == 64 && usage.err.contains("--tile-size must be from 1 to 8192, not 0."))
    }
}
