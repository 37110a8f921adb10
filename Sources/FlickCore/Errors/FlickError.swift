/// What every error flickd reports says, whatever raised it: where it happened — a file and
/// its line, a device, a request, a call — the key or field at fault, and what was wrong: what
/// was expected and what was found, or a reason in words. One shape, rendered one way, so the
/// command line, the journal and the control socket's replies say the same thing
/// (`flickd.toml:3: scroll.spring_mass: expected a number greater than 0, got -1`).
public protocol FlickError: Error, CustomStringConvertible {
    /// Where and what.
    var context: ErrorContext { get }
    /// What kind of failure it is, for an exit status.
    var kind: ErrorKind { get }
}

extension FlickError {
    /// The one rendering: `source:line: key: reason; expected X, got Y`.
    public var description: String { context.rendered }
    /// Most errors are about data: a file, a recording, a request, a value.
    public var kind: ErrorKind { .data }
}

/// The kinds of failure, with the exit status `flickd` and `flickctl` give each (sysexits.h).
public enum ErrorKind: Int32, Hashable, Sendable {
    /// The command line is wrong (EX_USAGE).
    case usage = 64
    /// The input data is wrong: a recording, content, a request (EX_DATAERR).
    case data = 65
    /// An input file does not exist or cannot be read (EX_NOINPUT).
    case noInput = 66
    /// A service or device is not there: no display, no daemon on the socket (EX_UNAVAILABLE).
    case unavailable = 69
    /// flickd itself failed (EX_SOFTWARE).
    case software = 70
    /// Reading or writing failed (EX_IOERR).
    case io = 74
    /// The config file is wrong (EX_CONFIG).
    case config = 78
}

/// Where an error happened and what was wrong; every field is optional.
public struct ErrorContext: Hashable, Sendable, CustomStringConvertible {
    /// The file, device, option or request it is about.
    public var source: String?
    /// The 1-based line in `source`.
    public var line: Int?
    /// The key or field at fault.
    public var key: String?
    /// What was wrong, in words.
    public var reason: String?
    /// What would have been accepted.
    public var expected: String?
    /// What was found instead.
    public var found: String?

    /// Creates a context; a line of 0 or less means the source as a whole.
    public init(source: String? = nil, line: Int? = nil, key: String? = nil, reason: String? = nil,
                expected: String? = nil, found: String? = nil) {
        self.source = source
        self.line = line.flatMap { $0 > 0 ? $0 : nil }
        self.key = key.flatMap { $0.isEmpty ? nil : $0 }
        self.reason = reason
        self.expected = expected
        self.found = found
    }

    /// What was wrong, without where: `reason; expected X, got Y`.
    public var what: String {
        var text = reason ?? ""
        if let expected {
            text += (text.isEmpty ? "" : "; ") + "expected \(expected)" + (found.map { ", got \($0)" } ?? "")
        } else if let found {
            text += (text.isEmpty ? "" : " ") + "(got \(found))"
        }
        return text
    }

    /// `source:line: key: what`.
    public var rendered: String {
        var parts: [String] = []
        if let source { parts.append(line.map { "\(source):\($0)" } ?? source) }
        if let key { parts.append(key) }
        parts.append(what)
        return parts.joined(separator: ": ")
    }

    public var description: String { rendered }

    /// The journal's structured fields (names without the `FLICK_` prefix).
    public var fields: [String: String] {
        var f: [String: String] = [:]
        f["ERROR_SOURCE"] = source
        f["ERROR_LINE"] = line.map(String.init)
        f["ERROR_KEY"] = key
        f["ERROR_REASON"] = reason
        f["ERROR_EXPECTED"] = expected
        f["ERROR_FOUND"] = found
        return f
    }
}
