import FlickCore
import FlickDaemon
import FlickDisplay
import FlickInput
import Foundation

/// Issue 20, parts 4 and 5: how far the content trails the finger when a frame is shown, with
/// touch resampling off and on; what smoothing does to a held finger, to a moving one and to a
/// flick's release. All on virtual time through the real pipeline: deterministic, so no
/// interleaving is needed — both contestants see the same reports and the same vblanks.
enum FeelBench {
    /// Lag and overshoot of one path with one setting.
    struct Outcome {
        /// Per frame shown while the finger drags: |shown − where the finger was at the vblank|.
        var lags: [Double] = []
        /// Per frame: how far the shown content lies beyond what the following report shows,
        /// along the way the content was moving (0 when it does not).
        var overshoots: [Double] = []
        /// Per frame: how far the shown content stepped back against the finger's way (jitter).
        var backSteps: [Double] = []

        /// Pools another run's frames with these.
        mutating func add(_ other: Outcome) {
            lags += other.lags
            overshoots += other.overshoots
            backSteps += other.backSteps
        }
    }

    /// The phases, in report intervals, at which a generated path's reports are played against
    /// the vblanks.
    static let phases = [0, 0.25, 0.5, 0.75]

    /// Runs `path` through the pipeline at `refreshRate` with resampling `resample` and
    /// smoothing `smooth`, measuring every frame presented while the finger drags.
    static func measure(_ path: FingerPath, content: Content, refreshRate: Double = 60,
                        resample: Bool, smooth: Bool, maximumPrediction: Duration? = nil) throws -> Outcome {
        var configuration = Configuration()
        configuration.resampleTouches = resample
        configuration.smoothTouches = smooth
        if let maximumPrediction { configuration.maximumPrediction = maximumPrediction }
        let home = Point(x: (content.size.width - path.screen.width) / 2, y: (content.size.height - path.screen.height) / 2)
        let recorder = Recorder(path: path)
        _ = try run(path, content: content, configuration: configuration, home: home, refreshRate: refreshRate, sink: recorder)
        return recorder.outcome
    }

    /// Plays `path` through a pipeline built as every caller builds one, on a headless display
    /// at `refreshRate` showing `content` from `home`, until everything rests.
    /// - Returns: the pipeline at rest (nil when the display cannot be made or nothing is played).
    static func run(_ path: FingerPath, content: Content, configuration: Configuration, home: Point,
                    refreshRate: Double = 60, sink: any PipelineSink) throws -> Pipeline? {
        guard let output = HeadlessOutput(size: PixelSize(width: Int(path.screen.width), height: Int(path.screen.height)),
                                          refreshRate: refreshRate),
              let first = path.frames.first else { return nil }
        let pipeline = try PipelineBuilder(configuration: configuration)
            .build(output: output, content: content, input: .source(ScriptedTouches(path.frames), pixelsPerMillimetre: nil),
                   at: first.time - .milliseconds(100), restore: (home, 1))
        pipeline.sink = sink
        pipeline.start()
        _ = VirtualRunner.run(pipeline)
        return pipeline
    }

    final class Recorder: PipelineSink {
        let path: FingerPath
        var outcome = Outcome()
        private var previous: Point?
        private var previousIdeal: Point?
        private var heading: Vector?

        init(path: FingerPath) { self.path = path }

        func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {}
        func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) {}

