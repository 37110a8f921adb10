import FlickCore
import FlickInput
import Foundation

/// A finger's path to measure feel on: the frames a panel reports, and where the finger really
/// was at any time between them.
struct FingerPath {
    var name: String
    /// The screen the path was made for.
    var screen: Size
    /// The panel's reports, decoded to screen pixels (what the pipeline gets).
    var frames: [TouchFrame]
    /// Where the followed finger really was at `t`, when one finger alone is down.
    var truth: (Instant) -> Contact?

    /// The time between two reports: the median of the intervals (a recording's panel reports
    /// with some jitter).
    var reportInterval: Duration {
        let gaps = zip(frames.dropFirst(), frames).map { $0.time - $1.time }.filter { $0 > .zero }.sorted()
        return gaps.isEmpty ? .zero : gaps[gaps.count / 2]
    }
}

enum FingerPaths {
    /// The time generated paths start at.
    static let start = Instant.seconds(1)

    /// A one-finger drag that speeds up to `speed` px/s, cruises, stops, turns back, reverses at
    /// speed and stops again, reported at `rate` Hz with a little timing jitter (±0.3 ms) and
    /// whole-pixel positions, as panels report. Speed changes take 100 ms, the time the recorded
    /// drags take to stop (the Atmel drag slows from 420 px/s to rest in 100 ms). The reports
    /// come `phase` report intervals (0 ..< 1) after the display's vblanks: a panel and a
    /// display run on clocks of their own, so every phase occurs as they drift.
    static func drag(speed: Double, rate: Double, phase: Double = 0, screen: Size = Size(width: 1280, height: 800)) -> FingerPath {
        // Velocity (px/s, +y) over time: (duration, from, to) ramps, raised-cosine shaped.
        let segments: [(Double, Double, Double)] = [
            (0.05, 0, 0), (0.1, 0, speed), (0.25, speed, speed), (0.1, speed, 0), (0.1, 0, 0),
            (0.1, 0, -speed), (0.25, -speed, -speed), (0.15, -speed, speed), (0.15, speed, speed), (0.1, speed, 0), (0.05, 0, 0),
        ]
        let total = segments.reduce(0) { $0 + $1.0 }
        // y(t) by integrating the velocity profile finely once.
        let step = 0.0001
        var ys: [Double] = [0]
        var t = 0.0, y = 0.0
        while t < total {
            y += velocity(at: t + step / 2, segments) * step
            t += step
            ys.append(y)
        }
        let origin = Point(x: screen.width / 2, y: screen.height / 2 - (ys.max()! + ys.min()!) / 2)
        func position(_ s: Double) -> Point {
            let i = min(ys.count - 1, max(0, Int((s / step).rounded())))
            return Point(x: origin.x, y: origin.y + ys[i])
        }
        var frames: [TouchFrame] = []
        var random = LCG(seed: UInt64(speed * 7 + rate))
        var s = phase / rate
        let id = ContactID(1)
        while s <= total {
            let jitter = (random.unit() - 0.5) * 0.0006
            let time = min(total, max(0, s + (s > 0 && s < total ? jitter : 0)))
            let p = position(time)
            let whole = Point(x: p.x.rounded(), y: p.y.rounded())
            let at = start + .seconds(double: time)
            frames.append(TouchFrame(time: at, contacts: [Contact(id: id, position: whole)], began: frames.isEmpty ? [id] : []))
            s += 1 / rate
        }
        let last = frames.removeLast()
        frames.append(TouchFrame(time: last.time, contacts: [], ended: last.contacts))
        let end = start + .seconds(double: total)
        return FingerPath(name: "\(Int(speed)) px/s at \(Int(rate)) Hz", screen: screen, frames: frames) { t in
            guard t >= start, t <= end else { return nil }
            return Contact(id: id, position: position((t - start).inSeconds))
        }
    }

