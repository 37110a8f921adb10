import Testing
@testable import FlickCore

/// Issue 21, part 6, in the recogniser: a touch the content has is a whole stream — down, every
/// move, up or cancel — of one finger's id, in content coordinates; a touch that scrolls nothing
/// stays the content's; and the delegate messages around it still follow the grammar.
@Suite struct ContentTouchStreamTests {
    /// The content touches of `out` with their finger's id.
    static func stream(_ out: [GestureOutput]) -> [(ContentTouch, ContactID?)] {
        out.compactMap { if case let .content(touch) = $0.kind { (touch, $0.contact) } else { nil } }
    }

    /// A sideways drag 10 px a report from (200, 300) to (300, 300), 10 ms apart, then a lift.
    static func sideways(_ h: inout GestureHarness, id: Int = 5) {
        h.down(id, 200, 300); h.send()
        for i in 1...10 { h.advance(ms: 10); h.move(id, 200 + 10 * Double(i), 300); h.send() }
        h.advance(ms: 10); h.up(id); h.send()
        h.settle()
    }

    @Test func aSidewaysDragOnContentThatOnlyScrollsVerticallyIsTheContentsAtZoomTwoWithAnOffset() throws {
        // 400 × 3000 content at zoom 2 fills the 800 px width exactly: nothing to scroll sideways.
        var h = GestureHarness(content: Size(width: 400, height: 3000))
        _ = try h.recognizer.update(at: h.now) { v in
            try v.setZoomScaleLimits(minimum: 1, maximum: 4)
            try v.setZoomScale(2, animated: false, at: h.now)
            try v.setContentOffset(Point(x: 0, y: 500), animated: false, at: h.now)
        }
        #expect(h.view.zoomScale == 2 && h.view.contentOffset == Point(x: 0, y: 500))
        Self.sideways(&h)
        let out = h.take()
        // Past the 12 px slop at the 2nd report (20 px): down where it landed, that move, the
        // rest, the up; (x, y) on screen is ((x + 0) / 2, (y + 500) / 2) in the content.
        let expected: [ContentTouch] = [.down(Point(x: 100, y: 400))]
            + (2...10).map { .move(Point(x: (200 + 10 * Double($0)) / 2, y: 400)) } + [.up(Point(x: 150, y: 400))]
        #expect(Self.stream(out).map(\.0) == expected)
        #expect(Self.stream(out).allSatisfy { $0.1 == ContactID(5) })
        #expect(GestureHarness.scroll(out).isEmpty && h.view.contentOffset == Point(x: 0, y: 500), "\(GestureHarness.scroll(out))")
        #expect(grammarViolation(GestureHarness.scroll(out)) == nil)
    }

    @Test func alwaysBounceMakesTheSameDragAScroll() {
        var h = GestureHarness(content: Size(width: 800, height: 3000), scroll: {
            $0.alwaysBounceHorizontal = true
        })
        Self.sideways(&h)
        let out = h.take()
        #expect(Self.stream(out).isEmpty)
        #expect(GestureHarness.scroll(out).first == .willBeginDragging)
        #expect(grammarViolation(GestureHarness.scroll(out)) == nil)
    }

    @Test func contentThatFitsBothWaysKeepsEveryTouch() {
        var h = GestureHarness(content: Size(width: 800, height: 480))
        h.down(2, 400, 400); h.send()
        for i in 1...10 { h.advance(ms: 10); h.move(2, 400 - 7 * Double(i), 400 - 10 * Double(i)); h.send() }
        h.advance(ms: 10); h.up(2); h.send()
        h.settle()
        let out = h.take()
        let touches = Self.stream(out).map(\.0)
        #expect(touches.first == .down(Point(x: 400, y: 400)) && touches.last == .up(Point(x: 330, y: 300)))
        #expect(touches.dropFirst().dropLast().allSatisfy { if case .move = $0 { true } else { false } })
        #expect(touches.count == 1 + 10 + 1)  // the 1st report (12.2 px) is past the 12 px slop already
        #expect(GestureHarness.scroll(out).isEmpty && grammarViolation(GestureHarness.scroll(out)) == nil)
    }

    @Test func aScrollingDragAfterTheDelayIsCancelledAndTheGrammarHolds() {
        var h = GestureHarness()
        h.down(3, 400, 400); h.send()
        h.wait(ms: 200)
        for i in 1...10 { h.advance(ms: 10); h.move(3, 400, 400 - 10 * Double(i)); h.send() }
        h.advance(ms: 10); h.up(3); h.send()
        h.settle()
        let out = h.take()
        #expect(Self.stream(out).map(\.0) == [.down(Point(x: 400, y: 400)), .move(Point(x: 400, y: 390)), .cancel])
        #expect(Self.stream(out).allSatisfy { $0.1 == ContactID(3) })
        #expect(grammarViolation(GestureHarness.scroll(out)) == nil)
        #expect(GestureHarness.scroll(out).contains(.willBeginDragging))
    }

    @Test func aSecondFingerOnAContentTouchIsNotTheContents() {
        var h = GestureHarness(configure: { $0.canCancelContentTouches = false })
        h.down(1, 400, 400); h.send()
        h.wait(ms: 200)
        h.down(2, 200, 200); h.send()
        h.advance(ms: 10); h.move(1, 400, 380); h.move(2, 150, 150); h.send()
        h.advance(ms: 10); h.up(2); h.send()
        h.advance(ms: 10); h.up(1); h.send()
        h.settle()
        let stream = Self.stream(h.take())
        #expect(stream.map(\.0) == [.down(Point(x: 400, y: 400)), .move(Point(x: 400, y: 380)), .up(Point(x: 400, y: 380))])
        #expect(stream.allSatisfy { $0.1 == ContactID(1) })
    }
}
