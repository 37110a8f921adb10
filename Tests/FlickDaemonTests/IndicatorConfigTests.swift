import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Testing

/// Issue 21, part 3: `indicators.style` and `indicators.scroll_indicator_insets` read, checked
/// with the file's line, applied by a flash, and again after a reload.
@Suite struct IndicatorConfigTests {
    @Test func theDefaultsAreUIKitsDefaultStyleWithNoInsets() {
        let c = Configuration()
        #expect(c.indicatorStyle.scheme == .default && c.indicatorStyle.insets == .zero && c.indicatorStyle.color == nil)
    }

    @Test func styleInsetsAndColourAreRead() throws {
        let c = try ConfigLoader.parse("""
            [indicators]
            style = "white"
            scroll_indicator_insets = [10, 0, 20.5, 4]
            color = "#336699"
            """, path: "f")
        #expect(c.effectiveIndicatorStyle.scheme == .white)
        #expect(c.effectiveIndicatorStyle.insets == EdgeInsets(top: 10, left: 0, bottom: 20.5, right: 4))
        #expect(c.effectiveIndicatorStyle.bodyColor == Color(rgb: 0x336699))
        let plain = try ConfigLoader.parse("[indicators]\nstyle = \"black\"\ncolor = \"\"\n", path: "f")
        #expect(plain.indicatorStyle.scheme == .black && plain.indicatorStyle.bodyColor == .black)
        #expect(try ConfigLoader.parse("[indicators]\nstyle = \"white\"\n", path: "f").indicatorStyle.bodyColor == .white)
    }

    @Test func badValuesNameTheFileLineAndKey() throws {
        let cases: [(String, String, Int, String)] = [
            ("[indicators]\nstyle = \"grey\"\n", "indicators.style", 2,
             "expected one of \"black\", \"default\", \"white\", got \"grey\""),
            ("\n[indicators]\nstyle = 1\n", "indicators.style", 3, "expected one of \"black\", \"default\", \"white\", got 1"),
            ("[indicators]\nscroll_indicator_insets = [1, 2, 3]\n", "indicators.scroll_indicator_insets", 2,
             "expected [top, left, bottom, right] in px, each at least 0, got a array"),
            ("[indicators]\nscroll_indicator_insets = [0, -1, 0, 0]\n", "indicators.scroll_indicator_insets", 2,
             "expected [top, left, bottom, right] in px, each at least 0, got [0, -1, 0, 0]"),
            ("[indicators]\nscroll_indicator_insets = [0, \"a\", 0, 0]\n", "indicators.scroll_indicator_insets", 2,
             "expected [top, left, bottom, right] in px, each at least 0, got \"a\""),
            ("[indicators]\ncolor = \"black\"\n", "indicators.color", 2,
             "expected \"\" (the style's) or a colour \"#RRGGBB\", got \"black\""),
        ]
        for (text, key, line, message) in cases {
            let e = try #require(configError(text), "\(key)")
            #expect(e.key == key && e.line == line, "\(e)")
            #expect(e.message == message, "\(e.message)")
            #expect(e.description.hasPrefix("flickd.toml:\(line): \(key): "), "\(e)")
        }
    }

    /// A flash shows the bar in the configured style inside the configured insets, with the
    /// content inset counted; a reload's new style and insets show at the next flash.
    @Test func aFlashHonoursTheStyleAndTheInsetsAndAReloadChangesThem() throws {
        let black = try #require(PixelBuffer(width: 320, height: 2000))
        black.fill(Color.black.pixel)
        let configuration = try ConfigLoader.parse("""
            [scroll]
            content_inset = [100, 0, 100, 0]
            [indicators]
            style = "white"
            scroll_indicator_insets = [10, 0, 10, 20]
            """, path: "f")
        let start = Instant.seconds(5)
        // At offset 0 (the home view would be −100, the inset's top): the bar's sums below.
        let rig = try PipelineRig(content: Content(image: black), configuration: configuration, at: start,
                                  restore: (Point.zero, 1))
        rig.settle(seconds: 1)
        #expect(rig.view.contentOffset == .zero)
        let handler = rig.commands()
        #expect(handler.handle(.flashIndicators, id: 1).ok == true)
        rig.settle(seconds: 0.2, expectRest: false)
        #expect(rig.frames.last?.contentInset == EdgeInsets(top: 100, left: 0, bottom: 100, right: 0))
        // Track: y 13 … 200 − 10 − 3 = 187 (174 px); bar max(36, 174 × 200/2200) = 36 px; offsets
        // −100 … 1900, so offset 0 is 0.05 of the way: y = 13 + 0.05 × 138 = 19.9 … 55.9.
        // Across: 320 − 20 − 3 − 3 = 294, columns 294…296, white at 0.45.
        let front = rig.output.headless.frontBuffer
        let rows = (0..<200).filter { front[295, $0] != Color.black.pixel }
        // (Row 19 holds 0.1 px of the rounded end's tip, which no 4×4 sample of it falls in.)
        #expect(rows.first == 20 && rows.last == 55, "\(rows)")
        #expect(front[295, 40] == 0xFF73_7373)
        #expect((290..<320).filter { front[$0, 40] != Color.black.pixel } == [294, 295, 296])

        // A reload: the default style (a 5 px bar with a border) and no right inset.
        let next = try ConfigLoader.parse("[scroll]\ncontent_inset = [100, 0, 100, 0]\n", path: "f")
        rig.settle(seconds: 2)
        rig.pipeline.setAppearance(background: next.background, indicatorStyle: next.effectiveIndicatorStyle, at: rig.pipeline.now)
        #expect(handler.handle(.flashIndicators, id: 2).ok == true)
        rig.settle(seconds: 0.2, expectRest: false)
        let after = rig.output.headless.frontBuffer
        // 320 − 3 − 5 = 312: border 312 and 316 (light), body 313…315 (black over black).
        #expect((300..<320).filter { after[$0, 40] != Color.black.pixel } == [312, 316])
    }
}