    /// A drag that speeds up to `speed` px/s over 100 ms, cruises, and stops dead on a report
    /// (the worst moment: the reports so far say nothing of the stop), then holds still for
    /// 300 ms, reported every `rate` Hz at whole pixels, and lifts (issue 36, part 2). The
    /// reports come `phase` report intervals after the vblanks, as in `drag`.
    static func deadStop(speed: Double, rate: Double, phase: Double = 0, screen: Size = Size(width: 1280, height: 800)) -> FingerPath {
        let ramp = 0.1, interval = 1 / rate
        // The first report at least 350 ms in: the finger is there at full speed, then still.
        let first = phase * interval
        let stop = first + (max(0, 0.35 - first) / interval).rounded(.up) * interval
        let end = stop + 0.3
        // Travel at `s` seconds: the raised-cosine ramp's integral, then the cruise.
        func travel(_ s: Double) -> Double {
            let s = min(max(0, s), stop)
            guard s > ramp else { return speed / 2 * (s - ramp / Double.pi * sin(Double.pi * s / ramp)) }
            return speed * ramp / 2 + speed * (s - ramp)
        }
        let origin = Point(x: screen.width / 2, y: screen.height / 2 - travel(stop) / 2)
        func position(_ s: Double) -> Point { Point(x: origin.x, y: origin.y + travel(s)) }
        let id = ContactID(1)
        var frames: [TouchFrame] = []
        var s = first
        while s <= end + 1e-9 {
            let p = position(s)
            frames.append(TouchFrame(time: start + .seconds(double: s), contacts: [Contact(id: id, position: Point(x: p.x, y: p.y.rounded()))],
                                     began: frames.isEmpty ? [id] : []))
            s += interval
        }
        let last = frames.removeLast()
        frames.append(TouchFrame(time: last.time, contacts: [], ended: last.contacts))
        let lift = last.time
        return FingerPath(name: "\(Int(speed)) px/s at \(Int(rate)) Hz, stopping dead", screen: screen, frames: frames) { t in
            guard t >= start, t <= lift else { return nil }
            return Contact(id: id, position: position((t - start).inSeconds))
        }
    }

    /// A straight drag at a steady `speed` px/s for `seconds`, whole-pixel positions at `rate` Hz.
    static func steady(speed: Double, rate: Double, seconds: Double = 1) -> [TouchFrame] {
        let id = ContactID(1)
        var frames: [TouchFrame] = []
        var s = 0.0
        while s <= seconds {
            let p = Point(x: 100, y: (100 + speed * s).rounded())
            frames.append(TouchFrame(time: start + .seconds(double: s), contacts: [Contact(id: id, position: p)],
                                     began: frames.isEmpty ? [id] : []))
            s += 1 / rate
        }
        return frames
    }

    /// A real recording, decoded as `flickd replay` decodes it; the truth is the straight line
    /// between the reports around a time (the recording is all that is known of the finger).
    static func recording(_ path: String) -> FingerPath? {
        guard let recording = try? EvemuRecording.load(path: path),
              let source = try? RecordingSource(recording: recording, start: start) else { return nil }
        var frames: [TouchFrame] = []
        while let next = source.nextDeadline {
            frames += source.dispatch(now: next)
        }
        let name = URL(fileURLWithPath: path).lastPathComponent
        return FingerPath(name: name, screen: source.outputSize, frames: frames) { t in
            // The reports around `t`, with one finger down in both and no touch ending between.
            var lo = 0, hi = frames.count - 1
            guard hi > 0, frames[0].time <= t, frames[hi].time >= t else { return nil }
            while hi - lo > 1 {
                let mid = (lo + hi) / 2
                if frames[mid].time <= t { lo = mid } else { hi = mid }
            }
            let a = frames[lo], b = frames[hi]
            guard a.contacts.count == 1, b.contacts.count == 1, a.contacts[0].id == b.contacts[0].id else { return nil }
            let span = (b.time - a.time).inSeconds
            let k = span > 0 ? (t - a.time).inSeconds / span : 1
            return Contact(id: a.contacts[0].id, position: a.contacts[0].position + (b.contacts[0].position - a.contacts[0].position) * k)
        }
    }

    private static func velocity(at t: Double, _ segments: [(Double, Double, Double)]) -> Double {
        var start = 0.0
        for (duration, from, to) in segments {
            if t < start + duration {
                let k = (t - start) / duration
                return from + (to - from) * (1 - cos(Double.pi * k)) / 2
            }
            start += duration
        }
        return 0
    }
}

/// A small deterministic random sequence (the same jitter every run).
struct LCG {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 6364136223846793005 &+ 1442695040888963407 }
    mutating func unit() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Double(state >> 11) / Double(1 << 53)
    }
}
