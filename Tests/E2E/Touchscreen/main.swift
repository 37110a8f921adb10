// flickd-e2e-touch: a uinput touchscreen that plays scripted gestures in real time, for the
// end-to-end test on a real kernel (Tests/E2E/README.md).
//
//     flickd-e2e-touch [--screen WIDTHxHEIGHT] [--calibration A,B,C,D,E,F]
//                                                  then one command a line on stdin:
//
//     tap X Y                       down, 40 ms, up
//     flick X0 Y0 X1 Y1 MS          a straight swipe in MS ms, lifted moving
//     drag X0 Y0 X1 Y1 MS           the same, held still 150 ms before lifting
//     pinch CX CY D0 D1 MS          two fingers D0 px apart spreading to D1 px
//     unplug-drag X0 Y0 X1 Y1 MS    a swipe, then the device is destroyed with the finger down
//     plug                          create the device again
//     wait MS
//
// Coordinates are screen pixels. With --calibration the panel is misaligned on purpose: a
// touch aimed at (X, Y) lands where flickd needs that matrix (libinput's, rotation 0) to put
// it back on (X, Y), so `flickd calibrate` has a known answer to find. After creating the device it prints `ready NODE`, after each
// command `ok COMMAND`, and on a failure `error WHY` (then exits 1). EOF destroys the device.
import FlickInput
import Glibc

/// One line to stdout, unbuffered: the script waits on it through a pipe.
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ why: String) -> Never {
    say("error \(why)")
    exit(1)
}

var screen = (width: 1024, height: 768)
var calibration: [Double]?
var arguments = CommandLine.arguments.dropFirst()
let usage = "usage: flickd-e2e-touch [--screen WIDTHxHEIGHT] [--calibration A,B,C,D,E,F] < commands"
while let option = arguments.popFirst() {
    switch option {
    case "--screen":
        let parts = arguments.popFirst()?.split(separator: "x").compactMap { Int($0) } ?? []
        guard parts.count == 2, parts.allSatisfy({ $0 > 1 }) else { fail(usage) }
        screen = (parts[0], parts[1])
    case "--calibration":
        let m = arguments.popFirst()?.split(separator: ",").compactMap { Double($0) } ?? []
        guard m.count == 6, m.allSatisfy(\.isFinite), abs(m[0] * m[4] - m[1] * m[3]) > 1e-6 else {
            fail(usage + " (six numbers, an invertible matrix)")
        }
        calibration = m
    default:
        fail(usage)
    }
}

let panel = VirtualPanel(screenWidth: screen.width, screenHeight: screen.height, calibration: calibration)
let player = GesturePlayer(panel: panel)

do {
    try panel.plug()
} catch {
    fail("\(error)")
}
say("ready \(panel.devicePath ?? "?")")

while let line = readLine() {
    let words = line.split(separator: " ").map(String.init)
    guard let command = words.first else { continue }
    let n = words.dropFirst().compactMap(Double.init)
    func need(_ count: Int) {
        if n.count != count { fail("'\(command)' needs \(count) numbers: \(line)") }
    }
    do {
        switch command {
        case "tap":
            need(2)
            try player.tap(n[0], n[1])
        case "flick", "drag", "unplug-drag":
            need(5)
            try player.swipe(from: (n[0], n[1]), to: (n[2], n[3]), duration: n[4] / 1000,
                             pauseBeforeLift: command == "drag" ? 0.15 : 0, unplugAtEnd: command == "unplug-drag")
        case "pinch":
            need(5)
            try player.pinch(centre: (n[0], n[1]), startDistance: n[2], endDistance: n[3], duration: n[4] / 1000)
        case "plug":
            try panel.plug()
        case "wait":
            need(1)
            player.sleep(seconds: n[0] / 1000)
        default:
            fail("unknown command '\(command)'")
        }
    } catch {
        fail("\(command): \(error)")
    }
    say("ok \(command)" + (panel.devicePath.map { " \($0)" } ?? ""))
}
panel.unplug()
