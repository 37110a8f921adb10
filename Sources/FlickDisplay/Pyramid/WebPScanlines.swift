import CWebP
import FlickSystem
import Glibc

/// A WebP read from the top a row at a time, for the pyramid builder.
///
/// libwebp has no row callback, only an incremental decoder that writes into a buffer the size
/// of the frame. So the file is mapped (never copied) and handed to the decoder a slice at a
/// time (`WebPIUpdate`), and the buffer is address space reserved without memory behind it
/// (`MAP_NORESERVE`): each row is passed on once decoded and its pages are given back
/// (`MADV_DONTNEED`), so what is resident is the rows one slice decodes, whatever the image's
/// height.
///
/// What libwebp holds whole of a frame is bounded first (`WebPLayout.wholeFrameBytes`): a
/// lossless frame up to 16 M pixels, a lossy frame's alpha plane up to 64 M; a lossy frame
/// without alpha streams at any size. An animation gives its first frame, on its canvas.
final class WebPScanlines: ScanlineReader {
    let width: Int
    let height: Int
    let hasAlpha: Bool
    /// The most bytes libwebp may hold whole for the frame: as much as a progressive JPEG may.
    static let wholeFrameLimit = 64 << 20
    /// The file given to the decoder at a time. The decoder decodes as far as the data it has
    /// allows, so this bounds the rows resident at once: a few for a photograph's bytes, a few
    /// hundred where a flat area takes a few bytes a row.
    static let slice = 4 << 10

    private let path: String
    private let layout: WebPLayout
    private let file: UnsafeRawPointer
    private let fileBytes: Int
    private let output: UnsafeMutableRawPointer
    private let outputBytes: Int
    private let rowBytes: Int
    private let decoder: OpaquePointer
    /// Bytes of the frame's bitstream given to the decoder.
    private var fed = 0
    /// Frame rows the decoder has finished.
    private var decodedRows = 0
    /// Bytes at the start of `output` given back.
    private var released = 0
    /// The next canvas row `readRow` gives.
    private var nextRow = 0

    /// Takes `file` (closed here: the mapping outlives it) and reads the layout.
    /// - Parameter wholeFrameLimit: the most bytes libwebp may hold whole (the tests lower it).
    /// - Throws: `ContentError` naming `path`.
    init(file: UnsafeMutablePointer<FILE>, path: String, wholeFrameLimit: Int = WebPScanlines.wholeFrameLimit) throws {
        self.path = path
        defer { fclose(file) }
        var info = stat()
        guard fstat(fileno(file), &info) == 0 else { throw ContentError(path: path, reason: .unreadable(.current("fstat", path))) }
        fileBytes = Int(info.st_size)
        guard fileBytes > 0 else { throw ContentError(path: path, reason: .empty) }
        guard let mapped = mmap(nil, fileBytes, PROT_READ, MAP_PRIVATE, fileno(file), 0), mapped != MAP_FAILED else {
            throw ContentError(path: path, reason: .unreadable(.current("mmap", path)))
        }
        self.file = UnsafeRawPointer(mapped)
        // The file is read front to back once.
        _ = madvise(mapped, fileBytes, MADV_SEQUENTIAL)
        let layout: WebPLayout
        do {
            layout = try WebPLayout.read(UnsafeRawBufferPointer(start: mapped, count: fileBytes), path: path)
            guard layout.wholeFrameBytes <= wholeFrameLimit else {
                let kind = layout.lossless ? "a lossless WebP of \(layout.frame.width)x\(layout.frame.height)"
                    : "a WebP of \(layout.frame.width)x\(layout.frame.height) with alpha"
                let held = layout.lossless ? "its pixels, 4 bytes each" : "its alpha plane, a byte a pixel"
                throw ContentError(path: path, reason: .notStreamable(
                    "\(kind) would be held whole in memory by libwebp (\(held): \(layout.wholeFrameBytes >> 20) MiB, the limit is "
                    + "\(wholeFrameLimit >> 20) MiB); save it as a lossy WebP without alpha, a PNG or a JPEG"))
            }
        } catch {
            munmap(mapped, fileBytes)
            throw error
        }
        self.layout = layout
        width = layout.canvas.width
        height = layout.canvas.height
        hasAlpha = !layout.opaque
        rowBytes = layout.frame.width * (hasAlpha ? 4 : 3)
        outputBytes = rowBytes * layout.frame.height
        guard let reserved = mmap(nil, outputBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
              reserved != MAP_FAILED else {
            munmap(mapped, fileBytes)
            throw ContentError(path: path, reason: .outOfMemory(width: layout.frame.width, height: layout.frame.height))
        }
        output = reserved
        guard let decoder = WebPINewRGB(hasAlpha ? MODE_RGBA : MODE_RGB, reserved.assumingMemoryBound(to: UInt8.self),
                                        outputBytes, Int32(rowBytes)) else {
            munmap(reserved, outputBytes)
            munmap(mapped, fileBytes)
            throw ContentError(path: path, reason: .outOfMemory(width: layout.frame.width, height: layout.frame.height))
        }
        self.decoder = decoder
    }

    deinit {
        WebPIDelete(decoder)
        munmap(output, outputBytes)
        munmap(UnsafeMutableRawPointer(mutating: file), fileBytes)
    }

    func readRow(into row: UnsafeMutablePointer<UInt8>) throws {
        precondition(nextRow < height, "row \(nextRow) of \(height)")
        let frame = layout.frame
        let y = nextRow - frame.y0
        nextRow += 1
        guard y >= 0, y < frame.height else {
            // Outside an animation's first frame: transparent.
            row.initialize(repeating: 0, count: width * channels)
            return
        }
        while decodedRows <= y { try feed() }
        let source = (output + y * rowBytes).assumingMemoryBound(to: UInt8.self)
        if frame.width == width {
            row.update(from: source, count: rowBytes)
        } else {
            row.initialize(repeating: 0, count: width * channels)
            (row + frame.x0 * channels).update(from: source, count: rowBytes)
        }
        // The rows above this one are done with: their pages go back to the system.
        let done = y * rowBytes / Int(pageSize) * Int(pageSize)
        if done > released {
            _ = madvise(output + released, done - released, MADV_DONTNEED)
            released = done
        }
    }

    /// Gives the decoder the next slice of the frame's bitstream and takes the rows it finished.
    private func feed() throws {
        let payload = layout.payload
        guard fed < payload.count else {
            throw ContentError(path: path, reason: .truncated(detail: "the frame ended after \(decodedRows) of \(layout.frame.height) rows"))
        }
        fed = min(payload.count, fed + Self.slice)
        let status = WebPIUpdate(decoder, (file + payload.lowerBound).assumingMemoryBound(to: UInt8.self), fed)
        guard status == VP8_STATUS_OK || status == VP8_STATUS_SUSPENDED else {
            throw ContentError(path: path, reason: WebPLayout.reason(status, size: PixelSize(width: layout.frame.width, height: layout.frame.height)))
        }
        var last: Int32 = 0
        if WebPIDecGetRGB(decoder, &last, nil, nil, nil) != nil { decodedRows = max(decodedRows, Int(last)) }
    }

    /// Bytes of the decoder's output resident now (`mincore`): the rows in flight.
    var residentOutputBytes: Int {
        let pages = (outputBytes + Int(pageSize) - 1) / Int(pageSize)
        var resident = [UInt8](repeating: 0, count: pages)
        guard mincore(output, outputBytes, &resident) == 0 else { return -1 }
        return resident.reduce(0) { $0 + Int($1 & 1) } * Int(pageSize)
    }

    private let pageSize = sysconf(Int32(_SC_PAGESIZE))
}