        func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) {
            guard let shown = pipeline.presenter.shown?.contentOffset else { return }
            defer { previous = shown }
            let recognizer = pipeline.recognizer
            let view = recognizer.scrollView
            guard view.isDragging, !view.isZooming, let finger = path.truth(vblank),
                  let next = path.frames.first(where: { $0.time >= vblank }),
                  let reported = next.contacts.first(where: { $0.id == finger.id }) else { return }
            // Where the content would be with the finger at a place: the model moved there.
            func offset(_ c: Contact, at t: Instant) -> Point {
                recognizer.projected(TouchFrame(time: t, contacts: [c])).contentOffset
            }
            let ideal = offset(finger, at: vblank)
            let following = offset(reported, at: next.time)
            // Where the finger went from the latest report before the vblank to the following
            // report, as offsets: the furthest of them along the way is what the shown content
            // must not pass (a frame showing a report shows where the finger was; at a reversal
            // the following report lies back along the new way, and the turn is the bound).
            var reached = [ideal, following]
            let latest = path.frames.last(where: { $0.time <= vblank })?.time ?? vblank
            var s = latest
            while s < next.time {
                if let c = path.truth(s) { reached.append(offset(c, at: s)) }
                s = s + .milliseconds(1)
            }
            // Rubber-banding is not following the finger 1:1; measure inside the bounds only.
            guard view.clampedOffset(ideal) == ideal, view.clampedOffset(shown) == shown else { return }
            outcome.lags.append(shown.distance(to: ideal))
            // The way the finger was going: the last real motion of more than half a pixel.
            if let before = previousIdeal, ideal.distance(to: before) > 0.5 { heading = ideal - before }
            previousIdeal = ideal
            guard let heading, let previous else { return }
            let unit = heading * (1 / heading.length)
            func along(_ p: Point) -> Double { p.x * unit.dx + p.y * unit.dy }
            let over = max(0, along(shown) - reached.map(along).max()!)
            outcome.overshoots.append(over)
            let step = shown - previous
            outcome.backSteps.append(max(0, -(step.dx * unit.dx + step.dy * unit.dy)))
        }
    }

    /// Held-touch jitter: the RMS distance of a still finger's reports from the mean of their
    /// neighbours within 40 ms, raw and smoothed. A finger is held while its reports stay within
    /// 3 px of where the hold began, for at least 150 ms.
    static func heldJitter(_ frames: [TouchFrame], parameters: OneEuroFilter.Parameters) -> (raw: Double, smoothed: Double, samples: Int) {
        var smoother = TouchSmoother(parameters)
        var tracks: [ContactID: [(time: Instant, raw: Point, smoothed: Point)]] = [:]
        var finished: [[(time: Instant, raw: Point, smoothed: Point)]] = []
        for frame in frames {
            let smoothed = smoother.smooth(frame)
            for (raw, out) in zip(frame.contacts, smoothed.contacts) {
                tracks[raw.id, default: []].append((frame.time, raw.position, out.position))
            }
            for contact in frame.ended {
                if let track = tracks.removeValue(forKey: contact.id) { finished.append(track) }
            }
        }
        finished += tracks.values
        var rawSquares = 0.0, smoothSquares = 0.0, n = 0
        for track in finished {
            var i = 0
            while i < track.count {
                var j = i
                while j + 1 < track.count, track[j + 1].raw.distance(to: track[i].raw) <= 3 { j += 1 }
                if (track[j].time - track[i].time) >= .milliseconds(150) {
                    // Jitter is what moves faster than a hand: each report's distance from the
                    // mean of the reports within 40 ms around it (a slow drift is not shimmer).
                    let run = Array(track[i...j])
                    for k in run.indices {
                        let near = run.filter { abs(($0.time - run[k].time).inMilliseconds) <= 40 }
                        let count = Double(near.count)
                        let rawMean = Point(x: near.reduce(0) { $0 + $1.raw.x } / count, y: near.reduce(0) { $0 + $1.raw.y } / count)
                        let smoothMean = Point(x: near.reduce(0) { $0 + $1.smoothed.x } / count,
                                               y: near.reduce(0) { $0 + $1.smoothed.y } / count)
                        let r = run[k].raw.distance(to: rawMean), f = run[k].smoothed.distance(to: smoothMean)
                        rawSquares += r * r
                        smoothSquares += f * f
                        n += 1
                    }
                }
                i = j + 1
            }
        }
        guard n > 0 else { return (.nan, .nan, 0) }
        return ((rawSquares / Double(n)).squareRoot(), (smoothSquares / Double(n)).squareRoot(), n)
    }

    /// How far smoothing trails a steady drag, as time: the mean distance between the raw and
    /// the smoothed finger once the filter has settled (after 300 ms), over the speed.
    static func smoothingLag(speed: Double, rate: Double, parameters: OneEuroFilter.Parameters) -> Double {
        var smoother = TouchSmoother(parameters)
        var gaps: [Double] = []
        for frame in FingerPaths.steady(speed: speed, rate: rate) {
            let out = smoother.smooth(frame)
            guard frame.time - FingerPaths.start >= .milliseconds(300) else { continue }
            gaps.append(frame.contacts[0].position.y - out.contacts[0].position.y)
        }
        return gaps.reduce(0, +) / Double(gaps.count) / speed * 1000
    }

    /// A flick's release velocity and rest offset: the drag path cut off at full speed.
    static func flick(speed: Double, rate: Double, smooth: Bool, content: Content) throws -> (velocity: Double, rest: Double) {
        var path = FingerPaths.drag(speed: speed, rate: rate)
        // Up to the middle of the first cruise, then lift at speed.
        let cut = FingerPaths.start + .milliseconds(275)
        var frames = path.frames.filter { $0.time <= cut }
        let last = frames.removeLast()
        frames.append(TouchFrame(time: last.time, contacts: [], ended: last.contacts))
        path.frames = frames
        var configuration = Configuration()
        configuration.smoothTouches = smooth
        // At the bottom: the flick (the finger moving down) carries the content up, towards 0.
        let home = Point(x: (content.size.width - path.screen.width) / 2, y: content.size.height - path.screen.height)
        let releases = Releases()
        guard let pipeline = try run(path, content: content, configuration: configuration, home: home, sink: releases) else {
            return (.nan, .nan)
        }
        return (releases.velocity, pipeline.scrollView.contentOffset.y)
    }

    final class Releases: PipelineSink {
        var velocity = Double.nan
        func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {
            for output in outputs {
                if case let .scroll(.willEndDragging(v, _)) = output.kind { velocity = v.dy }
            }
        }
        func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) {}
        func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) {}
    }
}

