@testable import FlickCore
import Testing

/// The owner of touch prediction on its own: what a frame shows of a drag, when frames latch,
/// the frames owed after a prediction, and the steadying of the shown offset.
@Suite struct TouchPredictionTests {
    static let id = ContactID(1)

    /// A recogniser on an 800×480 view of a tall page, 4 px per mm.
    static func recognizer() throws -> GestureRecognizer {
        let view = try ScrollView(boundsSize: Size(width: 800, height: 480), contentSize: Size(width: 800, height: 6000))
        var configuration = GestureConfiguration()
        configuration.pixelsPerMillimetre = 4
        return GestureRecognizer(scrollView: view, configuration: configuration)
    }

    /// One finger's report at `ms`, at y (x = 400).
    static func report(_ ms: Double, _ y: Double, began: Bool = false) -> TouchFrame {
        TouchFrame(time: .milliseconds(ms), contacts: [Contact(id: id, position: Point(x: 400, y: y))],
                   began: began ? [id] : [])
    }

    /// A finger dragging up at 1000 px/s, reported every 8 ms from 0 to `lastMs`.
    static func drag(_ prediction: inout TouchPrediction, _ recognizer: inout GestureRecognizer, through lastMs: Double) {
        var ms = 0.0
        while ms <= lastMs {
            _ = recognizer.handle(prediction.take(report(ms, 400 - ms, began: ms == 0)))
            ms += 8
        }
    }

