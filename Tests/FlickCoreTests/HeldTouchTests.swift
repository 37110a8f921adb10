import Testing
@testable import FlickCore

/// A finger held past the long press and then moved scrolls, as UIKit's
/// `canCancelContentTouches` lets it; the content keeps a touch it claimed (the recogniser's
/// `claim`, the control protocol's), and a claim for a touch it does not have is refused with
/// why, changing nothing.
@Suite struct HeldTouchTests {
    /// The panel's 12 px slop (3 mm at 4 px/mm).
    static let slop = 12.0

    /// Finger 1 down at (400, 400), held 700 ms: the content has had its down and its long press.
    static func held(configure: (inout GestureConfiguration) -> Void = { _ in }) -> GestureHarness {
        var h = GestureHarness(configure: configure)
        h.down(1, 400, 400); h.send()
        h.wait(ms: 700)
        return h
    }

    /// Moves finger 1 up from y = 400 by 10 px a report, 10 ms apart, to y = 100, then lifts.
    static func dragUp300(_ h: inout GestureHarness, beforeLift: (GestureHarness) -> Void = { _ in }) {
        for i in 1...30 { h.advance(ms: 10); h.move(1, 400, 400 - 10 * Double(i)); h.send() }
        beforeLift(h)
        h.advance(ms: 10); h.up(1); h.send()
        h.settle()
    }

