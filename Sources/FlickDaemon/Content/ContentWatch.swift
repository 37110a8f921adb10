import FlickCore
import FlickSystem
import Glibc

/// Watches content on disk with inotify (`content.watch`) and says when it changed and settled:
/// a file renamed over it (`mv`, rsync's temp-then-rename), written over in place and closed, a
/// page added to or removed from its folder, the file or folder deleted or made again. A file
/// still open for writing is never reported: writes (`IN_MODIFY`, a file created) make its name
/// busy until it is closed (`IN_CLOSE_WRITE`), moved or deleted, and only then does the settle
/// time (`content.watch_settle_ms`) start; each further change starts it again.
///
/// Its descriptor is the host's, watched by the loop; when nothing changes nothing is read and
/// no deadline is asked, so an idle kiosk never wakes for it.
///
/// States: quiet (no deadline) → settling(due) on a completed change → quiet when `dispatch`
/// passes `due` with nothing busy, reporting the change; busy names hold off the deadline.
final class ContentWatch {
    /// The watched content.
    let path: String
    /// Readable when something changed in the watched folders.
    let fileDescriptor: Descriptor
    /// How long nothing must change before the content is read.
    var settle: Duration
    private let parent: String
    private let base: String
    private var parentWatch: Int32 = -1
    private var folderWatch: Int32 = -1
    private var busy: Set<String> = []
    private var due: Instant?

    private static let parentMask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MODIFY)

    /// Watches `path`'s folder for its name, and `path` itself when it is a folder.
    /// - Throws: `SystemError` when inotify or the folder's watch cannot be had.
    init(path: String, settle: Duration) throws(SystemError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw .current("inotify_init1", path) }
        fileDescriptor = Descriptor(owning: fd)
        self.path = path
        self.settle = settle
        let slash = path.lastIndex(of: "/")
        parent = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        parentWatch = inotify_add_watch(fd, parent, Self.parentMask)
        guard parentWatch >= 0 else { throw .current("inotify_add_watch", parent) }
        watchFolder()
    }

    /// When the change settles, while one is pending and nothing is being written.
    var nextDeadline: Instant? { busy.isEmpty ? due : nil }

    /// Reads what inotify reported and says whether the content changed and settled by `now`.
    func dispatch(now: Instant) -> Bool {
        drain(now: now)
        guard let due, busy.isEmpty, due <= now else { return false }
        self.due = nil
        watchFolder()
        return true
    }

    /// Watches the content's folder itself (pages added or removed), again after it was
    /// replaced; a file has no folder watch.
    private func watchFolder() {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            if folderWatch >= 0 { _ = inotify_rm_watch(fileDescriptor.rawValue, folderWatch) }
            folderWatch = -1
            return
        }
        let mask = Self.parentMask | UInt32(IN_ONLYDIR)
        let watch = inotify_add_watch(fileDescriptor.rawValue, path, mask)
        if folderWatch >= 0 && watch != folderWatch { _ = inotify_rm_watch(fileDescriptor.rawValue, folderWatch) }
        folderWatch = watch
    }

    private func drain(now: Instant) {
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor.rawValue, $0.baseAddress, $0.count) }
            guard n > 0 else { return }
            var at = 0
            let header = MemoryLayout<inotify_event>.size
            while at + header <= n {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw in
                    (raw.loadUnaligned(fromByteOffset: at, as: Int32.self),
                     raw.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self),
                     Int(raw.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self)))
                }
                let nameBytes = buffer[(at + header)..<min(n, at + header + length)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                at += header + length
                heard(wd: wd, mask: mask, name: name, now: now)
            }
        }
    }

    /// One notification: a name of ours (the content's in its folder, a visible page in the
    /// content's own folder) being written is busy; finished, it starts the settle time.
    private func heard(wd: Int32, mask: UInt32, name: String, now: Instant) {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            // Changes were lost: read the content once things settle.
            due = now + settle
            return
        }
        let key: String
        if wd == parentWatch && name == base {
            key = name
        } else if wd == folderWatch && folderWatch >= 0 && !name.isEmpty && !name.hasPrefix(".") {
            key = base + "/" + name
        } else {
            return
        }
        let isFolder = mask & UInt32(IN_ISDIR) != 0
        if mask & UInt32(IN_MODIFY) != 0 && !isFolder {
            busy.insert(key)
        } else if mask & UInt32(IN_CREATE) != 0 && !isFolder && !Self.isSymbolicLink(parent + "/" + key) {
            // A new file is open for writing until it is closed (a link is whole at once).
            busy.insert(key)
        } else {
            busy.remove(key)
            due = now + settle
        }
    }

    private static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }
}