    @Test func offShowsTheModelAndNeverLatches() throws {
        var recognizer = try Self.recognizer()
        var prediction = TouchPrediction(.off)
        Self.drag(&prediction, &recognizer, through: 80)
        #expect(recognizer.isTouching && recognizer.scrollView.isDragging)
        let shown = prediction.frame(at: .milliseconds(90), now: .milliseconds(84), of: recognizer)
        #expect(shown.contentOffset == recognizer.scrollView.contentOffset)
        #expect(shown.view.contentOffset == recognizer.scrollView.contentOffset)
        #expect(!prediction.isProjecting)
        #expect(!prediction.latchesFrame(of: recognizer))
        #expect(prediction.nextFrame(after: .milliseconds(90), of: recognizer)
            == recognizer.scrollView.nextFrameTime(after: .milliseconds(90)))
    }

    @Test func aDragIsShownAheadOfTheModelAndOwesTheNextFrame() throws {
        var recognizer = try Self.recognizer()
        var prediction = TouchPrediction(TouchConditioning(smoothing: nil, maximumPrediction: .milliseconds(15)))
        Self.drag(&prediction, &recognizer, through: 80)
        #expect(prediction.latchesFrame(of: recognizer))
        let model = recognizer.scrollView.contentOffset
        let shown = prediction.frame(at: .milliseconds(90), now: .milliseconds(86), of: recognizer)
        // The finger moves up 1 px a ms: 10 ms after its latest report the content is 10 px on.
        #expect(abs(shown.contentOffset.y - (model.y + 10)) < 1e-9, "\(shown.contentOffset) after \(model)")
        #expect(recognizer.scrollView.contentOffset == model, "the model keeps the reports")
        #expect(prediction.isProjecting)
        #expect(prediction.nextFrame(after: .milliseconds(90), of: recognizer) == .milliseconds(90))
    }

    @Test func aLiftEndsLatchingAndTheFramesOwed() throws {
        var recognizer = try Self.recognizer()
        var prediction = TouchPrediction(TouchConditioning(smoothing: nil, maximumPrediction: .milliseconds(15)))
        Self.drag(&prediction, &recognizer, through: 80)
        _ = prediction.frame(at: .milliseconds(90), now: .milliseconds(86), of: recognizer)
        #expect(prediction.isProjecting)
        let lift = TouchFrame(time: .milliseconds(88), contacts: [], ended: [Contact(id: Self.id, position: Point(x: 400, y: 312))])
        _ = recognizer.handle(prediction.take(lift))
        #expect(!prediction.latchesFrame(of: recognizer))
        let shown = prediction.frame(at: .milliseconds(106), now: .milliseconds(102), of: recognizer)
        #expect(shown.contentOffset == recognizer.scrollView.contentOffset)
        #expect(!prediction.isProjecting && prediction.lastFrame == nil)
    }

    @Test func aReconfigurationKeepsTheFramesOwed() throws {
        var recognizer = try Self.recognizer()
        var prediction = TouchPrediction(TouchConditioning(smoothing: nil, maximumPrediction: .milliseconds(15)))
        Self.drag(&prediction, &recognizer, through: 80)
        _ = prediction.frame(at: .milliseconds(90), now: .milliseconds(86), of: recognizer)
        prediction.conditioning = TouchConditioning(smoothing: nil, maximumPrediction: .milliseconds(10))
        #expect(prediction.isProjecting && prediction.lastFrame != nil)
    }

    // MARK: Steadying

    @Test func theShownOffsetNeverStepsBackAgainstTheHeading() {
        let last = TouchPrediction.LastFrame(model: Point(x: 0, y: 100), shown: Point(x: 0, y: 110), zoomScale: 1)
        // The model moved on by 8 px down; a prediction 3 px behind the last shown is held there,
        // sideways as it was.
        let held = TouchPrediction.held(Point(x: 2, y: 107), model: Point(x: 0, y: 108), after: last)
        #expect(held == Point(x: 2, y: 110))
        // Ahead of the last shown, it is shown as it is.
        #expect(TouchPrediction.held(Point(x: 2, y: 115), model: Point(x: 0, y: 108), after: last) == Point(x: 2, y: 115))
        // A model that stands still gives no heading: nothing to hold against.
        #expect(TouchPrediction.held(Point(x: 0, y: 90), model: Point(x: 0, y: 100), after: last) == Point(x: 0, y: 90))
    }

    @Test func theShownOffsetNeverStepsBackOnAnyHeading() {
        let last = TouchPrediction.LastFrame(model: Point(x: 10, y: 20), shown: Point(x: 14, y: 26), zoomScale: 1)
        for (hx, hy) in [(1.0, 0.0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 2), (3, -1), (-2, -2), (0.1, -5)] {
            let model = Point(x: 10 + hx, y: 20 + hy)
            let heading = model - last.model
            let unit = heading * (1 / heading.length)
            for dx in stride(from: -6.0, through: 6, by: 1.5) {
                for dy in stride(from: -6.0, through: 6, by: 1.5) {
                    let shown = TouchPrediction.held(Point(x: 14 + dx, y: 26 + dy), model: model, after: last)
                    let step = shown - last.shown
                    #expect(step.dx * unit.dx + step.dy * unit.dy >= -1e-9, "heading \(heading), \(dx), \(dy): \(shown)")
                }
            }
        }
    }

    /// A drag reported with a few pixels of disagreement between times and positions (the ELAN
    /// and 3M panels), shown at 60 Hz with frames latched 4 ms before their vblanks: no frame
    /// that follows a prediction steps back against the way the model went.
    @Test func aShakyDragIsShownWithoutStepsBack() throws {
        var recognizer = try Self.recognizer()
        var prediction = TouchPrediction(TouchConditioning(smoothing: nil, maximumPrediction: .milliseconds(15)))
        let wobble = [0.0, 5, -4, 3, -6, 1, 6, -3]
        var reports: [TouchFrame] = []
        for i in 0..<60 {
            let ms = Double(i) * 8 + (i.isMultiple(of: 3) ? 1 : 0)
            reports.append(Self.report(ms, 450 - Double(i) * 8 + wobble[i % wobble.count], began: i == 0))
        }
        var next = reports[...]
        var vblank = 50.0
        var previous: (model: Point, shown: Point)?
        var checked = 0
        while vblank < 470 {
            let latch = vblank - 4
            while let report = next.first, report.time <= .milliseconds(latch) {
                _ = recognizer.handle(prediction.take(report))
                next = next.dropFirst()
            }
            let model = recognizer.scrollView.contentOffset
            let shown = prediction.frame(at: .milliseconds(vblank), now: .milliseconds(latch), of: recognizer)
            if prediction.isProjecting, let previous, model != previous.model {
                checked += 1
                let heading = model - previous.model
                let step = shown.contentOffset - previous.shown
                #expect((step.dx * heading.dx + step.dy * heading.dy) / heading.length >= -1e-9,
                        "at \(vblank) ms: \(previous.shown) → \(shown.contentOffset)")
            }
            previous = prediction.isProjecting ? (model, shown.contentOffset) : nil
            vblank += 1000.0 / 60
        }
        #expect(checked > 10, "\(checked) frames after a prediction")
    }

    /// A finger that brakes hard just after a frame showed it far ahead: the next frame holds
    /// the content where that one showed it, though the model moved on.
    @Test func aSuddenStopIsHeldWhereTheLastFrameShowedIt() throws {
        var recognizer = try Self.recognizer()
        var prediction = TouchPrediction(TouchConditioning(smoothing: nil, maximumPrediction: .milliseconds(15)))
        // 2000 px/s up, reported every 8 ms.
        for ms in stride(from: 0.0, through: 80, by: 8) {
            _ = recognizer.handle(prediction.take(Self.report(ms, 450 - 2 * ms, began: ms == 0)))
        }
        let first = prediction.frame(at: .milliseconds(95), now: .milliseconds(84), of: recognizer)
        #expect(prediction.isProjecting)
        let before = recognizer.scrollView.contentOffset
        #expect(abs(first.contentOffset.y - (before.y + 30)) < 1e-9, "15 ms ahead: \(first.contentOffset) after \(before)")
        // The next report has moved 1 px: the finger all but stopped.
        _ = recognizer.handle(prediction.take(Self.report(88, 450 - 160 - 1)))
        #expect(recognizer.scrollView.contentOffset.y == before.y + 1)
        let second = prediction.frame(at: .milliseconds(100), now: .milliseconds(90), of: recognizer)
        #expect(prediction.isProjecting)
        #expect(second.view.contentOffset.y < first.contentOffset.y, "the prediction alone steps back")
        #expect(second.contentOffset == first.contentOffset, "held: \(second.contentOffset)")
    }
}
