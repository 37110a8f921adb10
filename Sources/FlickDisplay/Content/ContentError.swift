import FlickCore
import FlickSystem

/// Why a content file or folder could not be loaded, naming the file.
public struct ContentError: FlickError, Hashable, Sendable {
    /// The file or directory at fault.
    public var path: String
    /// What is wrong with it.
    public var reason: Reason

    /// Creates an error.
    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    /// What is wrong with a content file.
    public enum Reason: Hashable, Sendable, CustomStringConvertible {
        /// The file could not be opened or read.
        case unreadable(SystemError)
        /// The file has no bytes.
        case empty
        /// The file is bigger than the loader accepts.
        case fileTooLarge(bytes: Int, limit: Int)
        /// Neither PNG nor JPEG (judged by the first bytes, not the name).
        case unsupportedFormat
        /// Content (`content.path`, `load`) that is none of the kinds shown: named as no
        /// document or pyramid, and no PNG or JPEG by its first bytes.
        case notContent
        /// The data ends before the image does.
        case truncated(detail: String)
        /// The data is not a valid image (bad signature, checksum, header or stream).
        case corrupt(detail: String)
        /// The decoded image would exceed the configured pixel budget.
        case overPixelBudget(width: Int, height: Int, budget: Int)
        /// A folder holds no `.png`, `.jpg` or `.jpeg` file.
        case noImages
        /// Memory for the pixels could not be allocated.
        case outOfMemory(width: Int, height: Int)
        /// The path may not be opened from where it was asked for (the control socket's allow-list).
        case notAllowed(String)
        /// The source image changed (size, modification time or inode) while its pyramid was
        /// being built; the partial pyramid was discarded.
        case changedWhileBuilding(before: String, after: String)
        /// A pyramid's cache folder or one of its files could not be written (`step` says which
        /// call: mkdir, open, write, rename…); the partial pyramid was removed.
        case cacheWriteFailed(step: String, cause: SystemError)
        /// The image cannot be read row by row (an interlaced PNG, a huge progressive JPEG).
        case notStreamable(String)
        /// A descriptor (XML) that is not well-formed: where expat stopped, its message, and what
        /// would have been well-formed there when that can be said.
        case malformedXML(line: Int, column: Int, message: String, expected: String?)
        /// A Deep Zoom descriptor missing an element or attribute, or holding what none holds
        /// (a DOCTYPE, another root): the line of the element at fault.
        case descriptorStructure(line: Int, problem: String)
        /// A Deep Zoom descriptor's attribute with a value out of what the format allows.
        case descriptorValue(line: Int, element: String, attribute: String, value: String, expected: String)
        /// A declared image with more pixels than a pyramid may have.
        case pyramidTooLarge(line: Int, width: Int, height: Int, limit: Int)
        /// A Deep Zoom pyramid without the folder of its full-resolution level.
        case missingLevelFolder(folder: String, level: Int, pattern: String)
        /// A tile whose image is not the size of its place in the pyramid.
        case wrongTileSize(expected: PixelSize, found: PixelSize)
        /// A tile asked for that the pyramid does not have.
        case tileOutsidePyramid(TileKey, levels: Int)
        /// Building the image's pyramid failed (`flickd pyramid` run by the daemon said why).
        case pyramidBuildFailed(String)
        /// The document helper (`flickd-render`) cannot show a PDF or SVG, or stopped drawing it:
        /// its words, or what went wrong with it.
        case documentFailed(String)

        public var description: String {
            switch self {
            case .unreadable(let error): "cannot read: \(error.errnoDescription)"
            case .empty: "the file is empty (0 bytes)"
            case .fileTooLarge(let bytes, let limit): "the file is \(bytes) bytes, more than the \(limit) accepted"
            case .unsupportedFormat: "not a PNG, JPEG or WebP file"
            case .notContent:
                "not content flickd shows: expected a PNG, JPEG or WebP image (judged by its first bytes), a PDF or an SVG "
                    + "(.pdf, .svg), a Deep Zoom descriptor (.dzi, .xml), or a folder of pages"
            case .truncated(let detail): "the file is truncated (\(detail))"
            case .corrupt(let detail): "the image is corrupt (\(detail))"
            case .overPixelBudget(let w, let h, let budget):
                "\(w)x\(h) = \(w * h) pixels is over the pixel budget of \(budget); raise the budget or shrink the image"
            case .noImages: "no pages in the folder: expected .png, .jpg, .jpeg, .webp, .pdf or .svg files"
            case .outOfMemory(let w, let h): "cannot allocate \(w)x\(h) pixels"
            case .notAllowed(let why): "refused: \(why)"
            case .changedWhileBuilding(let before, let after):
                "the file changed while its pyramid was being built (\(before) → \(after)); the partial pyramid was discarded, build again once the file is complete"
            case .cacheWriteFailed(let step, let error):
                "cannot write the pyramid cache (\(step)): \(error.errnoDescription); nothing partial was left behind"
            case .notStreamable(let why): "cannot be read row by row: \(why)"
            case .malformedXML(_, let column, let message, let expected):
                "malformed XML at column \(column): \(message)" + (expected.map { "; expected \($0)" } ?? "")
            case .descriptorStructure(_, let problem): problem
            case .descriptorValue(_, let element, let attribute, let value, let expected):
                "<\(element)> \(attribute)=\"\(Self.clip(value))\": expected \(expected)"
            case .pyramidTooLarge(_, let w, let h, let limit):
                "<Size> declares \(w)x\(h) = \(w * h) pixels, more than the \(limit) a pyramid may have"
            case .missingLevelFolder(let folder, let level, let pattern):
                "no folder \(folder) for the full-resolution level \(level); expected the tiles beside the descriptor, as \(pattern)"
            case .wrongTileSize(let expected, let found):
                "the tile is \(found) pixels; expected \(expected), its place in the pyramid with the overlap"
            case .tileOutsidePyramid(let key, let levels):
                "no tile \(key) in the pyramid; expected a level from 0 to \(levels - 1) and a column and row inside it"
            case .pyramidBuildFailed(let why): "its pyramid could not be built: \(why)"
            case .documentFailed(let why): "the document cannot be shown: \(why)"
            }
        }

        /// The line of the file at fault, for errors inside a descriptor.
        public var line: Int? {
            switch self {
            case .malformedXML(let line, _, _, _), .descriptorStructure(let line, _), .descriptorValue(let line, _, _, _, _),
                 .pyramidTooLarge(let line, _, _, _):
                line
            default: nil
            }
        }

        /// A value from a file, shortened for a message: at most 40 characters, control
        /// characters escaped.
        static func clip(_ text: String) -> String {
            let shown = text.count <= 40 ? text : String(text.prefix(40)) + "…"
            return shown.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? $0.escaped(asASCII: true) : String($0) }.joined()
        }
    }

    public var context: ErrorContext { ErrorContext(source: path, line: reason.line, reason: reason.description) }

    public var kind: ErrorKind {
        switch reason {
        case .unreadable: .noInput
        case .outOfMemory: .unavailable
        case .cacheWriteFailed: .io
        case .missingLevelFolder: .noInput
        case .empty, .fileTooLarge, .unsupportedFormat, .notContent, .truncated, .corrupt, .overPixelBudget, .noImages, .notAllowed,
             .changedWhileBuilding, .notStreamable, .malformedXML, .descriptorStructure, .descriptorValue, .pyramidTooLarge,
             .wrongTileSize, .tileOutsidePyramid, .pyramidBuildFailed, .documentFailed: .data
        }
    }
}