extension FeelBench {
    /// The shared recordings with one-finger drags in them.
    static let dragRecordings = ["Atmel maXTouch Touchscreen.1-finger-drag-up-down.events",
                                 "ELAN CANDO Windows7.1-finger-drag-up-down.events", "3m.event"]
    /// Those with fingers held still.
    static let heldRecordings = ["Atmel maXTouch Touchscreen.2-fingers-touch-release.events", "3m.event", "wetab.event"]

    /// The real recordings' folder: `--recordings DIR`, else `FLICKD_RECORDINGS`, else
    /// `../shared/recordings` beside the checkout, when it exists.
    static func recordingsFolder(arguments: [String]) -> String? {
        if let i = arguments.firstIndex(of: "--recordings"), i + 1 < arguments.count { return arguments[i + 1] }
        if let env = ProcessInfo.processInfo.environment["FLICKD_RECORDINGS"] { return env }
        let sibling = FileManager.default.currentDirectoryPath + "/../shared/recordings"
        return FileManager.default.fileExists(atPath: sibling) ? sibling : nil
    }
}

extension FeelBench {
    /// What resampling adds to a frame while a finger drags: one projection of the recogniser
    /// (`GestureRecognizer.projected`), in ns, median of `runs` runs of `calls` calls.
    static func projectionCost(runs: Int = 5, calls: Int = 20_000) throws -> Stats {
        var recognizer = GestureRecognizer(scrollView: try ScrollView(boundsSize: Size(width: 1920, height: 1080),
                                                                      contentSize: Size(width: 4096, height: 4096)))
        let id = ContactID(1)
        var y = 900.0
        _ = recognizer.handle(TouchFrame(time: .milliseconds(0), contacts: [Contact(id: id, position: Point(x: 500, y: y))], began: [id]))
        for i in 1...40 {
            y -= 10
            _ = recognizer.handle(TouchFrame(time: .milliseconds(Double(i) * 8), contacts: [Contact(id: id, position: Point(x: 500, y: y))]))
        }
        precondition(recognizer.scrollView.isDragging, "the projection is timed during a drag")
        var samples: [Double] = []
        var sink = 0.0
        for _ in 0..<runs {
            let start = monotonicNanoseconds()
            for k in 0..<calls {
                let frame = TouchFrame(time: .milliseconds(336), contacts: [Contact(id: id, position: Point(x: 500, y: y - Double(k % 7)))])
                sink += recognizer.projected(frame).contentOffset.y
            }
            samples.append(Double(monotonicNanoseconds() - start) / Double(calls))
        }
        precondition(sink.isFinite)
        return Stats(samples: samples)
    }

