import Glibc

/// Which content a saved state belongs to, so the view is restored only onto the same content.
enum ContentIdentity {
    /// Path, size and modification time: a changed file is different content. A name that is
    /// no file (a content provider's, the test pattern) is its own identity.
    static func of(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return path }
        return "\(path)|\(info.st_size)|\(info.st_mtim.tv_sec)"
    }
}
