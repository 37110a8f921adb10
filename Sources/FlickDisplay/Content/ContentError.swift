import FlickCore

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
        case unreadable(SystemErrno)
        /// The file has no bytes.
        case empty
        /// The file is bigger than the loader accepts.
        case fileTooLarge(bytes: Int, limit: Int)
        /// Neither PNG nor JPEG (judged by the first bytes, not the name).
        case unsupportedFormat
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
        case cacheWriteFailed(step: String, errno: SystemErrno)
        /// The image cannot be read row by row (an interlaced PNG, a huge progressive JPEG).
        case notStreamable(String)

        public var description: String {
            switch self {
            case .unreadable(let errno): "cannot read: \(errno)"
            case .empty: "the file is empty (0 bytes)"
            case .fileTooLarge(let bytes, let limit): "the file is \(bytes) bytes, more than the \(limit) accepted"
            case .unsupportedFormat: "not a PNG or JPEG file"
            case .truncated(let detail): "the file is truncated (\(detail))"
            case .corrupt(let detail): "the image is corrupt (\(detail))"
            case .overPixelBudget(let w, let h, let budget):
                "\(w)x\(h) = \(w * h) pixels is over the pixel budget of \(budget); raise the budget or shrink the image"
            case .noImages: "no .png, .jpg or .jpeg files in the folder"
            case .outOfMemory(let w, let h): "cannot allocate \(w)x\(h) pixels"
            case .notAllowed(let why): "refused: \(why)"
            case .changedWhileBuilding(let before, let after):
                "the file changed while its pyramid was being built (\(before) → \(after)); the partial pyramid was discarded, build again once the file is complete"
            case .cacheWriteFailed(let step, let errno):
                "cannot write the pyramid cache (\(step)): \(errno); nothing partial was left behind"
            case .notStreamable(let why): "cannot be read row by row: \(why)"
            }
        }
    }

    public var context: ErrorContext { ErrorContext(source: path, reason: reason.description) }

    public var kind: ErrorKind {
        switch reason {
        case .unreadable: .noInput
        case .outOfMemory: .unavailable
        case .cacheWriteFailed: .io
        case .empty, .fileTooLarge, .unsupportedFormat, .truncated, .corrupt, .overPixelBudget, .noImages, .notAllowed,
             .changedWhileBuilding, .notStreamable: .data
        }
    }
}
