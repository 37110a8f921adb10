// flickd-e2e-touch: a uinput touchscreen that plays scripted gestures in real time, for the
// end-to-end test on a real kernel (Tests/E2E/README.md).
//
//     flickd-e2e-touch [--screen WIDTHxHEIGHT]     then one command a line on stdin:
//
//     tap X Y                       down, 40 ms, up
//     flick X0 Y0 X1 Y1 MS          a straight swipe in MS ms, lifted moving
//     drag X0 Y0 X1 Y1 MS           the same, held still 150 ms before lifting
//     pinch CX CY D0 D1 MS          two fingers D0 px apart spreading to D1 px
//     unplug-drag X0 Y0 X1 Y1 MS    a swipe, then the device is destroyed with the finger down
//     plug                          create the device again
//     wait MS
//
// Coordinates are screen pixels. After creating the device it prints `ready NODE`, after each
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
var arguments = CommandLine.arguments.dropFirst()
while let option = arguments.popFirst() {
    let value = option == "--screen" ? arguments.popFirst() : nil
    let parts = value?.split(separator: "x").compactMap { Int($0) } ?? []
    guard parts.count == 2, parts.allSatisfy({ $0 > 1 }) else {
        fail("usage: flickd-e2e-touch [--screen WIDTHxHEIGHT] < commands")
    }
    screen = (parts[0], parts[1])
}

let panel = VirtualPanel(screenWidth: screen.width, screenHeight: screen.height)
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
