/// A recording that cannot be read, with the file, the line and what was expected there.
public struct EvemuError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// The 1-based line, or 0 for the file as a whole.
    public var line: Int
    /// What was expected, and what was found.
    public var message: String

    /// Creates an error.
    public init(path: String, line: Int, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public var description: String { line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)" }
}
