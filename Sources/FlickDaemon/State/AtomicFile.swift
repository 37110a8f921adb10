import FlickSystem
import FoundationEssentials
import Glibc

/// Replaces a file so that a power cut leaves the old or the new one, never half of one: write
/// a temporary file beside it, fsync, rename over, fsync the folder. The saved state and
/// `flickd calibrate --write` go through it (the state at its first save, `StateStore`).
enum AtomicFile {
    /// Writes `data` to `path` atomically. A file that is there keeps its permissions and owner
    /// (a config `root:flickd 0640` stays readable by the daemon), and a symlink keeps pointing
    /// at the file, which is the one replaced; a new file gets `newFileMode` less the umask.
    /// - Parameters:
    ///   - newFileMode: the permissions of a file that did not exist.
    ///   - makingDirectory: make the folder when it is missing (where the file system allows).
    /// - Throws: `SystemError` naming the step and the path.
    static func write(_ data: Data, to path: String, newFileMode: mode_t = 0o644, makingDirectory: Bool = false) throws(SystemError) {
        let target = realpath(path, nil).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        } ?? path
        let directory = parentDirectory(of: target)
        var existing = stat()
        let replacing = stat(target, &existing) == 0
        var fd = temporaryFile(beside: target)
        if fd.descriptor < 0, errno == ENOENT, makingDirectory, !directory.isEmpty {
            // Under systemd, StateDirectory= makes /var/lib/flickd; elsewhere ProtectSystem= may forbid it.
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            fd = temporaryFile(beside: target)
        }
        guard fd.descriptor >= 0 else { throw SystemError(call: "mkstemp", context: target, errno: errno) }
        let temporary = fd.path
        func fail(_ call: String, _ e: Int32) -> SystemError {
            Glibc.close(fd.descriptor)
            unlink(temporary)
            return SystemError(call: call, context: temporary, errno: e)
        }
        if replacing {
            // As it was: mkstemp makes 0600 and the writer's owner.
            guard fchmod(fd.descriptor, existing.st_mode & 0o7777) == 0 else { throw fail("fchmod", errno) }
            if existing.st_uid != geteuid() || existing.st_gid != getegid() {
                guard fchown(fd.descriptor, existing.st_uid, existing.st_gid) == 0 else { throw fail("fchown", errno) }
            }
        } else {
            let mask = umask(0)
            umask(mask)
            guard fchmod(fd.descriptor, newFileMode & ~mask) == 0 else { throw fail("fchmod", errno) }
        }
        do {
            try writeWhole(Array(data), to: fd.descriptor, context: temporary)
        } catch {
            throw fail("write", error.errno)
        }
        guard fsync(fd.descriptor) == 0 else { throw fail("fsync", errno) }
        Glibc.close(fd.descriptor)
        guard rename(temporary, target) == 0 else {
            let e = errno
            unlink(temporary)
            throw SystemError(call: "rename", context: target, errno: e)
        }
        let dirFD = Glibc.open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            _ = fsync(dirFD)
            Glibc.close(dirFD)
        }
    }

    /// A new file of a unique name beside `path` (`mkstemp`: created exclusively, so no other
    /// file of that name is truncated or followed), close-on-exec.
    private static func temporaryFile(beside path: String) -> (descriptor: Int32, path: String) {
        var template = Array((path + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fd, String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
