// flickd-e2e-grab: reads back the frame a running flickd shows on a DRM card (as a second root
// process), and makes and checks the coordinate-pattern content of the end-to-end test.
//
//     flickd-e2e-grab pattern OUT.png WIDTH HEIGHT
//         writes the coordinate pattern (see CoordinatePattern) as content for flickd
//     flickd-e2e-grab frame [--card CARD] [--png OUT.png] [--ppm OUT.ppm] [--pixel X,Y]
//         prints `fb ID WIDTHxHEIGHT source SX,SY of FBWxFBH top-left X,Y offset BYTES` for the
//         frame on screen: the part WIDTHxHEIGHT the primary plane shows from (SX, SY) of its
//         FBWxFBH framebuffer (read from the plane's SRC_X…SRC_H: flickd pans one framebuffer
//         by them), the pattern's coordinates at its top-left, and where that pixel is in its
//         buffer (BYTES > 0: a larger buffer, flickd's content scanned out with no copy), and
//         `exported-by NAME` for a framebuffer imported from a dma-buf (`udmabuf`: a Wayland
//         client's buffer the compositor scans out directly); with
//         --pixel, `pixel X,Y RRGGBB`; --ppm also writes the frame as a binary PPM (P6),
//         which a script reads without a PNG decoder (Tests/E2E/board.py)
//     flickd-e2e-grab active [--card CARD]
//         prints `crtc ID active 0|1` for each CRTC showing a framebuffer (display power's DPMS)
//     flickd-e2e-grab expect --offset X,Y [--zoom Z] [--card CARD] [--png OUT.png]
//         exits 1 unless the frame on screen shows the pattern at that offset and zoom
//
// Exit status: 0 good, 1 a mismatch or nothing on screen, 2 bad usage.
import FlickDisplay
import Glibc

func fail(_ why: String, code: Int32 = 1) -> Never {
    let bytes = Array("flickd-e2e-grab: \(why)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(code)
}

/// Writes `buffer` as a binary PPM (P6: a text header, then R, G, B bytes row by row).
func writePPM(_ buffer: PixelBuffer, to path: String) -> Bool {
    var bytes = Array("P6\n\(buffer.width) \(buffer.height)\n255\n".utf8)
    bytes.reserveCapacity(bytes.count + buffer.width * buffer.height * 3)
    for y in 0..<buffer.height {
        let row = buffer.row(y)
        for x in 0..<buffer.width {
            let p = row[x]
            bytes.append(UInt8(truncatingIfNeeded: p >> 16))
            bytes.append(UInt8(truncatingIfNeeded: p >> 8))
            bytes.append(UInt8(truncatingIfNeeded: p))
        }
    }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return false }
        done += n
    }
    return true
}

func pair(_ text: String?) -> (Double, Double)? {
    let parts = text?.split(separator: ",").compactMap { Double($0) } ?? []
    return parts.count == 2 ? (parts[0], parts[1]) : nil
}

let usage = "usage: flickd-e2e-grab pattern OUT.png W H | frame [--card C] [--png F] [--ppm F] [--pixel X,Y] | active [--card C] | expect --offset X,Y [--zoom Z] [--card C] [--png F]"
var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else { fail(usage, code: 2) }
arguments.removeFirst()

if command == "pattern" {
    guard arguments.count == 3, let w = Int(arguments[1]), let h = Int(arguments[2]),
          let pattern = CoordinatePattern.make(width: w, height: h) else { fail(usage, code: 2) }
    do {
        try PNGCodec.write(pattern, to: arguments[0])
    } catch {
        fail("\(error)")
    }
    exit(0)
}

var options: [String: String] = [:]
while let name = arguments.first, name.hasPrefix("--"), arguments.count >= 2 {
    options[String(name.dropFirst(2))] = arguments[1]
    arguments.removeFirst(2)
}
guard arguments.isEmpty, ["frame", "expect", "active"].contains(command) else { fail(usage, code: 2) }

if command == "active" {
    do {
        let states = try FrameGrab.activity(card: options["card"])
        guard !states.isEmpty else { fail("no CRTC shows a framebuffer with an ACTIVE property") }
        for state in states { print("crtc \(state.crtc.rawValue) active \(state.active ? 1 : 0)") }
    } catch {
        fail("\(error)")
    }
    exit(0)
}

let frame: FrameGrab.Frame
do {
    frame = try FrameGrab.grab(card: options["card"])
} catch {
    fail("\(error)")
}
if let png = options["png"] {
    do {
        try PNGCodec.write(frame.pixels, to: png)
    } catch {
        fail("\(error)")
    }
}
if let ppm = options["ppm"], !writePPM(frame.pixels, to: ppm) {
    fail("cannot write \(ppm): \(String(cString: strerror(errno)))")
}
let corner = CoordinatePattern.decode(frame.pixels[0, 0])
print("fb \(frame.framebuffer) \(frame.pixels.size) source \(frame.source.x),\(frame.source.y) of \(frame.framebufferSize)"
      + " top-left \(corner.x),\(corner.y) offset \(frame.offset)" + (frame.exporter.map { " exported-by \($0)" } ?? ""))
if let text = options["pixel"] {
    guard let (x, y) = pair(text), x >= 0, y >= 0, x < Double(frame.pixels.width), y < Double(frame.pixels.height) else {
        fail("--pixel X,Y inside \(frame.pixels.size)", code: 2)
    }
    let hex = String(frame.pixels[Int(x), Int(y)] & 0xFF_FFFF, radix: 16)
    print("pixel \(Int(x)),\(Int(y)) " + String(repeating: "0", count: 6 - hex.count) + hex)
}

if command == "expect" {
    guard let offset = pair(options["offset"]) else { fail(usage, code: 2) }
    let zoom = options["zoom"].flatMap(Double.init) ?? 1
    let check = FrameCheck(offset: offset, zoom: zoom)
    let (checked, problems) = check.mismatches(in: frame.pixels)
    for line in problems.prefix(6) { print("  " + line) }
    guard checked >= 8 else { fail("only \(checked) probes could be checked") }
    guard problems.isEmpty else { fail("\(problems.count) of \(checked) probes disagree with offset \(offset) zoom \(zoom)") }
    print("ok: \(checked) probes show offset \(offset) zoom \(zoom)")
}
