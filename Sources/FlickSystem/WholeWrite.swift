import Glibc

/// Writes all of `bytes` to a blocking `fd`, going on after short writes and `EINTR`.
///
/// Not for a non-blocking descriptor that must stop at `EAGAIN`: this would fail there.
/// - Parameters:
///   - bytes: what to write.
///   - fd: the descriptor, blocking.
///   - context: what it is, for the error (a path, "standard error").
/// - Throws: `SystemError` (`write`) with the errno, `EIO` for a write that wrote nothing.
public func writeWhole(_ bytes: UnsafeRawBufferPointer, to fd: Int32, context: String) throws(SystemError) {
    var written = 0
    while written < bytes.count {
        let n = Glibc.write(fd, bytes.baseAddress.map { $0 + written }, bytes.count - written)
        if n < 0 && Glibc.errno == EINTR { continue }
        guard n > 0 else { throw SystemError(call: "write", context: context, errno: n < 0 ? Glibc.errno : EIO) }
        written += n
    }
}

/// Writes all of `bytes` to a blocking `fd` (`writeWhole(_:to:context:)` for an array).
/// - Parameters:
///   - bytes: what to write.
///   - fd: the descriptor, blocking.
///   - context: what it is, for the error.
/// - Throws: `SystemError` (`write`).
public func writeWhole(_ bytes: [UInt8], to fd: Int32, context: String) throws(SystemError) {
    let result = bytes.withUnsafeBytes { buffer in
        Result { () throws(SystemError) in try writeWhole(buffer, to: fd, context: context) }
    }
    try result.get()
}
