import Glibc

/// Whole-file reads and writes, with errno kept for the caller's error value.
enum FileIO {
    /// Reads a regular file into memory, refusing files larger than `limit` bytes.
    ///
    /// - Returns: the bytes, or why not: `.tooLarge(size)` or an errno.
    /// - Parameter truncating: read the first `limit` bytes of a longer file instead of failing.
    static func read(_ path: String, limit: Int, truncating: Bool = false) -> Result<[UInt8], ReadFailure> {
        let fd: Int32
        switch valueOrErrno({ open(path, O_RDONLY | O_CLOEXEC) }) {
        case .success(let value): fd = value
        case .failure(let error): return .failure(.errno(error))
        }
        defer { _ = Glibc.close(fd) }
        var info = stat()
        if fstat(fd, &info) != 0 { return .failure(.errno(.current)) }
        if (info.st_mode & S_IFMT) == S_IFDIR { return .failure(.errno(SystemErrno(rawValue: EISDIR))) }
        var size = Int(info.st_size)
        if size > limit {
            guard truncating else { return .failure(.tooLarge(size)) }
            size = limit
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        // The size can change under us (a file being written): stop at EOF, never read past `size`.
        while filled < size {
            let result = bytes.withUnsafeMutableBytes { buffer in
                valueOrErrno { Glibc.read(fd, buffer.baseAddress! + filled, size - filled) }
            }
            switch result {
            case .success(0): return .success(Array(bytes[..<filled]))
            case .success(let count): filled += count
            case .failure(let error): return .failure(.errno(error))
            }
        }
        return .success(bytes)
    }

    /// Why a read failed.
    enum ReadFailure: Error {
        case errno(SystemErrno)
        case tooLarge(Int)
    }

    /// Writes `bytes` to `path` (created with mode 0644, or truncated).
    static func write(_ bytes: [UInt8], to path: String) -> Result<Void, SystemErrno> {
        let fd: Int32
        switch valueOrErrno({ open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }) {
        case .success(let value): fd = value
        case .failure(let error): return .failure(error)
        }
        if case .failure(let error) = writeAll(bytes, to: fd) {
            _ = Glibc.close(fd)
            return .failure(error)
        }
        // close() reports delayed write errors (NFS, full disk): do not drop them.
        if Glibc.close(fd) != 0 { return .failure(.current) }
        return .success(())
    }

    /// Writes all of `bytes` to an open fd (retrying short writes and EINTR).
    static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Result<Void, SystemErrno> {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                valueOrErrno { Glibc.write(fd, buffer.baseAddress! + written, bytes.count - written) }
            }
            switch result {
            case .success(let count): written += count
            case .failure(let error): return .failure(error)
            }
        }
        return .success(())
    }

    /// Whether `path` is a directory (following symbolic links); false when it cannot be stat'ed.
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether `path` names anything (following symbolic links).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// The names in a directory (without `.` and `..`), or the errno of `opendir`.
    static func list(_ path: String) -> Result<[String], SystemErrno> {
        guard let dir = opendir(path) else { return .failure(.current) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return .success(names)
    }
}
