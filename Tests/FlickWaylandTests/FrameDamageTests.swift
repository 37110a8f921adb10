import FlickDisplay
import Testing
@testable import FlickWayland

/// Only what changed since the last committed frame is damaged.
@Suite struct FrameDamageTests {
    static func frame(_ fill: UInt32 = 0xFF10_2030) throws -> PixelBuffer {
        let buffer = try #require(PixelBuffer(width: 64, height: 48))
        buffer.fill(fill)
        return buffer
    }

    @Test func withoutAPreviousFrameEverythingIsDamaged() throws {
        #expect(FrameDamage.rectangles(try Self.frame(), since: nil) == [PixelRect(x0: 0, y0: 0, x1: 64, y1: 48)])
        let small = try #require(PixelBuffer(width: 32, height: 48))
        #expect(FrameDamage.rectangles(try Self.frame(), since: small) == [PixelRect(x0: 0, y0: 0, x1: 64, y1: 48)])
    }

    @Test func anIdenticalFrameDamagesNothing() throws {
        #expect(FrameDamage.rectangles(try Self.frame(), since: try Self.frame()).isEmpty)
    }

    /// wlroots answers a commit's frame callback only when it renders damage: an identical frame
    /// is committed with one pixel damaged, or the presenter would wait for ever.
    @Test func anIdenticalFrameIsCommittedWithOnePixelDamaged() throws {
        #expect(FrameDamage.toCommit(try Self.frame(), since: try Self.frame()) == [PixelRect(x0: 0, y0: 0, x1: 1, y1: 1)])
        let old = try Self.frame(), new = try Self.frame()
        new[10, 5] = 0xFFFF_FFFF
        #expect(FrameDamage.toCommit(new, since: old) == FrameDamage.rectangles(new, since: old))
        #expect(FrameDamage.toCommit(new, since: nil) == [PixelRect(x0: 0, y0: 0, x1: 64, y1: 48)])
    }

    @Test func aChangedPatchIsDamagedToItsPixel() throws {
        let old = try Self.frame(), new = try Self.frame()
        new[10, 5] = 0xFFFF_FFFF
        new[20, 7] = 0xFFFF_FFFF
        new[3, 30] = 0
        #expect(FrameDamage.rectangles(new, since: old) == [
            PixelRect(x0: 10, y0: 5, x1: 11, y1: 6),
            PixelRect(x0: 20, y0: 7, x1: 21, y1: 8),
            PixelRect(x0: 3, y0: 30, x1: 4, y1: 31),
        ])
        // Adjacent changed rows are one rectangle around them.
        new[40, 6] = 0
        #expect(FrameDamage.rectangles(new, since: old).first == PixelRect(x0: 10, y0: 5, x1: 41, y1: 8))
    }

    @Test func beyondTheLimitOneRectangleHoldsThemAll() throws {
        let old = try Self.frame(), new = try Self.frame()
        for y in stride(from: 2, to: 40, by: 4) { new[y, y] = 0 }
        #expect(FrameDamage.rectangles(new, since: old, limit: 8) == [PixelRect(x0: 2, y0: 2, x1: 39, y1: 39)])
        #expect(FrameDamage.rectangles(new, since: old, limit: 10).count == 10)
    }
}
