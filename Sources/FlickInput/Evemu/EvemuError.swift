import FlickCore
import FlickSystem

/// A recording that cannot be read, with the file, the line and what was expected there.
public struct EvemuError: FlickError, Hashable, Sendable {
    /// The file.
    public var path: String
    /// The 1-based line, or 0 for the file as a whole.
    public var line: Int
    /// What was expected, and what was found.
    public var message: String
    /// A bad recording, or one that is not there (or cannot be read).
    public var kind: ErrorKind
    /// The failed call behind it, when the kernel refused (a recording that cannot be written).
    public var cause: SystemError?

    /// Creates an error.
    public init(path: String, line: Int, message: String, kind: ErrorKind = .data) {
        self.path = path
        self.line = line
        self.message = message
        self.kind = kind
    }

    /// An I/O error the kernel's refusal caused: `step: <errno in words>`, for the file as a whole.
    /// - Parameters:
    ///   - path: the file.
    ///   - step: what was being done ("cannot write").
    ///   - cause: the failed call.
    public init(path: String, step: String, cause: SystemError) {
        self.init(path: path, line: 0, message: "\(step): \(cause.message)", kind: .io)
        self.cause = cause
    }

    public var context: ErrorContext { ErrorContext(source: path, line: line, reason: message) }
}
