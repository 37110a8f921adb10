import Foundation
import Testing

/// Section 13 of the benchmark counts one frame of each kind in a child (`flickd-bench
/// --cost-frame KIND WxH`); its figures are only worth something if that frame is the kind it
/// says: read back from the composer and the headless output after it, not timed.
@Suite struct CostFrameTests {
    /// The child's report line as key → value.
    static func frame(_ kind: String, _ size: String = "640x360") throws -> [String: String] {
        let (status, out, err) = try runBuilt("flickd-bench", ["--cost-frame", kind, size])
        #expect(status == 0, "\(out) \(err)")
        let line = try #require(out.split(separator: "\n").first { $0.hasPrefix("cost-frame ") }, "\(out) \(err)")
        var fields: [String: String] = [:]
        for pair in line.split(separator: " ").dropFirst() {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        #expect(fields["kind"] == kind && fields["size"] == size && fields["failure"] == nil, "\(line)")
        // Exactly one frame is drawn and committed in the measured part.
        #expect(fields["committed"] == "1", "\(line)")
        return fields
    }

    static func int(_ fields: [String: String], _ key: String) -> Int { fields[key].flatMap { Int($0) } ?? -1 }

    @Test func aPannedFrameWithPlanesIsScannedOutWithTheBarsOnTheirPlanes() throws {
        let f = try Self.frame("pan")
        #expect(f["primary"] == "content" && f["scanned-out"] == "1" && f["overlays"] == "2", "\(f)")
        // No composed buffer was ever needed, and no content pixel is copied: the bytes are the bars'.
        #expect(f["composed-buffers"] == "0" && Self.int(f, "read") == 0, "\(f)")
        #expect(Self.int(f, "written") > 0 && Self.int(f, "written") < 640 * 360, "\(f)")
    }

    @Test func aPannedFrameWithoutPlanesIsComposed() throws {
        let f = try Self.frame("pan-composed")
        #expect(f["primary"] == "composed" && f["scanned-out"] == "0" && f["overlays"] == "0", "\(f)")
        #expect(Self.int(f, "composed-buffers") >= 1, "\(f)")
        // The whole frame copied: one frame's bytes read and written.
        #expect(Self.int(f, "read") == 4 * 640 * 360 && Self.int(f, "written") >= 4 * 640 * 360, "\(f)")
    }

    @Test func aBandRefillFrameFillsOneBandAndScansItOut() throws {
        let f = try Self.frame("band")
        #expect(f["band-fills"] == "1" && f["primary"] == "content" && f["scanned-out"] == "1", "\(f)")
        // A band is the view and a margin on each side (128 px at this size): more than a screen.
        #expect(Self.int(f, "read") >= 4 * (640 + 256) * (360 + 256), "\(f)")
        #expect(Self.int(f, "composed-buffers") == 0, "\(f)")
    }

    @Test(arguments: ["zoom-0.3", "zoom-1.7"])
    func aZoomedFrameIsComposedWithTheBarsOnTheirPlanes(kind: String) throws {
        let f = try Self.frame(kind)
        #expect(f["primary"] == "composed" && f["scanned-out"] == "0" && f["overlays"] == "2", "\(f)")
        #expect(Self.int(f, "composed-buffers") >= 1, "\(f)")
        // Downscaling samples more content than the frame holds, upscaling less.
        let read = Self.int(f, "read"), frameBytes = 4 * 640 * 360
        #expect(kind == "zoom-0.3" ? read > 2 * frameBytes : read < frameBytes && read > 0, "\(f)")
    }

    @Test func aPinchFrameOverTilesIsComposedIntoABandBuffer() throws {
        let f = try Self.frame("pinch")
        #expect(f["band-composed"] == "1" && f["band-fills"] == "0" && f["primary"] == "content", "\(f)")
        #expect(Self.int(f, "composed-buffers") == 0, "\(f)")
    }

    @Test func anIndicatorOnlyFrameRedrawsOnlyTheBars() throws {
        let f = try Self.frame("indicators")
        #expect(f["primary"] == "content" && f["scanned-out"] == "1" && Self.int(f, "overlays") >= 1, "\(f)")
        #expect(Self.int(f, "read") == 0 && Self.int(f, "written") > 0 && Self.int(f, "composed-buffers") == 0, "\(f)")
    }

    @Test func anUnknownKindOrSizeIsRefusedByName() throws {
        let (status, out, _) = try runBuilt("flickd-bench", ["--cost-frame", "swirl", "640x360"])
        #expect(status == 64 && out.contains("pan-composed"), "\(out)")
        let (badSize, sizeOut, _) = try runBuilt("flickd-bench", ["--cost-frame", "pan", "640by360"])
        #expect(badSize == 64 && sizeOut.contains("640by360"), "\(sizeOut)")
    }
}
