import Glibc

/// Whole-file reads and writes, with the failed call kept for the caller's error value.
public enum FileIO {
    /// Reads a regular file into memory, refusing files larger than `limit` bytes.
    ///
    /// - Returns: the bytes, or why not: `.tooLarge(size)` or the failed call.
    /// - Parameter truncating: read the first `limit` bytes of a longer file instead of failing.
    public static func read(_ path: String, limit: Int, truncating: Bool = false) -> Result<[UInt8], ReadFailure> {
        let fd: Int32
        switch retryingResult("open", path, { open(path, O_RDONLY | O_CLOEXEC) }) {
        case .success(let value): fd = value
        case .failure(let error): return .failure(.system(error))
        }
        defer { _ = Glibc.close(fd) }
        var info = stat()
        if fstat(fd, &info) != 0 { return .failure(.system(.current("fstat", path))) }
        if (info.st_mode & S_IFMT) == S_IFDIR { return .failure(.system(SystemError(call: "read", context: path, errno: EISDIR))) }
        // Pseudo files (/proc, some of /sys) report size 0 whatever they hold: read to end of
        // file, at most `limit` bytes.
        if info.st_size == 0 { return readToEnd(fd, path, limit: limit, truncating: truncating) }
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
                retryingResult("read", path) { Glibc.read(fd, buffer.baseAddress! + filled, size - filled) }
            }
            switch result {
            case .success(0): return .success(Array(bytes[..<filled]))
            case .success(let count): filled += count
            case .failure(let error): return .failure(.system(error))
            }
        }
        return .success(bytes)
    }

    /// Reads an open file of unknown size to its end, in growing chunks, refusing more than
    /// `limit` bytes (or keeping the first `limit` when `truncating`).
    private static func readToEnd(_ fd: Int32, _ path: String, limit: Int, truncating: Bool) -> Result<[UInt8], ReadFailure> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let result = chunk.withUnsafeMutableBytes { buffer in
                retryingResult("read", path) { Glibc.read(fd, buffer.baseAddress!, buffer.count) }
            }
            switch result {
            case .success(0): return .success(bytes)
            case .success(let count):
                bytes += chunk[..<count]
                if bytes.count > limit {
                    guard truncating else { return .failure(.tooLarge(bytes.count)) }
                    return .success(Array(bytes[..<limit]))
                }
            case .failure(let error): return .failure(.system(error))
            }
        }
    }

    /// Why a read failed.
    public enum ReadFailure: Error {
        case system(SystemError)
        case tooLarge(Int)
    }

    /// Writes `bytes` to `path` (created with mode 0644, or truncated).
    public static func write(_ bytes: [UInt8], to path: String) -> Result<Void, SystemError> {
        let fd: Int32
        switch retryingResult("open", path, { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }) {
        case .success(let value): fd = value
        case .failure(let error): return .failure(error)
        }
        do {
            try writeWhole(bytes, to: fd, context: path)
        } catch {
            _ = Glibc.close(fd)
            return .failure(error)
        }
        // close() reports delayed write errors (NFS, full disk): do not drop them.
        if Glibc.close(fd) != 0 { return .failure(.current("close", path)) }
        return .success(())
    }

    /// Whether `path` is a directory (following symbolic links); false when it cannot be stat'ed.
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether `path` names anything (following symbolic links).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// The names in a directory (without `.` and `..`), or why `opendir` failed.
    public static func list(_ path: String) -> Result<[String], SystemError> {
        guard let dir = opendir(path) else { return .failure(.current("opendir", path)) }
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
