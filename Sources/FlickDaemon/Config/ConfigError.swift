/// A config file that cannot be used, naming the file, the line and the key.
public struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// The 1-based line, or 0 when the problem is the file as a whole.
    public var line: Int
    /// The key (`scroll.deceleration_rate`), or empty for a syntax error.
    public var key: String
    /// What was expected, and what was found.
    public var message: String

    /// Creates an error.
    public init(path: String, line: Int, key: String, message: String) {
        self.path = path
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        let place = line > 0 ? "\(path):\(line)" : path
        return key.isEmpty ? "\(place): \(message)" : "\(place): \(key): \(message)"
    }
}

/// What a key's reader found wrong, before the loader adds the file, line and key.
struct ValueProblem: Error {
    var message: String
}
