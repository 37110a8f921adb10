import FlickCore

/// A config file that cannot be used, naming the file, the line and the key.
public struct ConfigError: FlickError, Hashable, Sendable {
    /// The file.
    public var path: String
    /// The 1-based line, or 0 when the problem is the file as a whole.
    public var line: Int
    /// The key (`scroll.deceleration_rate`), or empty for a syntax error.
    public var key: String
    /// What was wrong, in words (a syntax error), if not said by `expected` and `found`.
    public var reason: String?
    /// What the key takes.
    public var expected: String?
    /// What the file gives it.
    public var found: String?

    /// Creates an error said in words.
    public init(path: String, line: Int, key: String, message: String) {
        self.path = path
        self.line = line
        self.key = key
        self.reason = message
    }

    /// Creates an error saying what the key takes and what it was given.
    public init(path: String, line: Int, key: String, expected: String, found: String?) {
        self.path = path
        self.line = line
        self.key = key
        self.expected = expected
        self.found = found
    }

    /// What was expected, and what was found.
    public var message: String { context.what }

    public var context: ErrorContext {
        ErrorContext(source: path, line: line, key: key, reason: reason, expected: expected, found: found)
    }

    public var kind: ErrorKind { .config }
}

/// What a key's reader found wrong, before the loader adds the file, line and key.
struct ValueProblem: Error {
    var reason: String?
    var expected: String?
    var found: String?

    init(message: String) { reason = message }

    init(expected: String, found: String) {
        self.expected = expected
        self.found = found
    }
}
