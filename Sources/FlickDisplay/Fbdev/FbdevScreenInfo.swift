import FlickCore
import FlickSystem
/// The kernel's `struct fb_var_screeninfo` (linux/fb.h) as bytes with typed fields.
///
/// Kept as raw bytes at the kernel's offsets rather than a Swift struct, because Swift does not
/// promise C layout for its own structs; every field is a `__u32`.
public struct FbVarScreenInfo: Hashable, Sendable {
    /// The struct's size in bytes.
    static let byteCount = 160
    var bytes = [UInt8](repeating: 0, count: byteCount)

    /// An all-zero struct.
    public init() {}

    private func field(_ index: Int) -> UInt32 {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self) }
    }

    private mutating func setField(_ index: Int, _ value: UInt32) {
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: value, toByteOffset: index * 4, as: UInt32.self) }
    }

    /// Visible columns.
    public var xres: UInt32 { get { field(0) } set { setField(0, newValue) } }
    /// Visible rows.
    public var yres: UInt32 { get { field(1) } set { setField(1, newValue) } }
    /// Columns of the virtual (panning) area.
    public var xresVirtual: UInt32 { get { field(2) } set { setField(2, newValue) } }
    /// Rows of the virtual area; ≥ 2 × `yres` allows double buffering by panning.
    public var yresVirtual: UInt32 { get { field(3) } set { setField(3, newValue) } }
    /// The visible area's column in the virtual area.
    public var xoffset: UInt32 { get { field(4) } set { setField(4, newValue) } }
    /// The visible area's row in the virtual area.
    public var yoffset: UInt32 { get { field(5) } set { setField(5, newValue) } }
    /// Bits per pixel.
    public var bitsPerPixel: UInt32 { get { field(6) } set { setField(6, newValue) } }
    /// The picture's height in millimetres; 0 or `UInt32.max` (the kernel's −1) if unknown.
    public var heightMillimetres: UInt32 { get { field(22) } set { setField(22, newValue) } }
    /// The picture's width in millimetres; 0 or `UInt32.max` if unknown.
    public var widthMillimetres: UInt32 { get { field(23) } set { setField(23, newValue) } }
    /// Picoseconds per pixel clock, 0 if unknown.
    public var pixclock: UInt32 { get { field(25) } set { setField(25, newValue) } }

    /// The visible area in millimetres, when the driver says (both fields set and not −1).
    public var physicalSize: Size? {
        let (w, h) = (widthMillimetres, heightMillimetres)
        guard w > 0, h > 0, w != .max, h != .max else { return nil }
        return Size(width: Double(w), height: Double(h))
    }
}

/// The parts of the kernel's `struct fb_fix_screeninfo` FlickDisplay needs, read at the
/// kernel's offsets for this machine's `unsigned long` size.
public struct FbFixScreenInfo: Hashable, Sendable {
    /// The struct's size: 80 bytes with 64-bit `long`, 68 with 32-bit.
    static var byteCount: Int { MemoryLayout<UInt>.size == 8 ? 80 : 68 }
    var bytes = [UInt8](repeating: 0, count: byteCount)

    /// An all-zero struct.
    public init() {}

    private var long: Int { MemoryLayout<UInt>.size }
    private var smemLenOffset: Int { 16 + long }
    // id[16], smem_start, smem_len, type, type_aux, visual, xpanstep, ypanstep, ywrapstep, (pad), line_length
    private var ypanstepOffset: Int { smemLenOffset + 18 }
    private var lineLengthOffset: Int { (smemLenOffset + 22 + 3) / 4 * 4 }

    private func load<T: FixedWidthInteger>(_ offset: Int, as: T.Type) -> T {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }

    private mutating func store<T: FixedWidthInteger>(_ offset: Int, _ value: T) {
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: value, toByteOffset: offset, as: T.self) }
    }

    /// The mapping's length in bytes.
    public var smemLength: UInt32 { get { load(smemLenOffset, as: UInt32.self) } set { store(smemLenOffset, newValue) } }
    /// Rows per vertical pan step; 0 means the driver cannot pan vertically.
    public var ypanstep: UInt16 { get { load(ypanstepOffset, as: UInt16.self) } set { store(ypanstepOffset, newValue) } }
    /// Bytes per row.
    public var lineLength: UInt32 { get { load(lineLengthOffset, as: UInt32.self) } set { store(lineLengthOffset, newValue) } }
}

/// How an fbdev device will be drawn: decided from its screen info, without touching it.
public struct FbdevLayout: Hashable, Sendable {
    /// The visible size.
    public var size: PixelSize
    /// Bytes per row.
    public var stride: Int
    /// 2 when the virtual area holds two screens and the driver pans (flip by `FBIOPAN_DISPLAY`),
    /// else 1 (draw into memory and copy on commit, so no half-drawn frame is shown).
    public var bufferCount: Int
    /// Bytes to map.
    public var mappedLength: Int

    /// Decides the layout.
    ///
    /// - Throws: `FbdevError.unsupportedDepth` unless 32 bpp; `.badGeometry` if the mapping is
    ///   too small for what the screen info claims.
    public static func plan(variable v: FbVarScreenInfo, fixed f: FbFixScreenInfo, device: String) throws -> FbdevLayout {
        guard v.bitsPerPixel == 32 else { throw FbdevError.unsupportedDepth(device: device, bitsPerPixel: Int(v.bitsPerPixel)) }
        let width = Int(v.xres), height = Int(v.yres), stride = Int(f.lineLength)
        guard width > 0, height > 0, stride >= width * 4 else { throw FbdevError.badGeometry(device: device) }
        let canPan = v.yresVirtual >= 2 * v.yres && f.ypanstep > 0 && Int(f.smemLength) >= stride * height * 2
        let count = canPan ? 2 : 1
        guard Int(f.smemLength) >= stride * height * count else { throw FbdevError.badGeometry(device: device) }
        return FbdevLayout(size: PixelSize(width: width, height: height), stride: stride, bufferCount: count,
                           mappedLength: stride * height * count)
    }
}

/// Why the fbdev output could not be set up or used.
public enum FbdevError: FlickError, Hashable, Sendable {
    /// Opening the device failed; `EACCES` usually means the user is not in the `video` group.
    case open(device: String, cause: SystemError)
    /// An ioctl failed.
    case ioctl(device: String, request: String, cause: SystemError)
    /// Mapping the framebuffer failed.
    case mmap(device: String, cause: SystemError)
    /// Only 32 bits per pixel is supported.
    case unsupportedDepth(device: String, bitsPerPixel: Int)
    /// The screen info is inconsistent (size, stride, memory length).
    case badGeometry(device: String)

    public var context: ErrorContext {
        switch self {
        case .open(let device, let cause):
            ErrorContext(source: device, reason: "cannot open: \(cause.errnoDescription)" + (cause.isPermissionError ? "; add the user to the 'video' group" : ""))
        case .ioctl(let device, let request, let cause): ErrorContext(source: device, reason: "\(request) failed: \(cause.errnoDescription)")
        case .mmap(let device, let cause): ErrorContext(source: device, reason: "mmap failed: \(cause.errnoDescription)")
        case .unsupportedDepth(let device, let bpp):
            ErrorContext(source: device, reason: "set a 32 bpp mode (e.g. fbset -depth 32)", expected: "32 bits per pixel", found: "\(bpp)")
        case .badGeometry(let device): ErrorContext(source: device, reason: "inconsistent screen info (size, line length or memory)")
        }
    }

    public var kind: ErrorKind { .unavailable }
}
