import FlickSystem

/// Writes `text` to stderr whole, unbuffered (a log line must not wait in a buffer for a crash).
public func writeStandardError(_ text: String) {
    try? writeWhole(Array(text.utf8), to: 2, context: "standard error")
}

/// Writes `text` to stdout whole, unbuffered: a script on the other end of a pipe acts on each
/// line as it comes (`flickd calibrate`'s targets, `flickd events`' lines).
public func writeStandardOutput(_ text: String) {
    try? writeWhole(Array(text.utf8), to: 1, context: "standard output")
}