    /// Section 6's heading.
    static let title = "6. feel: content behind the finger when shown, touch resampling off vs on; smoothing (virtual time, 60 Hz display)"

    /// Section 6 of the benchmark: prints every figure and records the targets' verdicts.
    static func report(arguments: [String]) {
        do {
            guard let feelPattern = TestPattern.make(PixelSize(width: 4096, height: 4096)) else { fatalError("cannot allocate the content") }
            let feelContent = Content(image: feelPattern)
            // Each generated drag is played with its reports at four phases against the vblanks
            // (a quarter report interval apart), its frames pooled: with reports in phase, a
            // frame prepared at the vblank before shows a report just taken, the best case
            // without resampling, and out of phase the worst.
            var paths: [(name: String, runs: [FingerPath])] = []
            for speed in [300.0, 1000, 3000] {
                for rate in [60.0, 90, 120] {
                    let runs = FeelBench.phases.map { FingerPaths.drag(speed: speed, rate: rate, phase: $0) }
                    paths.append((runs[0].name + ", 4 phases", runs))
                }
            }
            let recordings = FeelBench.recordingsFolder(arguments: arguments)
            for name in FeelBench.dragRecordings {
                if let folder = recordings, let path = FingerPaths.recording(folder + "/" + name) { paths.append((path.name, [path])) }
            }
            if recordings == nil { print("(no recordings: set FLICKD_RECORDINGS or pass --recordings DIR for the real panels' rows)") }
            print("lag = |content shown − where the finger was at that vblank| (px); overshoot = shown beyond where the finger went up to the following report (px)")
            print("what resampling adds to each frame while a finger drags (one projection of the recogniser): "
                  + (try projectionCost()).summary("ns"))
            // The worst path: the one whose ratio lies furthest above (or nearest below) what is allowed.
            var worst: (name: String, ratio: Double, allowed: Double)?
            var worstOvershoot = 0.0
            for path in paths {
                // Smoothing as shipped (off by default): the two runs differ in resampling alone.
                let smooth = Configuration().smoothTouches
                var off = Outcome(), on = Outcome()
                for run in path.runs {
                    off.add(try FeelBench.measure(run, content: feelContent, resample: false, smooth: smooth))
                    on.add(try FeelBench.measure(run, content: feelContent, resample: true, smooth: smooth))
                }
                let lagOff = Stats(samples: off.lags), lagOn = Stats(samples: on.lags)
                let overOff = Stats(samples: off.overshoots), overOn = Stats(samples: on.overshoots)
                let ratio = lagOn.percentile(95) / lagOff.percentile(95)
                let allowed = FeelBench.allowedRatio(reportInterval: path.runs[0].reportInterval)
                if worst.map({ ratio - allowed > $0.ratio - $0.allowed }) ?? true { worst = (path.name, ratio, allowed) }
                worstOvershoot = max(worstOvershoot, overOn.max)
                print("  \(path.name) (\(off.lags.count) frames): lag p50/p95 off \(fmt(lagOff.median))/\(fmt(lagOff.percentile(95))), "
                      + "on \(fmt(lagOn.median))/\(fmt(lagOn.percentile(95))) (p95 ×\(fmt(ratio, 2)), allowed ×\(fmt(allowed, 2))); "
                      + "overshoot max off \(fmt(overOff.max)), on \(fmt(overOn.max)) (p95 \(fmt(overOn.percentile(95)))); "
                  + "steps back max off \(fmt(off.backSteps.max() ?? 0)), on \(fmt(on.backSteps.max() ?? 0))")
            }
            if let worst {
                Verdicts.check("resampling: p95 lag at most half of without, or (T + lead − bound) / T where the report interval T leaves no more (every path)",
                               worst.ratio <= worst.allowed + 1e-9,
                               "worst ×\(fmt(worst.ratio, 3)) against ×\(fmt(worst.allowed, 3)) (\(worst.name))")
            }
            Verdicts.check("resampling: overshoot ≤ 2 px (worst frame of every path)", worstOvershoot <= 2, "\(fmt(worstOvershoot, 2)) px")
            try predictionBounds(content: feelContent)

            var parameters = TouchConditioning.defaultSmoothing
            if let text = ProcessInfo.processInfo.environment["FEEL_SMOOTHING"] {
                // "MINCUTOFF,BETA,DCUTOFF": tuning runs (docs/input.md, "Smoothing").
                let v = text.split(separator: ",").compactMap { Double($0) }
                if v.count == 3 { parameters = OneEuroFilter.Parameters(minimumCutoff: v[0], beta: v[1], derivativeCutoff: v[2]) }
            }
            print("smoothing (1€: min cutoff \(fmt(parameters.minimumCutoff, 2)) Hz, beta \(fmt(parameters.beta, 3)), derivative cutoff \(fmt(parameters.derivativeCutoff, 2)) Hz):")
            if let folder = recordings {
                for name in FeelBench.heldRecordings {
                    guard let path = FingerPaths.recording(folder + "/" + name) else { continue }
                    let j = FeelBench.heldJitter(path.frames, parameters: parameters)
                    print("  held-touch jitter, \(name): RMS \(fmt(j.raw, 2)) px raw → \(fmt(j.smoothed, 2)) px smoothed (\(j.samples) reports held)")
                }
            }
            var worstLag = 0.0
            for rate in [60.0, 90, 120] {
                let lags = [300.0, 1000, 3000].map { FeelBench.smoothingLag(speed: $0, rate: rate, parameters: parameters) }
                worstLag = max(worstLag, lags[1])
                print("  lag smoothing adds at \(Int(rate)) Hz: 300 px/s \(fmt(lags[0], 2)) ms, 1000 px/s \(fmt(lags[1], 2)) ms, 3000 px/s \(fmt(lags[2], 2)) ms")
            }
            Verdicts.check("smoothing lag at 1000 px/s ≤ 1 ms", worstLag <= 1, "\(fmt(worstLag, 2)) ms")
            var worstBias = 0.0
            for speed in [300.0, 1000, 3000] {
                let raw = try FeelBench.flick(speed: speed, rate: 120, smooth: false, content: feelContent)
                let smoothed = try FeelBench.flick(speed: speed, rate: 120, smooth: true, content: feelContent)
                let bias = smoothed.velocity / raw.velocity - 1
                worstBias = max(worstBias, abs(bias))
                print("  flick released at \(Int(speed)) px/s: release velocity \(fmt(raw.velocity)) raw, \(fmt(smoothed.velocity)) smoothed "
                      + "(\(fmt(bias * 100, 2)) %); rest \(fmt(raw.rest)) vs \(fmt(smoothed.rest)) px")
            }
            Verdicts.check("smoothing leaves release velocities within 2 %", worstBias <= 0.02, "\(fmt(worstBias * 100, 2)) %")
        } catch {
            print("flickd-bench: feel: \(error)")
            exit(1)
        }
    }
}

