import FlickSystem
import Glibc

/// What identifies one version of a source image: its resolved path, device and inode, size and
/// modification time. A pyramid is keyed by it, and a build compares it before and after.
struct SourceIdentity: Hashable, CustomStringConvertible {
    /// The path with symbolic links and `..` resolved.
    let path: String
    let device: UInt64
    let inode: UInt64
    let size: Int64
    /// Modification time, ns since the epoch.
    let modified: Int64

    /// Stats `path` now.
    /// - Throws: `ContentError.unreadable` naming `path` (missing, unreadable folder…).
    init(_ path: String) throws {
        guard let resolved = realpath(path, nil) else { throw ContentError(path: path, reason: .unreadable(.current("realpath", path))) }
        self.path = String(cString: resolved)
        free(resolved)
        var info = stat()
        guard stat(self.path, &info) == 0 else { throw ContentError(path: path, reason: .unreadable(.current("stat", path))) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ContentError(path: path, reason: .unreadable(SystemError(call: "open", context: path, errno: EISDIR)))
        }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }

    /// "1234 bytes, modified 1764089632.123456789, inode 42".
    var description: String {
        let nanoseconds = String(modified % 1_000_000_000)
        let padded = String(repeating: "0", count: 9 - nanoseconds.count) + nanoseconds
        return "\(size) bytes, modified \(modified / 1_000_000_000).\(padded), inode \(inode)"
    }

    /// The cache folder's name for a pyramid of this version: the file's base name (for people
    /// looking in the cache) and 16 hex digits of a hash of the path, size, modification time
    /// and the pyramid's tile size and overlap (so an edited file gets a new pyramid).
    func folderName(tileSize: Int, overlap: Int) -> String {
        "\(baseName)-\(hex(hash(tileSize: tileSize, overlap: overlap)))"
    }

    /// The base name without its extension, in letters, digits, `.`, `_` and `-` only.
    var baseName: String {
        var name = path.split(separator: "/").last.map(String.init) ?? ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
        let safe = String(name.unicodeScalars.prefix(64).map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
                ? Character(scalar) : "_"
        })
        return safe.isEmpty || safe.hasPrefix(".") ? "image" + safe : safe
    }

    /// FNV-1a, 64 bits: stable across runs and builds, unlike Swift's seeded `Hasher`.
    private func hash(tileSize: Int, overlap: Int) -> UInt64 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(path)\u{0}\(size)\u{0}\(modified)\u{0}\(tileSize)\u{0}\(overlap)".utf8 {
            value = (value ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return value
    }

    private func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
