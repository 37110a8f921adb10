import CPixman
import FlickCore
import Glibc

/// A width and a height in whole pixels, as buffers and panels have them.
public struct PixelSize: Hashable, Sendable, CustomStringConvertible {
    /// Columns.
    public var width: Int
    /// Rows.
    public var height: Int

    /// Creates a size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The number of pixels, `width × height` (0 when either is negative).
    public var area: Int { width > 0 && height > 0 ? width * height : 0 }

    /// The same size as floating-point points.
    public var size: Size { Size(width: Double(width), height: Double(height)) }

    public var description: String { "\(width)x\(height)" }

    /// This size scaled down, keeping its aspect, to at most `pixels` pixels (each side at
    /// least 1); unchanged when it is within them already.
    public func shrunk(toArea pixels: Int) -> PixelSize {
        let scale = min(1, (Double(max(0, pixels)) / Double(max(1, area))).squareRoot())
        return PixelSize(width: max(1, Int(Double(width) * scale)), height: max(1, Int(Double(height) * scale)))
    }
}

/// How the 32 bits of one pixel are laid out. Both are native-endian words, so on little-endian
/// machines the bytes in memory are B, G, R, X/A (DRM's `XRGB8888`, pixman's `x8r8g8b8`).
public enum PixelFormat: Hashable, Sendable {
    /// Opaque: the top byte is ignored. The format of every output.
    case xrgb8888
    /// With alpha in the top byte; colour channels premultiplied by it.
    case argb8888

    /// The pixman format code.
    var pixman: pixman_format_code_t {
        switch self {
        case .xrgb8888: PIXMAN_x8r8g8b8
        case .argb8888: PIXMAN_a8r8g8b8
        }
    }
}

/// An opaque RGB colour, 8 bits a channel.
public struct Color: Hashable, Sendable {
    /// Red, 0…255.
    public var red: UInt8
    /// Green, 0…255.
    public var green: UInt8
    /// Blue, 0…255.
    public var blue: UInt8

    /// Creates a colour from its channels.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Creates a colour from a `0xRRGGBB` literal.
    public init(rgb: UInt32) {
        self.init(red: UInt8((rgb >> 16) & 0xFF), green: UInt8((rgb >> 8) & 0xFF), blue: UInt8(rgb & 0xFF))
    }

    /// The colour as an opaque `0xFFRRGGBB` pixel word.
    public var pixel: UInt32 { 0xFF00_0000 | UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue) }

    /// Black.
    public static let black = Color(rgb: 0x000000)
    /// White.
    public static let white = Color(rgb: 0xFFFFFF)
}

/// A block of 32-bit pixels with a pixman image over it, created once with the buffer.
///
/// The pixels are either owned (allocated here, freed on deinit) or borrowed from their real
/// owner (a mapped DRM dumb buffer, the fbdev mapping): a borrowed buffer is valid only while
/// that owner lives, which the output that lends it guarantees.
public final class PixelBuffer {
    /// Columns.
    public let width: Int
    /// Rows.
    public let height: Int
    /// Bytes from the start of one row to the next (DRM's pitch); at least `width × 4`.
    public let stride: Int
    /// The pixel layout.
    public let format: PixelFormat
    /// The first byte of row 0.
    public let pixels: UnsafeMutableRawPointer
    /// The pixman image over `pixels`.
    let image: OpaquePointer
    /// Whether the pixels are this object's (freed with it), not borrowed.
    let ownsPixels: Bool
    /// The length of an owned `mmap` (0: owned memory came from `calloc`).
    private var mappedBytes = 0

    private static let hugePage = 2 << 20
    /// Buffers from this size up are mapped on their own (a 256×256 tile is 256 KiB).
    private static let mappedFrom = 64 << 10

