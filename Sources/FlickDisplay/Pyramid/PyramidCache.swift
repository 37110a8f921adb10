import FlickSystem
import Glibc

/// What stays in the pyramid cache. Each replacement of a big image on disk gets a pyramid of
/// its own (its folder is keyed by the file's size, modification time and inode), so without
/// this a nightly content update fills an SD card in weeks. A trim removes:
/// 1. every pyramid of an image that has changed since it was built: no file can bring that
///    version back, so nothing will show it again;
/// 2. then, while the cache holds more than its limit (`content.cache_max_mb`), the pyramid
///    shown least recently (kept in its `source` file's modification time, set at each show),
///    so a kiosk that `load`s a few maps in turn keeps theirs.
///
/// Never a pyramid in use (the one shown, the one just built), nor, for the limit, one shown or
/// built within the grace, nor one flickd did not build (no `source` file: an integrator's
/// `vips dzsave`, whose folders it cannot tell apart). Trims
/// run off the daemon's loop: after a build, in the `flickd pyramid` child, and a few seconds
/// after the daemon shows a pyramid, on a worker thread (removing a big pyramid's thousands of
/// files takes a while on an SD card).
public enum PyramidCache {
    /// How long after a pyramid is shown the cache is trimmed: the tile workers' reads of the
    /// version shown before, cancelled at the swap, are long done (and an open file outlives
    /// its removal anyway).
    public static let graceAfterShowing = Duration.seconds(5)

    /// A pyramid flickd built.
    struct Pyramid {
        /// Its folder's name in the cache.
        var name: String
        /// Whether it is of its image as the file is now.
        var current: Bool
        /// When it was last shown (or built), ns since the epoch.
        var lastShown: Int64
        /// What it takes on disk, in bytes (allocated blocks).
        var bytes: Int64
    }

    /// Notes that the pyramid of `descriptor` (its `.dzi`) is shown now: the least recently
    /// shown goes first when the cache is over its limit. One change of an inode's times; a
    /// read-only cache keeps the build's time instead.
    public static func markShown(_ descriptor: String) {
        let folder = parentDirectory(of: descriptor)
        _ = utimensat(AT_FDCWD, "\(folder)/\(PyramidFolder.sourceFile)", nil, 0)
    }

    /// Trims `cacheDirectory`, never a pyramid whose `.dzi` is in `inUse`.
    /// - Parameter limit: the bytes the cache may hold; nil: no limit, only changed images'
    ///   pyramids go.
    /// - Returns: the folders removed, each with why (`changed`, or `least recently shown`).
    public static func trim(_ cacheDirectory: String, inUse: [String], limit: Int64?) -> [(name: String, why: String)] {
        trimming(cacheDirectory, inUse: inUse, limit: limit).removed
    }

    /// Trims as `trim` says; also returns the bytes the pyramids left take (0 without a limit:
    /// nothing was measured).
    private static func trimming(_ cacheDirectory: String, inUse: [String], limit: Int64?) -> (removed: [(name: String, why: String)], left: Int64) {
        let kept = Set(inUse.map { String(parentDirectory(of: $0).split(separator: "/").last ?? "") })
        let all = pyramids(in: cacheDirectory, sizes: limit != nil)
        var removed: [(name: String, why: String)] = []
        var pyramids: [Pyramid] = []
        for pyramid in all {
            if pyramid.current || kept.contains(pyramid.name) {
                pyramids.append(pyramid)
            } else {
                PyramidFolder.removeTree("\(cacheDirectory)/\(pyramid.name)")
                removed.append((pyramid.name, "changed"))
            }
        }
        var total = pyramids.reduce(0) { $0 + $1.bytes }
        guard let limit else { return (removed, total) }
        // Shown or built within the grace: another process's (a build published while the
        // daemon trims, the daemon showing one while a build's child trims).
        var clock = timespec()
        clock_gettime(CLOCK_REALTIME, &clock)
        let recent = (Int64(clock.tv_sec) - graceAfterShowing.components.seconds) * 1_000_000_000
        for pyramid in pyramids.sorted(by: { $0.lastShown < $1.lastShown })
        where total > limit && !kept.contains(pyramid.name) && pyramid.lastShown < recent {
            PyramidFolder.removeTree("\(cacheDirectory)/\(pyramid.name)")
            removed.append((pyramid.name, "least recently shown"))
            total -= pyramid.bytes
        }
        return (removed, total)
    }

    /// Trims the cache as `trim` does and says what went: the line `flickd pyramid` writes to
    /// standard error, which the daemon journals (`removed 2 pyramids from CACHE: a (changed),
    /// b (least recently shown); 812 MB left, limit 4096 MB`); nil when nothing went.
    public static func trimmed(_ cacheDirectory: String, inUse: [String], limit: Int64?) -> String? {
        let (removed, left) = trimming(cacheDirectory, inUse: inUse, limit: limit)
        guard !removed.isEmpty else { return nil }
        let line = "\(removedPrefix)\(removed.count) pyramid\(removed.count == 1 ? "" : "s") from \(cacheDirectory): "
            + removed.map { "\($0.name) (\($0.why))" }.joined(separator: ", ")
        return line + (limit.map { "; \(left >> 20) MB left, limit \($0 >> 20) MB" } ?? "")
    }

    /// How the line of `trimmed` begins.
    public static let removedPrefix = "removed "

    /// The pyramids flickd built in `cacheDirectory`: folders with a `source` file naming their
    /// image, and a descriptor that tells the tile size and overlap the folder's name was made
    /// with. `sizes`: their bytes on disk too (a walk of every tile).
    static func pyramids(in cacheDirectory: String, sizes: Bool) -> [Pyramid] {
        guard case .success(let names) = FileIO.list(cacheDirectory) else { return [] }
        var found: [Pyramid] = []
        for name in names where !name.hasPrefix(".") {
            let folder = "\(cacheDirectory)/\(name)"
            let sourceFile = "\(folder)/\(PyramidFolder.sourceFile)"
            guard case .success(let bytes) = FileIO.read(sourceFile, limit: 4096), bytes.last == 10 else { continue }
            var info = stat()
            guard stat(sourceFile, &info) == 0 else { continue }
            let image = String(decoding: bytes.dropLast(), as: UTF8.self)
            found.append(Pyramid(name: name, current: isCurrent(name, of: image, in: folder),
                                 lastShown: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
                                 bytes: sizes ? diskBytes(folder) : 0))
        }
        return found
    }

    /// Whether the folder `name` is the pyramid of `image` as the file is now. A missing image
    /// is not taken as changed: a content update may be between removing and writing it, and
    /// the limit still bounds what such pyramids take.
    private static func isCurrent(_ name: String, of image: String, in folder: String) -> Bool {
        guard let source = try? SourceIdentity(image) else { return true }
        guard case .success(let names) = FileIO.list(folder),
              let dzi = names.first(where: { $0.hasSuffix(".dzi") }),
              case .success(let bytes) = FileIO.read("\(folder)/\(dzi)", limit: DZIDescriptor.maxFileBytes),
              let descriptor = try? DZIDescriptor.parse(bytes, path: dzi) else { return true }
        return source.folderName(tileSize: descriptor.grid.tileSize, overlap: descriptor.grid.overlap) == name
    }

    /// The bytes the files under `path` take on disk.
    static func diskBytes(_ path: String) -> Int64 {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        var total = Int64(info.st_blocks) * 512
        guard info.st_mode & S_IFMT == S_IFDIR, case .success(let names) = FileIO.list(path) else { return total }
        for name in names { total += diskBytes("\(path)/\(name)") }
        return total
    }
}
