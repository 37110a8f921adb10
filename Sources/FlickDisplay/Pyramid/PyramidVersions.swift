import FlickSystem
import Glibc

/// The versions of one image's pyramid in the cache. Each replacement of a big image on disk
/// gets a pyramid of its own (its folder is keyed by size, modification time and inode), so
/// without pruning a nightly content update fills an SD card in weeks. The newest two stay:
/// the one just built and the one before it, which the daemon may still be showing while the
/// new one loads, and any pyramid named to keep (the one the daemon shows). Whoever builds a
/// version prunes (`flickd pyramid`, the daemon's child or an integrator's prebuild), off the
/// daemon's loop: removing a big pyramid's thousands of files takes a while on an SD card.
public enum PyramidVersions {
    /// How many versions of one image stay in the cache.
    public static let kept = 2

    /// Removes all but the newest `kept` versions of `image`'s pyramid from `cacheDirectory`
    /// (newest by the folder's modification time, which its last file written sets), never the
    /// folder of a `.dzi` in `keeping`. Pyramids without a source file (built by an older flickd,
    /// or by `vips dzsave`) are not recognised as versions and stay.
    /// - Returns: the folders removed.
    public static func prune(of image: String, keeping: [String], cacheDirectory: String) -> [String] {
        guard let source = try? SourceIdentity(image), case .success(let names) = FileIO.list(cacheDirectory) else { return [] }
        let keptFolders = Set(keeping.compactMap { $0.split(separator: "/").dropLast().last.map(String.init) })
        var versions: [(name: String, modified: Int64)] = []
        for name in names where name.hasPrefix(source.baseName + "-") {
            let folder = "\(cacheDirectory)/\(name)"
            guard case .success(let bytes) = FileIO.read("\(folder)/\(PyramidFolder.sourceFile)", limit: 4096),
                  String(decoding: bytes, as: UTF8.self) == source.path + "\n" else { continue }
            var info = stat()
            guard stat(folder, &info) == 0 else { continue }
            versions.append((name, Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)))
        }
        var removed: [String] = []
        for version in versions.sorted(by: { $0.modified > $1.modified }).dropFirst(kept) where !keptFolders.contains(version.name) {
            PyramidFolder.removeTree("\(cacheDirectory)/\(version.name)")
            removed.append(version.name)
        }
        return removed
    }

    /// After `built` (a `.dzi`) was written for `image`: prunes its older versions, keeping
    /// `built` and `keeping`, and says what went.
    /// - Returns: the line `flickd pyramid` writes to standard error (`removed N older
    ///   pyramid(s) of IMAGE …`), which the daemon journals; nil when nothing was removed.
    public static func pruneAfterBuilding(_ image: String, built: String, keeping: [String], cacheDirectory: String) -> String? {
        let removed = prune(of: image, keeping: [built] + keeping, cacheDirectory: cacheDirectory)
        guard !removed.isEmpty else { return nil }
        return "\(removedPrefix)\(removed.count) older pyramid\(removed.count == 1 ? "" : "s") of \(image) from \(cacheDirectory) "
            + "(\(removed.joined(separator: ", ")); the \(kept) newest stay)"
    }

    /// How the line of `pruneAfterBuilding` begins.
    public static let removedPrefix = "removed "
}
