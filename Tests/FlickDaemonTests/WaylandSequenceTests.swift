import FlickCore
@testable import FlickDaemon
import FlickWayland
import Foundation
import Testing

/// Recorded Wayland seat sequences (Tests/Fixtures/wayland, `WAYLAND_DEBUG=1` lines) played
/// through the translator and the whole pipeline on the virtual clock: what the delegate and
/// the journal hear, not only what the translator makes. The surface is 400×240 units drawn at
/// scale 2: every surface unit is 2 px.
@Suite struct WaylandSequenceTests {
    @Test func aTouchTapIsATapWhereTheFingerWas() throws {
        let rig = try WaylandReplayRig("touch-tap.log")
        rig.run()
        let expected = rig.initial.contentPoint(under: Point(x: 400, y: 240))
        #expect(rig.contentTouches.contains(.tap(expected)), "\(rig.contentTouches)")
        #expect(!rig.scrollEvents.contains(.willBeginDragging))
        #expect(rig.gestures == [.tap(expected)])
        #expect(rig.source.takeNotes().isEmpty, "timestamps were offered: no millisecond note")
    }

    @Test func millisecondTimesStillTapAndSaySoOnce() throws {
        let rig = try WaylandReplayRig("touch-tap-ms.log")
        rig.run()
        #expect(rig.gestures == [.tap(rig.initial.contentPoint(under: Point(x: 400, y: 240)))])
        let notes = rig.source.takeNotes()
        #expect(notes.count == 1)
        #expect(notes.first?.contains("milliseconds") == true)
    }

    @Test func aTouchDragMovesTheContentWithTheFingerAndDoesNotFlick() throws {
        let rig = try WaylandReplayRig("touch-drag.log")
        rig.run()
        // Up 100 units = 200 px, held 60 ms before the lift: a drag, no momentum.
        #expect(rig.gestures == [.drag(translation: Vector(dx: 0, dy: -200))], "\(rig.gestures)")
        #expect(!rig.scrollEvents.contains(.willBeginDecelerating))
        // The content follows the finger once the drag began (past the touch slop).
        let moved = rig.view.contentOffset.y - rig.initial.contentOffset.y
        #expect(moved > 150 && moved <= 200, "moved \(moved) px")
        #expect(rig.view.contentOffset.x == rig.initial.contentOffset.x)
    }

    @Test func aTouchDragIsTheSameAsTheEvdevFramesOfIt() throws {
        // The same drag made as frames directly (as the evdev decoder makes them) through the
        // same pipeline: the delegate and the journal hear exactly the same.
        let rig = try WaylandReplayRig("touch-drag.log")
        rig.run()
        let reference = try PipelineRig(size: WaylandReplayRig.panel)
        let id = ContactID(3)
        var t = Instant.seconds(1), y = 360.0
        var frames = [TouchFrame(time: t, contacts: [Contact(id: id, position: Point(x: 400, y: y))], began: [id])]
        for _ in 1...25 {
            t = t + .microseconds(8333)
            y -= 8
            frames.append(TouchFrame(time: t, contacts: [Contact(id: id, position: Point(x: 400, y: y))]))
        }
        frames.append(TouchFrame(time: t + .milliseconds(60), contacts: [], ended: [Contact(id: id, position: Point(x: 400, y: y))]))
        reference.settle(frames)
        let strip = { (outputs: [GestureOutput]) in outputs.filter { if case .transition = $0.kind { false } else { true } } }
        #expect(strip(rig.outputs) == strip(reference.outputs))
    }

    @Test func aTouchFlickGoesOnWithTheFingersVelocity() throws {
        let rig = try WaylandReplayRig("touch-flick.log")
        rig.run()
        // 10 units (20 px) every 8 ms upward: 2500 px/s. Within 2 %: the lift, 1 ms after the
        // last report and where it left the finger, is one more sample standing still, and the
        // fit reads 1.4 % low for it (as for the same frames from evdev).
        guard case let .flick(velocity, _, _)? = rig.gestures.last else {
            Issue.record("expected a flick, got \(rig.gestures)")
            return
        }
        #expect(abs(velocity.dy + 2500) <= 50, "\(velocity)")
        #expect(velocity.dx == 0)
        #expect(rig.scrollEvents.contains(.didEndDecelerating))
        #expect(rig.view.contentOffset.y > rig.initial.contentOffset.y + 240)
    }

