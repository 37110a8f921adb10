import FlickControl
import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Foundation
import Testing

/// `snapshot` shows what the commands answered before it did, though the panel shows it only
/// at its next vblank: on the virtual clock no vblank passes between a command and the snapshot
/// after it, so the panel still shows the frame before.
@Suite struct SnapshotCommandTests {
    /// Red and green are x and y modulo 256, blue their high bits: each pixel says where it is.
    static func coded(width: Int, height: Int) throws -> PixelBuffer {
        let image = try #require(PixelBuffer(width: width, height: height))
        for y in 0..<height {
            for x in 0..<width { image[x, y] = 0xFF00_0000 | UInt32(x & 0xFF) << 16 | UInt32(y & 0xFF) << 8 | UInt32(x >> 8 | (y >> 8) << 4) }
        }
        return image
    }

    /// The content point a pixel of `frame` shows.
    static func point(_ frame: PixelBuffer, _ x: Int, _ y: Int) -> [Int] {
        let word = frame[x, y]
        let r = Int(word >> 16 & 0xFF), g = Int(word >> 8 & 0xFF), b = Int(word & 0xFF)
        return [(b & 0xF) << 8 | r, (b >> 4) << 8 | g]
    }

    @Test func aSnapshotShowsAJumpBeforeThePanelDoes() throws {
        var configuration = Configuration()
        configuration.indicatorsEnabled = false
        let rig = try PipelineRig(content: Content(image: Self.coded(width: 1000, height: 1000)), configuration: configuration)
        rig.settle()
        let handler = rig.commands()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-snap-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        handler.snapshotDirectory = dir
        func snapshot(_ name: String) throws -> PixelBuffer {
            #expect(handler.handle(.snapshot(path: name), id: 9).ok == true)
            let path = dir + "/" + name
            return try PNGCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), path: path, pixelBudget: 1 << 20)
        }
        let panel = { try #require(rig.output.headless.snapshot()) }

        // A jump: its frame is committed for a vblank still to come.
        #expect(handler.handle(.setOffset(x: 120, y: 340, animated: false), id: 1).ok == true)
        #expect(Self.point(try panel(), 0, 0) == [0, 0], "the panel still shows the frame before")
        let jump = try snapshot("jump.png")
        #expect(Self.point(jump, 0, 0) == [120, 340] && Self.point(jump, 319, 199) == [439, 539])

        // Another while that frame is in flight: its own frame is not even committed yet.
        #expect(handler.handle(.setOffset(x: 500, y: 600, animated: false), id: 2).ok == true)
        let second = try snapshot("second.png")
        #expect(Self.point(second, 0, 0) == [500, 600] && Self.point(second, 319, 199) == [819, 799])

        // Presented, the panel's frame is the picture the snapshot showed ahead of it.
        rig.settle()
        let shown = try panel()
        #expect(Self.point(shown, 0, 0) == [500, 600])
        #expect(shown.size == second.size)
        var differing = 0
        for y in 0..<shown.height { for x in 0..<shown.width where shown[x, y] & 0xFF_FFFF != second[x, y] & 0xFF_FFFF { differing += 1 } }
        #expect(differing == 0)
        #expect(Self.point(try snapshot("settled.png"), 0, 0) == [500, 600])
    }
}
