import ArgumentParser
import FlickDaemon
import FlickDisplay
import FlickSystem
import FoundationEssentials
import Glibc

/// `flickd pyramid`: builds the Deep Zoom pyramid of a big image ahead of time, as the daemon
/// would on first load, so an integrator can prebuild it and the benchmark can measure it.
struct PyramidCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pyramid",
        abstract: "Build the Deep Zoom pyramid (PNG tiles) of a PNG, JPEG or WebP of any size into the cache folder.",
        discussion: """
            Streams the image row by row: memory stays tens of MiB whatever its size. Progress goes to standard \
            error (`rows R/N (P %), T tiles, S s`, then `built WxH in L levels, T tiles in S s`), the .dzi's path to \
            standard output. A pyramid already built for this version of the file (same path, size and \
            modification time) is reused: `already built` on standard error, its path on standard output. \
            Once a new pyramid is written, the cache is trimmed: the pyramids of images changed since they \
            were built go, then, while the cache holds more than --cache-max-mb, the least recently shown; \
            never the new one or a --keep pyramid: `removed …` on standard error.
            """)

    @Argument(help: "The PNG (not interlaced) or JPEG.")
    var image: String

    @Option(name: .customLong("cache-directory"),
            help: "A writable folder, made with its parents (mode 0755) if missing (default: $CACHE_DIRECTORY as systemd sets it, else /var/cache/flickd).")
    var cacheDirectory: String?

    @Option(name: .customLong("tile-size"), help: "The tile side without overlap, 1 to 8192.")
    var tileSize = PyramidBuilder.defaultTileSize

    @Option(help: "Pixels of each neighbour a tile carries, from 0 to the tile size minus 1.")
    var overlap = PyramidBuilder.defaultOverlap

    @Option(help: "A pyramid's .dzi that trimming the cache leaves in place (the daemon passes the one it shows).")
    var keep: [String] = []

    @Option(name: .customLong("cache-max-mb"), help: "The most the cache's pyramids may take on disk, in MB (0: no limit).")
    var cacheMaxMegabytes = Configuration().cacheMaxMegabytes

    func validate() throws {
        guard (1...8192).contains(tileSize) else { throw ValidationError("--tile-size must be from 1 to 8192, not \(tileSize).") }
        guard overlap >= 0 && overlap < tileSize else {
            throw ValidationError("--overlap must be from 0 to the tile size − 1 (\(tileSize - 1)), not \(overlap).")
        }
        guard cacheMaxMegabytes >= 0 else { throw ValidationError("--cache-max-mb must be 0 (no limit) or more, not \(cacheMaxMegabytes).") }
    }

    func run() throws {
        // systemd's CacheDirectory= sets $CACHE_DIRECTORY, colon-separated when it names several.
        let directory = cacheDirectory
            ?? ProcessInfo.processInfo.environment["CACHE_DIRECTORY"]?.split(separator: ":").first.map(String.init)
            ?? "/var/cache/flickd"
        do {
            try Self.makeFolder(directory)
            let existing = try PyramidBuilder.cachedDescriptor(for: image, cacheDirectory: directory,
                                                               tileSize: tileSize, overlap: overlap)
            if FileManager.default.fileExists(atPath: existing) {
                writeStandardError("already built\n")
                writeStandardOutput(existing + "\n")
                return
            }
            // Each tile row's tiles are encoded on as many threads as CPUs, each through zlib's
            // and libspng's buffers: the daemon's allocator settings keep those threads from
            // growing heaps of their own whose freed space stays resident at the build's peak.
            MallocTuning.apply()
            var lastTenth = -1
            let path = try PyramidBuilder.build(image: image, cacheDirectory: directory, tileSize: tileSize,
                                                overlap: overlap) { progress in
                // A line per tenth of the rows, not per tile row: a 30000-row image has 118 of those.
                let tenth = Int(progress.fraction * 10)
                if progress.finished || tenth > lastTenth {
                    lastTenth = tenth
                    writeStandardError("\(progress)\n")
                }
            }
            let limit = cacheMaxMegabytes > 0 ? Int64(cacheMaxMegabytes) << 20 : nil
            if let removed = PyramidCache.trimmed(directory, inUse: [path] + keep, limit: limit) {
                writeStandardError(removed + "\n")
            }
            writeStandardOutput(path + "\n")
        } catch {
            throw failure(error)
        }
    }

    /// Makes `path` and its missing parents, each mode 0755 whatever the umask (an integrator
    /// prebuilding into a fresh `/var/cache/flickd` should not have to make it first); folders
    /// already there are left as they are.
    /// - Throws: `ContentError` naming the folder that could not be made, and why.
    static func makeFolder(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") where !component.isEmpty {
            prefix += "/" + component
            if mkdir(prefix, 0o755) == 0 {
                _ = chmod(prefix, 0o755)
                continue
            }
            let error = SystemError.current("mkdir", prefix)
            // There already: a file in the way fails the next step with ENOTDIR, said there.
            if error.errno == EEXIST { continue }
            throw ContentError(path: prefix, reason: .cacheWriteFailed(step: "create the cache folder", cause: error))
        }
    }
}
