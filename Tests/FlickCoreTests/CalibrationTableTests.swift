import FlickCore
import FlickTestSupport
import Testing

/// The table `### calibrate` in docs/calibrate.md is `CalibrationSession`'s machine: every edge
/// taken through the real machine with tracing on, nothing taken that it lacks, and its diagram
/// drawing the same edges.
@Suite struct CalibrationTableTests {
    let frames = CalibrationSessionTests()

    func session(count: Int = 3) -> CalibrationSession {
        var s = CalibrationSession(count: count, screen: frames.screen)
        s.tracing = true
        _ = s.start(at: .zero)
        return s
    }

    @Test func everyEdgeOfTheTableAndNothingElse() throws {
        let f = frames
        var seen: [Transition] = []
        var s = session()
        for event in [
            f.down(1, 80, 48, 100), f.up(1, 80, 48, 200),                              // touching, then accepted: waiting 1
            f.move([(2, 400, 240), (3, 420, 240)], 300, began: [2, 3]),                   // two fingers: refusing
            CalibrationSession.Event.frame(TouchFrame(time: f.ms(400), contacts: [],     // all up: waiting again
                                                      ended: [Contact(id: ContactID(2), position: Point(x: 400, y: 240)),
                                                              Contact(id: ContactID(3), position: Point(x: 420, y: 240))])),
            f.down(4, 400, 240, 500), f.move([(4, 400, 240), (5, 600, 240)], 510, began: [5]),   // a second finger: refusing
            CalibrationSession.Event.frame(TouchFrame(time: f.ms(600), contacts: [],
                                                      ended: [Contact(id: ContactID(4), position: Point(x: 400, y: 240)),
                                                              Contact(id: ContactID(5), position: Point(x: 600, y: 240))])),
            f.down(6, 400, 240, 700), f.up(6, 400, 240, 800),                           // accepted: waiting 2
            f.down(7, 720, 432, 900), f.up(7, 720, 432, 1000),                          // the last: finished
        ] { _ = s.handle(event) }
        seen += s.takeTransitions()
        #expect(s.state == .finished && s.touches.count == 3)
        // Each live state times out.
        var waiting = session()
        _ = waiting.handle(.timer(.seconds(31)))
        var touching = session()
        _ = touching.handle(f.down(1, 80, 48, 100))
        _ = touching.handle(.timer(.seconds(31)))
        var refusing = session()
        _ = refusing.handle(f.move([(1, 80, 48), (2, 90, 48)], 100, began: [1, 2]))
        _ = refusing.handle(.timer(.seconds(31)))
        for var timedOut in [waiting, touching, refusing] {
            #expect(timedOut.state == .failed)
            seen += timedOut.takeTransitions()
        }
        let table = try StateTable.load(.calibrate, from: "calibrate.md")
        let problems = table.disagreements(with: seen)
        #expect(problems.isEmpty, "\(problems)")
        let diagram = try StateTable.diagramEdges(inDocsFile: "calibrate.md", states: table.states)
        #expect(diagram == table.edges.filter { $0.from != $0.to }, "\(diagram.symmetricDifference(table.edges))")
    }

    @Test func withoutTracingNothingIsKept() {
        var s = CalibrationSession(count: 3, screen: frames.screen)
        _ = s.start(at: .zero)
        _ = s.handle(frames.down(1, 80, 48, 100))
        #expect(s.takeTransitions().isEmpty)
    }
}
