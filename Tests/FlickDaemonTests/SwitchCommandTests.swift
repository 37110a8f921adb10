import FlickControl
import FlickCore
@testable import FlickDaemon
import Testing

/// Issue 21, part 4: UIScrollView's switches as config keys (`scroll.scroll_enabled`,
/// `scroll.scrolls_to_top`, `gestures.delays_content_touches`,
/// `gestures.can_cancel_content_touches`) and control commands (`scroll-enabled`,
/// `scrolls-to-top`, `delays-content-touches`, `can-cancel-content-touches`), through the
/// pipeline as the daemon builds it.
@Suite struct SwitchCommandTests {
    let start = Instant.seconds(5)

    func content(_ rig: PipelineRig) -> [ContentTouch] {
        rig.outputs.compactMap { if case let .content(c) = $0.kind { c } else { nil } }
    }

    /// The content's moves of `dragFrames(… at: 100, 150, by: 0, -10 …)`, for the given steps.
    func moves(_ steps: ClosedRange<Int>) -> [ContentTouch] {
        steps.map { .move(Point(x: 100, y: 150 - 10 * Double($0))) }
    }

    @Test func theConfigKeysReachTheViewAndTheRecogniser() throws {
        let defaults = Configuration()
        #expect(defaults.scrollEnabled && defaults.scrollsToTop && defaults.gestures.delaysContentTouches
            && defaults.gestures.canCancelContentTouches)
        let c = try ConfigLoader.parse("""
            [scroll]
            scroll_enabled = false
            scrolls_to_top = false
            [gestures]
            delays_content_touches = false
            can_cancel_content_touches = false
            """, path: "flickd.toml")
        #expect(!c.scrollEnabled && !c.scrollsToTop && !c.gestures.delaysContentTouches && !c.gestures.canCancelContentTouches)
        let rig = try PipelineRig(configuration: c, at: start)
        #expect(!rig.view.isScrollEnabled && !rig.view.scrollsToTop)
        #expect(!rig.pipeline.recognizer.configuration.delaysContentTouches)
        #expect(!rig.pipeline.recognizer.configuration.canCancelContentTouches)
        for key in ["scroll.scroll_enabled", "scroll.scrolls_to_top", "gestures.delays_content_touches"] {
            let parts = key.split(separator: ".")
            #expect(throws: (any Error).self) { try ConfigLoader.parse("[\(parts[0])]\n\(parts[1]) = 1\n", path: "flickd.toml") }
        }
    }

    @Test func scrollEnabledOffMakesADragTheContentsAndOnScrollsAgain() throws {
        let rig = try PipelineRig(at: start)
        let commands = rig.commands()
        let reply = commands.handle(try ControlCommand(ControlRequest(id: 1, cmd: "scroll-enabled", enabled: false)), id: 1)
        #expect(reply.ok == true && !rig.view.isScrollEnabled)
        rig.settle(dragFrames(from: start + .seconds(1), at: 100, 150, by: 0, -10, steps: 10))
        // Held back until past the 18 px slop (y 130), then every move and the up.
        #expect(content(rig) == [.down(Point(x: 100, y: 150))] + moves(2...10) + [.up(Point(x: 100, y: 50))])
        #expect(rig.scrollEvents.isEmpty && rig.view.contentOffset == .zero)
        rig.outputs = []
        _ = commands.handle(.setSwitch(.scrollEnabled, true), id: 2)
        rig.settle(dragFrames(from: start + .seconds(3), at: 100, 150, by: 0, -10, steps: 10))
        #expect(content(rig).isEmpty && rig.view.contentOffset.y > 80)
    }

    @Test func scrollsToTopOffMakesTheStripAnOrdinaryTouch() throws {
        var c = Configuration()
        c.gestures.scrollToTopStripHeight = 20
        let rig = try PipelineRig(configuration: c, at: start)
        _ = rig.pipeline.update(at: start) { v in try? v.setContentOffset(Point(x: 0, y: 500), animated: false, at: start) }
        let commands = rig.commands()
        #expect(commands.handle(try ControlCommand(ControlRequest(cmd: "scrolls-to-top", enabled: false)), id: 1).ok == true)
        #expect(!rig.view.scrollsToTop)
        let finger = ContactID(1), t = start + .seconds(1)
        rig.settle([TouchFrame(time: t, contacts: [Contact(id: finger, position: Point(x: 50, y: 10))], began: [finger]),
                    TouchFrame(time: t + .milliseconds(80), contacts: [], ended: [Contact(id: finger, position: Point(x: 50, y: 10))])])
        #expect(content(rig) == [.down(Point(x: 50, y: 510)), .up(Point(x: 50, y: 510)), .tap(Point(x: 50, y: 510))])
        #expect(rig.view.contentOffset.y == 500)
        // The command is refused with the reason, not answered ok with nothing moving.
        let refused = commands.handle(.scrollToTop(animated: true), id: 2)
        #expect(refused.ok == false && refused.error?.hasPrefix("scrolls-to-top is off") == true, "\(refused)")
        #expect(rig.view.contentOffset.y == 500 && !rig.view.isScrolling)
        _ = commands.handle(.setSwitch(.scrollsToTop, true), id: 3)
        #expect(commands.handle(.scrollToTop(animated: true), id: 4).ok == true && rig.view.isScrolling)
    }

    @Test func delaysAndCancelCommandsChangeTheNextTouch() throws {
        let rig = try PipelineRig(at: start)
        let commands = rig.commands()
        #expect(commands.handle(try ControlCommand(ControlRequest(cmd: "delays-content-touches", enabled: false)), id: 1).ok == true)
        #expect(commands.handle(try ControlCommand(ControlRequest(cmd: "can-cancel-content-touches", enabled: false)), id: 2).ok == true)
        #expect(!rig.pipeline.recognizer.configuration.delaysContentTouches)
        #expect(!rig.pipeline.recognizer.configuration.canCancelContentTouches)
        // Sent at once, and kept by the content when it moves: nothing scrolls.
        rig.settle(dragFrames(from: start + .seconds(1), at: 100, 150, by: 0, -10, steps: 10))
        #expect(content(rig) == [.down(Point(x: 100, y: 150))] + moves(1...10) + [.up(Point(x: 100, y: 50))])
        #expect(rig.scrollEvents.isEmpty)
        // Cancelling allowed again: the drag takes the touch back and scrolls.
        rig.outputs = []
        _ = commands.handle(.setSwitch(.canCancelContentTouches, true), id: 3)
        rig.settle(dragFrames(from: start + .seconds(3), at: 100, 150, by: 0, -10, steps: 10))
        #expect(content(rig) == [.down(Point(x: 100, y: 150))] + moves(1...1) + [.cancel])
        #expect(rig.scrollEvents.first == .willBeginDragging && rig.view.contentOffset.y > 80)
    }

    @Test func aSwitchCommandNeedsEnabled() throws {
        for which in ControlCommand.Switch.allCases {
            #expect(ControlCommand.names.contains(which.rawValue))
            #expect(throws: ControlError.missingField(command: which.rawValue, field: "enabled")) {
                try ControlCommand(ControlRequest(cmd: which.rawValue))
            }
            #expect(try ControlCommand(ControlRequest(cmd: which.rawValue, enabled: true)) == .setSwitch(which, true))
        }
    }
}