extension FeelBench {
    /// The bounds on how far ahead of the latest report a finger is predicted that the trade-off
    /// table tries (ms; 0 is resampling off), the shipped default among them.
    static let candidateBounds: [Double] = [0, 4, 6, 8, 10, 12, 15]

    /// The prediction bound's trade: for each candidate `input.resample_max_prediction_ms`, the lag while a
    /// finger drags at 1000 px/s against how far the content runs past a finger that stops dead
    /// (the 4 phases of each pooled), at 60 and 120 Hz reports; the verdicts are the shipped
    /// default's at 60 Hz: at most 8 px past a dead stop, and a p95 lag no more than the bound
    /// leaves unpredicted at the oldest report a frame can show.
    static func predictionBounds(content: Content) throws {
        print("prediction bound (input.resample_max_prediction_ms) vs lag and dead stop, 1000 px/s, 4 phases pooled:")
        print("  bound ms | 60 Hz lag p50/p95 (p95 of each phase) | 60 Hz dead stop overshoot | 120 Hz lag p50/p95 | 120 Hz dead stop overshoot")
        let shipped = Configuration().maximumPrediction
        var verdict: (lag: Double, over: Double)?
        for bound in Set(candidateBounds + [shipped.inMilliseconds]).sorted() {
            var cells: [String] = []
            var at60: (lag: Double, over: Double)?
            for rate in [60.0, 120] {
                var drag = Outcome(), stop = Outcome()
                var eachPhase: [String] = []
                let prediction = Duration.seconds(double: bound / 1000)
                for phase in phases {
                    let one = try measure(FingerPaths.drag(speed: 1000, rate: rate, phase: phase), content: content,
                                          resample: bound > 0, smooth: false, maximumPrediction: prediction)
                    eachPhase.append(fmt(Stats(samples: one.lags).percentile(95)))
                    drag.add(one)
                    stop.add(try measure(FingerPaths.deadStop(speed: 1000, rate: rate, phase: phase), content: content,
                                         resample: bound > 0, smooth: false, maximumPrediction: prediction))
                }
                let lag = Stats(samples: drag.lags), over = stop.overshoots.max() ?? 0
                let phased = rate == 60 ? " (" + eachPhase.joined(separator: ", ") + ")" : ""
                cells += ["\(fmt(lag.median))/\(fmt(lag.percentile(95)))" + phased, fmt(over)]
                if rate == 60 { at60 = (lag.percentile(95), over) }
            }
            let mark = bound == shipped.inMilliseconds ? " (default)" : ""
            print("  \(fmt(bound, 0))\(mark) | " + cells.joined(separator: " | "))
            if bound == shipped.inMilliseconds { verdict = at60 }
        }
        guard let verdict else { return }
        Verdicts.check("prediction: a dead stop at 1000 px/s, 60 Hz reports, overshot ≤ 8 px", verdict.over <= 8, "\(fmt(verdict.over, 2)) px")
        let allowed = allowedLag(speed: 1000, reportInterval: .seconds(double: 1.0 / 60))
        Verdicts.check("prediction: p95 lag at 1000 px/s, 60 Hz reports, ≤ (T + lead − bound) × speed = \(fmt(allowed, 2)) px",
                       verdict.lag <= allowed, "\(fmt(verdict.lag, 2)) px")
    }

    /// The oldest report a frame can show, `T` + `lead`: a frame is prepared `lead` before its
    /// vblank, and a report that lands inside the lead waits for the next frame, a report
    /// interval `T` later (BENCHMARKS.md, "What prediction can reach").
    static func oldestReport(reportInterval: Duration) -> Duration {
        reportInterval + Configuration().frameLead
    }

    /// The lag a steady drag at `speed` px/s keeps at that oldest report when the prediction
    /// may reach at most the shipped bound ahead of it: (T + lead − bound) × speed, px.
    static func allowedLag(speed: Double, reportInterval: Duration) -> Double {
        let unpredicted = oldestReport(reportInterval: reportInterval) - Configuration().maximumPrediction
        return max(0, unpredicted.inSeconds) * speed
    }

    /// How far resampling can bring a path's p95 lag down, as a ratio of the lag without it
    /// (T × speed, a report up to an interval old): half, unless the report interval leaves more,
    /// (T + lead − bound) / T.
    static func allowedRatio(reportInterval: Duration) -> Double {
        guard reportInterval > .zero else { return 0.5 }
        return max(0.5, allowedLag(speed: 1, reportInterval: reportInterval) / reportInterval.inSeconds)
    }
}
