import CWebP

/// A WebP file's canvas and the frame flickd shows, its first, read by libwebpdemux from the
/// file's chunks before any pixel is decoded: a still image is one frame covering the canvas;
/// an animation's first frame may be smaller and offset, and the rest of its frames are not
/// shown (said in the journal with the content).
struct WebPLayout {
    /// The image's size.
    var canvas: PixelSize
    /// Where the first frame lies on the canvas.
    var frame: PixelRect
    /// Frames in the file: more than one for an animation.
    var frames: Int
    /// Whether the frame is lossless (VP8L), not lossy (VP8).
    var lossless: Bool
    /// Whether the frame carries alpha.
    var frameHasAlpha: Bool
    /// The frame's bitstream (its ALPH and VP8 chunks, or its VP8L chunk) within the file.
    var payload: Range<Int>

    /// Whether every canvas pixel is opaque: the frame covers it and has no alpha.
    var opaque: Bool { !frameHasAlpha && frame == PixelRect(x0: 0, y0: 0, x1: canvas.width, y1: canvas.height) }

    /// What to say of the file, shown as its first frame only.
    var note: String? { frames > 1 ? "the first of \(frames) frames of an animated WebP (animations are not played)" : nil }

    /// The bytes libwebp holds for the whole frame while it decodes, whatever is asked of it: a
    /// lossless frame's pixels (its back-references reach anywhere above the current row), a
    /// lossy frame's alpha plane.
    var wholeFrameBytes: Int { lossless ? frame.width * frame.height * 4 : frameHasAlpha ? frame.width * frame.height : 0 }

    /// Reads the layout of the WebP file whose bytes are `bytes`.
    /// - Throws: `ContentError` naming `path`: truncated (shorter than its RIFF header says, or
    ///   its first frame cut), corrupt (no frame, a frame libwebp cannot parse).
    static func read(_ bytes: UnsafeRawBufferPointer, path: String) throws -> WebPLayout {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw ContentError(path: path, reason: .empty) }
        var data = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        var state = WEBP_DEMUX_PARSING_HEADER
        guard let demux = WebPDemuxPartial(&data, &state), state != WEBP_DEMUX_PARSE_ERROR else {
            throw ContentError(path: path, reason: .corrupt(detail: "libwebp cannot parse its chunks"))
        }
        defer { WebPDemuxDelete(demux) }
        // Shorter than its RIFF header says: cut short, even when the first frame is whole.
        guard state == WEBP_DEMUX_DONE else {
            throw ContentError(path: path, reason: .truncated(detail: "\(bytes.count) bytes, shorter than its RIFF header says"))
        }
        var iterator = WebPIterator()
        guard WebPDemuxGetFrame(demux, 1, &iterator) != 0 else {
            throw ContentError(path: path, reason: .corrupt(detail: "no frame in the WebP file"))
        }
        defer { WebPDemuxReleaseIterator(&iterator) }
        guard iterator.complete != 0 else {
            throw ContentError(path: path, reason: .truncated(detail: "its first frame is cut short"))
        }
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(iterator.fragment.bytes, iterator.fragment.size, &features)
        guard status == VP8_STATUS_OK else { throw ContentError(path: path, reason: reason(status, size: nil)) }
        let canvas = PixelSize(width: Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH)),
                               height: Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT)))
        let frame = PixelRect(x0: Int(iterator.x_offset), y0: Int(iterator.y_offset),
                              x1: Int(iterator.x_offset + iterator.width), y1: Int(iterator.y_offset + iterator.height))
        guard canvas.width > 0, canvas.height > 0, frame.width > 0, frame.height > 0, frame.x1 <= canvas.width,
              frame.y1 <= canvas.height, Int(features.width) == frame.width, Int(features.height) == frame.height else {
            throw ContentError(path: path, reason: .corrupt(detail: "a \(features.width)x\(features.height) frame at "
                                                            + "\(frame.x0),\(frame.y0) of a \(canvas) canvas"))
        }
        guard let fragment = iterator.fragment.bytes else {
            throw ContentError(path: path, reason: .corrupt(detail: "a first frame with no data"))
        }
        let offset = UnsafeRawPointer(fragment) - base
        return WebPLayout(canvas: canvas, frame: frame, frames: Int(WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT)),
                          lossless: features.format == 2, frameHasAlpha: features.has_alpha != 0,
                          payload: offset..<(offset + iterator.fragment.size))
    }

    /// What a libwebp status means for the file.
    static func reason(_ status: VP8StatusCode, size: PixelSize?) -> ContentError.Reason {
        switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA: .truncated(detail: "libwebp ran out of data")
        case VP8_STATUS_OUT_OF_MEMORY: .outOfMemory(width: size?.width ?? 0, height: size?.height ?? 0)
        case VP8_STATUS_UNSUPPORTED_FEATURE: .corrupt(detail: "a WebP feature libwebp does not decode")
        case VP8_STATUS_BITSTREAM_ERROR: .corrupt(detail: "libwebp: a bitstream error")
        default: .corrupt(detail: "libwebp status \(status.rawValue)")
        }
    }
}
