// flickd-bench: release-mode measurements against DESIGN §6 / the benchmark issue's targets.
// Every figure is repeated and printed with its spread; peers are measured in the same run.
//
//     swift run -c release flickd-bench [--quick]

import FlickCore

let quick = CommandLine.arguments.contains("--quick")
let repeats = quick ? 5 : 15

print("flickd-bench (\(quick ? "quick" : "full"), \(repeats) repeats)")

// 1. Gesture + model cost per event.
let (frames, evdevEvents) = GestureBench.frames(seconds: quick ? 60 : 600)
_ = GestureBench.run(frames) // warm-up
var perEvent: [Double] = []
for _ in 0..<repeats {
    let (ns, outputs) = GestureBench.run(frames)
    precondition(outputs > 0)
    perEvent.append(Double(ns) / Double(evdevEvents))
}
let perEventStats = Stats(samples: perEvent)
print("gesture+model: \(frames.count) frames, \(evdevEvents) evdev events per run")
print("  \(perEventStats.summary("ns/event")) = \(fmt(1e9 / perEventStats.median / 1e6, 2)) M events/s")
print(verdict("gesture+model ≤ 1 µs per event (median)", perEventStats.median <= 1000, "\(fmt(perEventStats.median)) ns"))