    @Test func aCancelMidDragCancelsWithoutMomentumOrTap() throws {
        let rig = try WaylandReplayRig("touch-cancel.log")
        rig.run()
        #expect(rig.gestures == [.cancelled], "\(rig.gestures)")
        #expect(!rig.scrollEvents.contains(.willBeginDecelerating))
        #expect(!rig.view.isDragging && !rig.view.isTracking)
        let v = rig.view
        #expect(v.clampedOffset(v.contentOffset) == v.contentOffset, "rests within bounds")
    }

    @Test func aPointerButtonHeldDragsAsAFinger() throws {
        let rig = try WaylandReplayRig("pointer-drag.log")
        rig.run()
        // Up 60 units = 120 px, held 60 ms: a drag by the pointer's finger.
        #expect(rig.gestures == [.drag(translation: Vector(dx: 0, dy: -120))], "\(rig.gestures)")
        let moved = rig.view.contentOffset.y - rig.initial.contentOffset.y
        #expect(moved > 70 && moved <= 120, "moved \(moved) px")
        // What the content heard of it carries the pointer's id, never a touch's.
        for output in rig.outputs where output.contact != nil {
            #expect(output.contact == WaylandInputTranslator.pointerContact)
        }
    }

    @Test func wheelClicksScrollShortAnimatedStepsThatAddUp() throws {
        let rig = try WaylandReplayRig("wheel.log")
        rig.run()
        // Three detents of GTK's step, 480^(2/3) px each, the later ones added to the scroll
        // under way: 3 × 61.3 px down, animated, no drag.
        let expected = 3 * pow(480.0, 2.0 / 3)
        #expect(abs(rig.view.contentOffset.y - rig.initial.contentOffset.y - expected) < 0.01,
                "offset \(rig.view.contentOffset.y), expected \(expected)")
        #expect(rig.scrollEvents.contains(.didEndScrollingAnimation))
        #expect(!rig.scrollEvents.contains(.willBeginDragging))
        #expect(rig.gestures.allSatisfy { if case .drag = $0 { false } else if case .flick = $0 { false } else { true } })
    }

    @Test func aTouchpadScrollEndsInAFlickWithItsLastVelocity() throws {
        let rig = try WaylandReplayRig("touchpad-scroll.log")
        rig.run()
        // 5 units (10 px) every 8 ms down the content: the fingers' direction is up, 1250 px/s;
        // axis_stop 4 ms after the last scroll. Within 2 %.
        guard case let .flick(velocity, rest, _)? = rig.gestures.last else {
            Issue.record("expected a flick, got \(rig.gestures)")
            return
        }
        #expect(abs(velocity.dy + 1250) <= 25, "\(velocity)")
        #expect(velocity.dx == 0)
        #expect(rig.scrollEvents.first == .willBeginDragging)
        #expect(rig.scrollEvents.contains(.willBeginDecelerating))
        // 15 scrolls of 10 px, then momentum: the view rests where the flick said, further on.
        #expect(rig.view.contentOffset == rest)
        #expect(rig.view.contentOffset.y > rig.initial.contentOffset.y + 150)
    }

    @Test func aTouchpadPinchZoomsAboutThePointer() throws {
        let rig = try WaylandReplayRig("touchpad-pinch.log")
        rig.run()
        // The pointer at (150, 90) units = (300, 180) px: the content under it stays under it
        // on every step, within 0.5 px, though the fingers drift.
        let pointer = Point(x: 300, y: 180)
        let anchor = rig.initial.contentPoint(under: pointer)
        var zooms = 0
        for batch in rig.batches where batch.outputs.contains(where: { $0.kind == .scroll(.didZoom) }) {
            zooms += 1
            let p = batch.view.contentPoint(under: pointer)
            #expect(abs(p.x - anchor.x) <= 0.5 && abs(p.y - anchor.y) <= 0.5, "\(p) vs \(anchor) at zoom \(batch.view.zoomScale)")
        }
        #expect(zooms == 10)
        #expect(abs(rig.view.zoomScale - 2) < 1e-9)
        #expect(rig.gestures.contains(.pinch(fromScale: 1, toScale: rig.view.zoomScale)), "\(rig.gestures)")
        #expect(rig.scrollEvents.contains(.didEndZooming(atScale: rig.view.zoomScale)))
    }
}
