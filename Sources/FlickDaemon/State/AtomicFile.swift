import FoundationEssentials
import Glibc

/// Replaces a file so that a power cut leaves the old or the new one, never half of one: write
/// a temporary file beside it, fsync, rename over, fsync the folder. The saved state and
/// `flickd calibrate --write` go through it.
enum AtomicFile {
    /// Writes `data` to `path` atomically.
    /// - Parameters:
    ///   - mode: the new file's permissions.
    ///   - makingDirectory: make the folder when it is missing (where the file system allows).
    /// - Throws: `SystemError` naming the step and the path.
    static func write(_ data: Data, to path: String, mode: mode_t, makingDirectory: Bool = false) throws(SystemError) {
        let directory = parentDirectory(of: path)
        let temporary = path + ".tmp"
        var fd = Glibc.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        if fd < 0, errno == ENOENT, makingDirectory, !directory.isEmpty {
            // Under systemd, StateDirectory= makes /var/lib/flickd; elsewhere ProtectSystem= may forbid it.
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            fd = Glibc.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        }
        guard fd >= 0 else { throw SystemError(call: "open", context: temporary, errno: errno) }
        // The umask must not narrow a mode copied from the file being replaced.
        _ = fchmod(fd, mode)
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == data.count, fsync(fd) == 0 else {
            let e = errno
            Glibc.close(fd)
            unlink(temporary)
            throw SystemError(call: written == data.count ? "fsync" : "write", context: temporary, errno: e)
        }
        Glibc.close(fd)
        guard rename(temporary, path) == 0 else {
            let e = errno
            unlink(temporary)
            throw SystemError(call: "rename", context: path, errno: e)
        }
        let dirFD = Glibc.open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            _ = fsync(dirFD)
            Glibc.close(dirFD)
        }
    }
}
