import FlickTestSupport
import Testing
@testable import FlickCore

/// The table `### gesture` in docs/gesture-recognizer.md is the recogniser's machine: every edge
/// taken through the real recogniser with tracing on, nothing taken that it lacks, and its
/// diagram drawing the same edges.
@Suite struct GestureTableTests {
    let t0 = Instant.seconds(100)
    let a = ContactID(1), b = ContactID(2)

    func contact(_ id: ContactID, _ x: Double, _ y: Double, _ tool: ToolType = .finger) -> Contact {
        Contact(id: id, position: Point(x: x, y: y), tool: tool)
    }

    /// Frames through a tracing recogniser; its transitions, in order.
    func run(_ frames: [TouchFrame]) -> [Transition] {
        var view = try! ScrollView(boundsSize: Size(width: 800, height: 480), contentSize: Size(width: 800, height: 6000))
        try! view.setZoomScaleLimits(minimum: 1, maximum: 4)
        var configuration = GestureConfiguration()
        configuration.pixelsPerMillimetre = 4
        var recognizer = GestureRecognizer(scrollView: view, configuration: configuration)
        recognizer.tracing = true
        var outputs: [GestureOutput] = []
        for frame in frames { outputs += recognizer.handle(frame) }
        outputs += recognizer.fireTimers(upTo: t0 + .seconds(5))
        return outputs.compactMap { if case let .transition(t) = $0.kind, t.machine == .gesture { t } else { nil } }
    }

    func at(_ ms: Int64) -> Instant { t0 + .milliseconds(ms) }

    /// One finger down and dragging (beyond the slop), then `rest`.
    func dragging(_ rest: [TouchFrame]) -> [TouchFrame] {
        [TouchFrame(time: at(0), contacts: [contact(a, 100, 300)], began: [a]),
         TouchFrame(time: at(10), contacts: [contact(a, 100, 200)])] + rest
    }

    /// Two fingers pinching after a drag, then `rest`.
    func pinching(_ rest: [TouchFrame]) -> [TouchFrame] {
        dragging([TouchFrame(time: at(20), contacts: [contact(a, 100, 200), contact(b, 300, 200)], began: [b]),
                  TouchFrame(time: at(30), contacts: [contact(a, 80, 200), contact(b, 340, 200)])] + rest)
    }

    @Test func everyEdgeOfTheTableAndNothingElse() throws {
        var seen: [Transition] = []
        seen += run(dragging([TouchFrame(time: at(20), contacts: [], ended: [contact(a, 100, 200)])]))
        seen += run(dragging([TouchFrame(time: at(20), contacts: [], ended: [contact(a, 100, 200)], cancelled: [a])]))
        seen += run(dragging([TouchFrame(time: at(20), contacts: [contact(a, 100, 200, .palm)])]))
        seen += run(pinching([TouchFrame(time: at(40), contacts: [contact(a, 80, 200)], ended: [contact(b, 340, 200)])]))
        seen += run(pinching([TouchFrame(time: at(40), contacts: [contact(b, 340, 200)], ended: [contact(a, 80, 200)],
                                         cancelled: [a])]))
        seen += run(pinching([TouchFrame(time: at(40), contacts: [contact(a, 80, 200), contact(b, 340, 200, .palm)])]))
        // A palm down while idle, and a third finger while pinching: ignored, no change.
        seen += run([TouchFrame(time: at(0), contacts: [contact(a, 10, 10, .palm)], began: [a])])
        seen += run(pinching([TouchFrame(time: at(40), contacts: [contact(a, 80, 200), contact(b, 340, 200), contact(ContactID(3), 5, 5)],
                                         began: [ContactID(3)])]))
        let table = try StateTable.load(.gesture, from: "gesture-recognizer.md")
        let problems = table.disagreements(with: seen)
        #expect(problems.isEmpty, "\(problems)")
        let diagram = try StateTable.diagramEdges(inDocsFile: "gesture-recognizer.md", states: table.states)
        #expect(diagram == table.edges.filter { $0.from != $0.to }, "\(diagram.symmetricDifference(table.edges))")
    }

    @Test func withoutTracingNothingIsTraced() {
        var view = try! ScrollView(boundsSize: Size(width: 800, height: 480), contentSize: Size(width: 800, height: 6000))
        view.tracing = false
        var recognizer = GestureRecognizer(scrollView: view)
        var outputs: [GestureOutput] = []
        for frame in dragging([TouchFrame(time: at(20), contacts: [], ended: [contact(a, 100, 200)])]) {
            outputs += recognizer.handle(frame)
        }
        #expect(!outputs.isEmpty && !outputs.contains { if case .transition = $0.kind { true } else { false } })
    }
}
