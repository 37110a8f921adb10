import FlickCore
@testable import FlickDisplay
import FlickSystem
import Glibc

/// A fresh temporary directory for one test.
func makeTemporaryDirectory() -> String {
    var template = Array("/tmp/flickdisplay-test-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(made != nil, "mkdtemp failed")
    return String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Writes raw bytes to a file (test fixtures).
func writeBytes(_ bytes: [UInt8], to path: String) {
    guard case .success = FileIO.write(bytes, to: path) else { fatalError("cannot write \(path)") }
}

/// Reads a file's bytes (test fixtures).
func readBytes(_ path: String) -> [UInt8] {
    guard case .success(let bytes) = FileIO.read(path, limit: 1 << 30) else { fatalError("cannot read \(path)") }
    return bytes
}

/// The red, green and blue channels of a pixel word.
func channels(_ p: UInt32) -> (r: Int, g: Int, b: Int) {
    (Int((p >> 16) & 0xFF), Int((p >> 8) & 0xFF), Int(p & 0xFF))
}

/// `src` at `alpha`/255 over `dst`, as an indicator pixel is blended (premultiplied, then
/// `over`): the expected pixel under a bar.
func blend(_ src: UInt32, over dst: UInt32, alpha: UInt32) -> UInt32 {
    over(premultiplied(src, alpha: alpha), dst)
}

/// The borderless black style, UIKit's `.black`: a plain 3 px bar, for tests of the geometry.
let blackIndicators: IndicatorStyle = {
    var style = IndicatorStyle()
    style.scheme = .black
    return style
}()

/// A headless output of `size` with one frame composed from `state` and presented.
func renderOnce(_ state: RenderState, content: PixelBuffer?, panel: PixelSize,
                rotation: PanelRotation = .none, style: IndicatorStyle = IndicatorStyle()) throws -> PixelBuffer {
    let output = try #require(HeadlessOutput(size: panel))
    let compositor = Compositor(rotation: rotation, indicatorStyle: style)
    try output.withBackBuffer { compositor.compose(state, content: content, into: $0) }
    try output.commit(.composed, now: .zero)
    _ = try output.dispatch(now: try #require(output.nextDeadline))
    return output.frontBuffer
}

import Testing

/// Composes one frame of whole or tiled content onto a fresh headless output and returns what it shows.
func renderOnce(_ state: RenderState, content: Content?, panel: PixelSize,
                rotation: PanelRotation = .none) throws -> PixelBuffer {
    let output = try #require(HeadlessOutput(size: panel))
    let compositor = Compositor(rotation: rotation)
    try output.withBackBuffer { compositor.compose(state, content: content, into: $0) }
    try output.commit(.composed, now: .zero)
    _ = try output.dispatch(now: try #require(output.nextDeadline))
    return output.frontBuffer
}
