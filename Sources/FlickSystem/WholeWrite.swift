import Glibc

/// Writes all of `bytes` to a blocking `fd`, going on after short writes and `EINTR`: at the
/// file's position, or from `offset` on (`pwrite`, the position left alone: a slot rewritten in
/// place).
///
/// Not for a non-blocking descriptor that must stop at `EAGAIN`: this would fail there.
/// - Parameters:
///   - bytes: what to write.
///   - fd: the descriptor, blocking.
///   - offset: where in the file; nil: at its position.
///   - context: what it is, for the error (a path, "standard error").
/// - Throws: `SystemError` (`write` or `pwrite`) with the errno, `EIO` for a write that wrote nothing.
public func writeWhole(_ bytes: UnsafeRawBufferPointer, to fd: Int32, at offset: Int? = nil, context: String) throws(SystemError) {
    var written = 0
    while written < bytes.count {
        let start = bytes.baseAddress.map { $0 + written }
        let n = offset.map { Glibc.pwrite(fd, start, bytes.count - written, off_t($0 + written)) }
            ?? Glibc.write(fd, start, bytes.count - written)
        if n < 0 && Glibc.errno == EINTR { continue }
        guard n > 0 else {
            throw SystemError(call: offset == nil ? "write" : "pwrite", context: context, errno: n < 0 ? Glibc.errno : EIO)
        }
        written += n
    }
}

/// Writes all of `bytes` to a blocking `fd` (`writeWhole(_:to:at:context:)` for an array).
/// - Parameters:
///   - bytes: what to write.
///   - fd: the descriptor, blocking.
///   - offset: where in the file; nil: at its position.
///   - context: what it is, for the error.
/// - Throws: `SystemError` (`write` or `pwrite`).
public func writeWhole(_ bytes: [UInt8], to fd: Int32, at offset: Int? = nil, context: String) throws(SystemError) {
    let result = bytes.withUnsafeBytes { buffer in
        Result { () throws(SystemError) in try writeWhole(buffer, to: fd, at: offset, context: context) }
    }
    try result.get()
}
