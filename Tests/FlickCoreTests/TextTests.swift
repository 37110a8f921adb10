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

    /// One number format: as written when short (whole numbers without a point), three
    /// significant digits otherwise, never a non-whole number that reads whole.
    @Test func briefWritesEveryNumberOneWay() {
        #expect(0.0.brief == "0" && (-0.0).brief == "0" && (-5.0).brief == "-5" && 919.0.brief == "919")
        #expect(0.025.brief == "0.025" && 2.5.brief == "2.5" && 0.001.brief == "0.001" && 1.25.brief == "1.25")
        #expect((-376.20000000000005).brief == "-376.2" && 0.0244140625.brief == "0.0244" && (1.0 / 3).brief == "0.333")
        #expect(12.345678.brief == "12.3" && 3.14159265.brief == "3.14" && 1234.5678.brief == "1234.6")
        // Never whole when it is not: an error's bound and its value must not read alike.
        #expect(1.0000001.brief == "1.0000001" && 0.99999999.brief == "0.99999999" && 1000.0000001.brief == "1000.0000001")
        #expect(0.00099999.brief == "0.00099999" && (2.0 + 4e-16).brief == "2")
        // Tiny and huge in the exponent form, never 0 for a value that is not.
        #expect(Double.leastNonzeroMagnitude.brief == "5e-324" && 1e-7.brief == "1e-07" && 1.2345678e-7.brief == "1.2345678e-07")
        #expect(1e19.brief == "1e+19" && Double.nan.brief == "nan")
    }

    @Test func blanksAreSpacesAndTabsOnly() {
        #expect(" \t a b \t".trimmingBlanks() == "a b")
        #expect("   ".trimmingBlanks() == "")
        #expect("\u{00A0}x\u{00A0}".trimmingBlanks() == "\u{00A0}x\u{00A0}")
        #expect("x".trimmingBlanks() == "x")
    }
}
