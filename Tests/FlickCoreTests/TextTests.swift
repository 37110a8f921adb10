import FlickCore
import Testing

/// The text helpers that replace Foundation's formatting in the daemon.
struct TextTests {
    @Test func fixedDecimalsRoundHalfAwayFromZeroAndPad() {
        #expect(1.25.fixed(1) == "1.3")
        #expect((-1.25).fixed(1) == "-1.3")
        #expect(3.87.fixed(1) == "3.9")
        #expect(0.0.fixed(3) == "0.000")
        #expect((-0.0004).fixed(3) == "0.000")
        #expect(919.0.fixed(0) == "919")
        #expect(12.3456.fixed(3, width: 9) == "   12.346")
        #expect(1.005.fixed(2) == "1.00" || 1.005.fixed(2) == "1.01")  // 1.005 is 1.00499… in binary
        #expect(Double.nan.fixed(1) == "nan" && (-Double.infinity).fixed(1) == "-inf")
        #expect(1e300.fixed(1) == String(1e300))
    }

    @Test func blanksAreSpacesAndTabsOnly() {
        #expect(" \t a b \t".trimmingBlanks() == "a b")
        #expect("   ".trimmingBlanks() == "")
        #expect("\u{00A0}x\u{00A0}".trimmingBlanks() == "\u{00A0}x\u{00A0}")
        #expect("x".trimmingBlanks() == "x")
    }
}