    /// Anonymous zero pages starting on a 2 MiB boundary, advised as huge pages (where the
    /// kernel has transparent huge pages; elsewhere plain pages, as before).
    /// - Returns: the memory, whose length is `bytes` rounded up to whole pages.
    private static func mapHugeAligned(_ bytes: Int) -> UnsafeMutableRawPointer? {
        let bytes = (bytes + 4095) / 4096 * 4096
        let span = bytes + hugePage
        guard let raw = mmap(nil, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              raw != MAP_FAILED else { return nil }
        let start = (Int(bitPattern: raw) + hugePage - 1) / hugePage * hugePage
        let head = start - Int(bitPattern: raw), tail = span - head - bytes
        if head > 0 { munmap(raw, head) }
        let aligned = raw + head
        if tail > 0 { munmap(aligned + bytes, tail) }
        _ = madvise(aligned, bytes, MADV_HUGEPAGE)
        return aligned
    }

    /// Allocates a zero-filled buffer (transparent black, or black for `.xrgb8888`).
    ///
    /// - Returns: `nil` when a side is not positive, the size overflows, or pixman refuses it.
    public convenience init?(width: Int, height: Int, format: PixelFormat = .xrgb8888) {
        guard width > 0, height > 0, width <= 1 << 16, height <= 1 << 16 else { return nil }
        let (bytes, overflow) = (width * 4).multipliedReportingOverflow(by: height)
        guard !overflow else { return nil }
        // Fresh pages are zero, so a buffer about to be overwritten (decoded content, the test
        // pattern) is not cleared first. Large ones are mapped on huge-page boundaries and
        // offered to transparent huge pages: a 4096² image is 32 page faults instead of 16 384,
        // which were a fifth of the time to the first frame.
        let memory: UnsafeMutableRawPointer
        var mapped = 0
        if bytes >= Self.hugePage * 2, let huge = Self.mapHugeAligned(bytes) {
            memory = huge
            mapped = (bytes + 4095) / 4096 * 4096
        } else if bytes >= Self.mappedFrom, let pages = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                  pages != MAP_FAILED {
            // Tiles come and go by the hundred: mapped, a tile evicted is memory given back at
            // once. From malloc, glibc's sliding mmap threshold soon serves them from the heap,
            // where freed tiles stay resident as holes.
            memory = pages
            mapped = (bytes + 4095) / 4096 * 4096
        } else {
            guard let block = calloc(bytes, 1) else { return nil }
            memory = block
        }
        self.init(pixels: memory, width: width, height: height, stride: width * 4, format: format, owns: true)
        self.mappedBytes = mapped
        if self.imageFailed { return nil }
    }

    /// Wraps pixels owned by someone else.
    ///
    /// - Parameters:
    ///   - pixels: the first byte of row 0; must stay valid for the life of this object.
    ///   - stride: bytes per row, a multiple of 4 and at least `width × 4`.
    /// - Returns: `nil` when the geometry is invalid or pixman refuses it.
    public convenience init?(borrowing pixels: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int,
                             format: PixelFormat = .xrgb8888) {
        guard width > 0, height > 0, stride >= width * 4, stride % 4 == 0 else { return nil }
        self.init(pixels: pixels, width: width, height: height, stride: stride, format: format, owns: false)
        if self.imageFailed { return nil }
    }

    private let imageFailed: Bool

    private init(pixels: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int, format: PixelFormat,
                 owns: Bool) {
        self.width = width
        self.height = height
        self.stride = stride
        self.format = format
        self.pixels = pixels
        self.ownsPixels = owns
        let created = pixman_image_create_bits(format.pixman, Int32(width), Int32(height),
                                               pixels.assumingMemoryBound(to: UInt32.self), Int32(stride))
        // A never-drawn placeholder keeps `image` non-optional; failable inits return nil on it.
        self.imageFailed = created == nil
        self.image = created ?? pixman_image_create_solid_fill([pixman_color_t(red: 0, green: 0, blue: 0, alpha: 0)])
    }

    deinit {
        pixman_image_unref(image)
        if ownsPixels {
            if mappedBytes > 0 { munmap(pixels, mappedBytes) } else { free(pixels) }
        }
    }

    /// The size in pixels.
    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// Row `y` as 32-bit words.
    @inline(__always)
    public func row(_ y: Int) -> UnsafeMutablePointer<UInt32> {
        (pixels + y * stride).assumingMemoryBound(to: UInt32.self)
    }

    /// The pixel word at (`x`, `y`); both must be inside the buffer.
    public subscript(x: Int, y: Int) -> UInt32 {
        get {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(size)")
            return row(y)[x]
        }
        set {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(size)")
            row(y)[x] = newValue
        }
    }

    /// Sets every pixel to `value`.
    public func fill(_ value: UInt32) {
        for y in 0..<height { row(y).update(repeating: value, count: width) }
    }

    /// Copies the pixels of a same-sized buffer, row by row (strides may differ).
    public func copy(from other: PixelBuffer) {
        precondition(other.width == width && other.height == height, "copy between different sizes")
        copy(from: other, x: 0, y: 0, width: width, height: height)
    }

    /// Copies the `width`×`height` block of `source` whose top-left is (`x`, `y`) to (`toX`,
    /// `toY`) here, one memcpy per row (strides may differ). The block lies inside both buffers.
    public func copy(from source: PixelBuffer, x: Int, y: Int, width: Int, height: Int, toX: Int = 0, toY: Int = 0) {
        precondition(x >= 0 && y >= 0 && x + width <= source.width && y + height <= source.height
                     && toX >= 0 && toY >= 0 && toX + width <= self.width && toY + height <= self.height,
                     "copy of a block outside a buffer")
        var from = source.pixels + y * source.stride + x * 4
        var to = pixels + toY * stride + toX * 4
        for _ in 0..<height {
            to.copyMemory(from: from, byteCount: width * 4)
            from += source.stride
            to += stride
        }
    }
}
