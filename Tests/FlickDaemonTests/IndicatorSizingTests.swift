import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Testing

/// Issue 34, part 4: the scroll indicators read the same on every panel — the same angle at the
/// eye from the distance a panel of its size is read at — their density from the output's
/// millimetres, else the touchscreen's, else the style's pixels.
@Suite struct IndicatorSizingTests {
    /// A panel of `inches` diagonal at `size` pixels, its millimetres as its EDID would say.
    static func millimetres(diagonal inches: Double, _ size: PixelSize) -> Size {
        let w = Double(size.width), h = Double(size.height)
        let diagonal = inches * 25.4, pixels = (w * w + h * h).squareRoot()
        return Size(width: diagonal * w / pixels, height: diagonal * h / pixels)
    }

    /// The vertical bar as a flash shows it on a panel: its thickness and its gap to the right
    /// edge, in pixels, from the grey a white bar at 0.45 leaves on black in one row across it.
    static func bar(size: PixelSize, physicalSize: Size?, touch: Double? = nil,
                    configuration text: String = "[indicators]\nstyle = \"white\"\n") throws -> (thickness: Double, gap: Double) {
        let black = try #require(PixelBuffer(width: size.width, height: size.height * 3))
        black.fill(Color.black.pixel)
        let rig = try PipelineRig(size: size, content: Content(image: black), configuration: ConfigLoader.parse(text, path: "f"),
                                  at: .seconds(5), physicalSize: physicalSize, touchPixelsPerMillimetre: touch)
        rig.settle(seconds: 1)
        #expect(rig.commands().handle(.flashIndicators, id: 1).ok == true)
        rig.settle(seconds: 0.2, expectRest: false)
        let front = rig.output.headless.frontBuffer
        // A third of the way down the bar (a third of the track long, from the top).
        let row = size.height / 9
        var covered = 0.0, moment = 0.0
        for x in (size.width - 60)..<size.width {
            let coverage = Double((front[x, row] >> 16) & 0xFF) / (0.45 * 255)
            covered += coverage
            moment += coverage * (Double(x) + 0.5)
        }
        let centre = moment / max(covered, 1e-9)
        return (covered, Double(size.width) - centre - covered / 2)
    }

    /// The reference panel's viewing distance (1.2 × 15.6"), and a panel's over it: a 7" panel
    /// is read at arm's length (400 mm), a 55" one from 1.2 × 55" = 1676 mm.
    static let referenceDistance = 1.2 * 15.6 * 25.4
    static func distance(diagonal inches: Double) -> Double { max(400, 1.2 * inches * 25.4) / referenceDistance }

    @Test func aSevenInchAndAFiftyFiveInchPanelShowTheSameAngleAtTheirViewingDistance() throws {
        let small = PixelSize(width: 800, height: 480), big = PixelSize(width: 3840, height: 2160)
        let smallMM = Self.millimetres(diagonal: 7, small), bigMM = Self.millimetres(diagonal: 55, big)
        let smallDensity = try #require(HeadlessOutput(size: small, physicalSize: smallMM)?.pixelsPerMillimetre)
        let bigDensity = try #require(HeadlessOutput(size: big, physicalSize: bigMM)?.pixelsPerMillimetre)
        // 932.9 px over 177.8 mm; 4405.8 px over 1397 mm.
        #expect(abs(smallDensity - 5.247) < 0.001 && abs(bigDensity - 3.154) < 0.001, "\(smallDensity) \(bigDensity)")
        let onSmall = try Self.bar(size: small, physicalSize: smallMM)
        let onBig = try Self.bar(size: big, physicalSize: bigMM)
        // 0.54 mm at 475 mm: 0.454 mm (2.38 px) on the 7", 1.90 mm (6.0 px) on the 55", and the
        // default 3 reference px (0.54 mm) from the edge likewise.
        for (bar, density, inches) in [(onSmall, smallDensity, 7.0), (onBig, bigDensity, 55.0)] {
            let d = Self.distance(diagonal: inches)
            #expect(abs(bar.thickness / density / d - 0.54) < 0.01, "\(bar) at \(density) px/mm")
            #expect(abs(bar.gap / density / d - 0.54) < 0.01, "\(bar) at \(density) px/mm")
        }
        #expect(abs(onBig.thickness - 6.0) < 0.05 && abs(onSmall.thickness - 2.38) < 0.05, "\(onSmall) \(onBig)")
    }

    @Test func theDefaultStylesBorderAndBarScaleTogether() throws {
        let big = PixelSize(width: 3840, height: 2160)
        let mm = Self.millimetres(diagonal: 55, big)
        let density = try #require(HeadlessOutput(size: big, physicalSize: mm)?.pixelsPerMillimetre)
        // The light border (1 reference px each side) is what shows on black: 2 × 0.18 mm, scaled
        // by the 55" panel's viewing distance.
        let bar = try Self.bar(size: big, physicalSize: mm, configuration: "")
        #expect(abs(bar.thickness / density / Self.distance(diagonal: 55) - 2 * 0.18) < 0.01, "\(bar)")
    }

    @Test func withoutTheOutputsMillimetresTheTouchscreensDensityServes() throws {
        let size = PixelSize(width: 800, height: 480)
        // 10 px/mm: 93 mm across, read at arm's length.
        let near = 400 / Self.referenceDistance
        let bar = try Self.bar(size: size, physicalSize: nil, touch: 10)
        #expect(abs(bar.thickness - 5.4 * near) < 0.02 && abs(bar.gap - 5.4 * near) < 0.02, "\(bar)")
        // The output's own millimetres come first.
        let own = try Self.bar(size: size, physicalSize: Self.millimetres(diagonal: 7, size), touch: 10)
        #expect(abs(own.thickness - 0.54 * near * 5.247) < 0.02, "\(own)")
    }

    @Test func anUnknownPanelKeepsTodaysPixelsAndThicknessInPixelsOverrides() throws {
        let size = PixelSize(width: 800, height: 480)
        let plain = try Self.bar(size: size, physicalSize: nil)
        #expect(abs(plain.thickness - 3) < 0.02 && abs(plain.gap - 3) < 0.02, "\(plain)")
        let mm = Self.millimetres(diagonal: 7, size)
        let set = try Self.bar(size: size, physicalSize: mm, configuration: "[indicators]\nstyle = \"white\"\nthickness = 6\n")
        // 6 px as given; the gap still follows the panel (3 reference px: 0.54 mm at 475 mm).
        #expect(abs(set.thickness - 6) < 0.02 && abs(set.gap - 0.54 * Self.distance(diagonal: 7) * 5.247) < 0.02, "\(set)")
    }

    @Test func thicknessKeysAreReadAndCheckedWithTheirLine() throws {
        let c = try ConfigLoader.parse("[indicators]\nthickness_mm = 1.2\nthickness = 0\n", path: "f")
        #expect(c.indicatorSizing.thicknessMillimetres == 1.2 && c.indicatorSizing.thicknessPixels == nil)
        #expect(Configuration().indicatorSizing == IndicatorSizing())
        #expect(Configuration().effectiveIndicatorStyle.thickness == 3)
        for (text, key, message) in [("[indicators]\nthickness_mm = 0\n", "indicators.thickness_mm", "expected a number greater than 0, got 0"),
                                     ("[indicators]\nthickness = -1\n", "indicators.thickness",
                                      "expected px greater than 0, or 0 (from thickness_mm), got -1")] {
            let e = try #require(configError(text))
            #expect(e.key == key && e.line == 2 && e.message == message, "\(e)")
        }
    }
}
