/// The image formats flickd decodes itself, told apart by their first bytes, never by a file's
/// name: PNG (libspng), JPEG (libjpeg-turbo) and WebP (libwebp).
public enum ImageFormat: String, Sendable, CaseIterable {
    case png = "PNG"
    case jpeg = "JPEG"
    case webp = "WebP"

    /// The bytes that tell the formats apart: WebP's RIFF header is the longest.
    public static let signatureLength = 12

    /// The extensions a folder's image pages have (`Content.load(directory:)`).
    public static let extensions = [".png", ".jpg", ".jpeg", ".webp"]

    /// The format whose signature `bytes` (a file's first bytes) start with, or nil.
    public init?(signature bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(Self.signatureLength))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            self = .png
        } else if head.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if head.count == 12, head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WEBP".utf8) {
            self = .webp
        } else {
            return nil
        }
    }

    /// Whether `name` has one of `extensions` (any case).
    public static func hasImageExtension(_ name: String) -> Bool {
        let lower = name.lowercased()
        return extensions.contains { lower.hasSuffix($0) }
    }

    /// Decodes a whole file of this format.
    /// - Throws: `ContentError` naming `path`.
    func decode(_ data: [UInt8], path: String, pixelBudget: Int) throws -> DecodedImage {
        switch self {
        case .png: DecodedImage(pixels: try PNGCodec.decode(data, path: path, pixelBudget: pixelBudget))
        case .jpeg: DecodedImage(pixels: try JPEGDecoder.decode(data, path: path, pixelBudget: pixelBudget))
        case .webp: try WebPDecoder.decode(data, path: path, pixelBudget: pixelBudget)
        }
    }
}

/// A decoded image, and what to say of how it was read (an animation's first frame).
public struct DecodedImage {
    public var pixels: PixelBuffer
    /// Said in the journal with the content's summary; nil when there is nothing to say.
    public var note: String?

    public init(pixels: PixelBuffer, note: String? = nil) {
        self.pixels = pixels
        self.note = note
    }
}
