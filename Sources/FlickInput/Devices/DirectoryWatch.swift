import FlickSystem
import Glibc

/// Watches a folder (`/dev/input`) for nodes appearing, disappearing or changing permissions,
/// with inotify. udev creates a node and then fixes its group and mode, so `IN_ATTRIB` matters
/// as much as `IN_CREATE`: a node that could not be opened is retried then.
final class DirectoryWatch {
    let fileDescriptor: Descriptor
    let directory: String

    init?(directory: String) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM)
        let descriptor = Descriptor(owning: fd)
        guard inotify_add_watch(fd, directory, mask) >= 0 else { return nil }
        fileDescriptor = descriptor
        self.directory = directory
    }

    /// Drains the pending notifications; returns whether there were any.
    func drain() -> Bool {
        var any = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor.rawValue, $0.baseAddress, $0.count) }
            if n <= 0 { return any }
            any = true
        }
    }
}
