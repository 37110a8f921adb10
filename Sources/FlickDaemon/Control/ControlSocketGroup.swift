import FlickSystem
import Glibc

/// The control socket's group (`control.group`): who may connect, beside the daemon's user.
enum ControlSocketGroup {
    /// Gives the socket at `path` to `group`, its owner unchanged.
    /// - Throws: `SystemError` when there is no such group or the socket cannot be changed.
    static func set(_ group: String, of path: String) throws(SystemError) {
        guard let entry = getgrnam(group) else {
            throw SystemError(call: "getgrnam", context: "control group '\(group)' (no such group)", errno: ENOENT)
        }
        if chown(path, uid_t.max, entry.pointee.gr_gid) != 0 {
            throw SystemError(call: "chown", context: "control socket \(path) group \(group)", errno: errno)
        }
    }
}