    @Test func aFingerHeldPastTheLongPressThenDraggedScrollsFromTheSlopWithoutAJump() throws {
        var h = Self.held()
        #expect(GestureHarness.content(h.outputs) == [.down(Point(x: 400, y: 400)), .longPress(Point(x: 400, y: 400))])
        var offsetBeforeLift = -1.0
        Self.dragUp300(&h) { offsetBeforeLift = $0.view.contentOffset.y }
        let out = h.take()
        // The move within the slop reaches the content, then the touch is taken back.
        #expect(GestureHarness.content(out) == [.down(Point(x: 400, y: 400)), .longPress(Point(x: 400, y: 400)),
                                                .move(Point(x: 400, y: 390)), .cancel])
        let cancel = try #require(out.firstIndex { $0.kind == .content(.cancel) })
        let drag = try #require(out.firstIndex { $0.kind == .scroll(.willBeginDragging) })
        #expect(cancel < drag)
        // The content followed the finger from where it crossed the slop: 300 px less the slop.
        #expect(abs(offsetBeforeLift - (300 - Self.slop)) < 1e-9)
        let first = try #require(out.first { if case .scroll(.didScroll) = $0.kind { true } else { false } })
        #expect(abs((first.state?.contentOffset.y ?? 0) - (20 - Self.slop)) < 1e-9)
        #expect(grammarViolation(GestureHarness.scroll(out)) == nil)
        let names = GestureHarness.gestures(out).map(\.name)
        #expect(names.first == "long-press" && ["drag", "flick"].contains(names.last ?? ""), "\(names)")
    }

    @Test func aClaimAfterTheLongPressKeepsTheTouchTheContents() {
        var h = Self.held()
        h.recognizer.tracing = true
        let claim = h.recognizer.claim(ContactID(1), at: h.now)
        #expect(claim.refusal == nil)
        #expect(claim.outputs.map(\.kind) == [.transition(Transition(.tap, at: h.now, from: "longPressed", on: "claim", to: "owned"))])
        h.recognizer.tracing = false
        Self.dragUp300(&h)
        let out = h.take()
        let moves = (1...30).map { ContentTouch.move(Point(x: 400, y: 400 - 10 * Double($0))) }
        #expect(GestureHarness.content(out) == [.down(Point(x: 400, y: 400)), .longPress(Point(x: 400, y: 400))] + moves
                + [.up(Point(x: 400, y: 100))])
        #expect(GestureHarness.scroll(out).isEmpty && h.view.contentOffset == .zero)
        #expect(GestureHarness.gestures(out).map(\.name) == ["long-press"])
    }

    @Test func aClaimAtTheDownKeepsTheTouchAndNoLongPressFollows() {
        var h = GestureHarness()
        h.down(1, 400, 400); h.send()
        h.wait(ms: 200)
        #expect(GestureHarness.content(h.outputs) == [.down(Point(x: 400, y: 400))])
        #expect(h.recognizer.claim(ContactID(1), at: h.now).refusal == nil)
        #expect(h.recognizer.nextDeadline == nil)
        h.wait(ms: 600)
        // A second claim of a touch the content keeps is taken too.
        #expect(h.recognizer.claim(ContactID(1), at: h.now).refusal == nil)
        Self.dragUp300(&h)
        let out = h.take()
        #expect(!GestureHarness.content(out).contains(.longPress(Point(x: 400, y: 400))))
        #expect(GestureHarness.content(out).last == .up(Point(x: 400, y: 100)))
        #expect(GestureHarness.scroll(out).isEmpty && h.view.contentOffset == .zero)
    }

    @Test func withoutCanCancelAHeldFingerThatMovesStaysTheContents() {
        var h = Self.held { $0.canCancelContentTouches = false }
        Self.dragUp300(&h)
        let out = h.take()
        #expect(GestureHarness.content(out).count == 2 + 30 + 1 && !GestureHarness.content(out).contains(.cancel))
        #expect(GestureHarness.scroll(out).isEmpty && h.view.contentOffset == .zero)
    }

    @Test func aClaimForATouchTheContentDoesNotHaveIsRefusedAndChangesNothing() {
        // Nothing down; another finger than the followed one.
        var h = GestureHarness()
        #expect(h.recognizer.claim(ContactID(1), at: h.now).refusal == .notDown)
        h.down(1, 400, 400); h.send()
        #expect(h.recognizer.claim(ContactID(2), at: h.now).refusal == .notDown)
        // Held back: the content has not had the down; it gets it when the delay runs out.
        #expect(h.recognizer.claim(ContactID(1), at: h.now).refusal == .heldBack)
        h.wait(ms: 200)
        #expect(GestureHarness.content(h.take()) == [.down(Point(x: 400, y: 400))])
        // Taken back by a drag: refused, and the drag goes on.
        h.advance(ms: 10); h.move(1, 400, 370); h.send()
        #expect(h.recognizer.claim(ContactID(1), at: h.now).refusal == .scrolls)
        let before = h.view.contentOffset.y
        h.advance(ms: 10); h.move(1, 400, 360); h.send()
        #expect(h.view.contentOffset.y == before + 10)
        // A pinch's second finger is not the content's; its first scrolls.
        h.down(2, 500, 360); h.send()
        #expect(h.recognizer.claim(ContactID(2), at: h.now).refusal == .notDown)
        #expect(h.recognizer.claim(ContactID(1), at: h.now).refusal == .scrolls)
        h.up(1); h.up(2); h.send()
        h.settle()
        // Lifted: no touch with that id is down any more.
        #expect(h.recognizer.claim(ContactID(1), at: h.now).refusal == .notDown)
        #expect(h.diagnostics.isEmpty, "\(h.diagnostics)")
    }

    @Test func aTouchThatStopsMotionOrLandsInTheTopStripCannotBeClaimed() {
        var h = GestureHarness(configure: { $0.scrollToTopStripHeight = 40 })
        // A flick, then a touch while the content still moves fast: it only stops it.
        h.down(1, 400, 400); h.send()
        for i in 1...8 { h.advance(ms: 8); h.move(1, 400, 400 - 20 * Double(i)); h.send() }
        h.advance(ms: 8); h.up(1); h.send()
        h.wait(ms: 50)
        #expect(h.view.isDecelerating)
        h.down(2, 400, 300); h.send()
        #expect(h.recognizer.claim(ContactID(2), at: h.now).refusal == .stoppedMotion)
        h.up(2); h.send()
        h.settle()
        // The strip's touches are never the content's, delivered or not.
        h.down(3, 400, 10); h.send()
        h.wait(ms: 300)
        #expect(h.recognizer.claim(ContactID(3), at: h.now).refusal == .topStrip)
        h.up(3); h.send()
        h.settle()
        #expect(h.diagnostics.isEmpty, "\(h.diagnostics)")
    }
}
