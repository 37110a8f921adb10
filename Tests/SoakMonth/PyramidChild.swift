import FlickDaemon
import FlickDisplay
import Glibc

/// `pyramid IMAGE --cache-directory DIR --cache-max-mb N [--keep DZI]`: the content host builds
/// pyramids in a child process of its own executable (`/proc/self/exe`, `PyramidBuild`), which in
/// the daemon is `flickd pyramid`; the soak's executable answers the same command the same way
/// (the .dzi's path on standard output, the `built …` and `removed …` lines on standard error,
/// the cache trimmed as `flickd pyramid` trims it), so the host's real child process, pipes and
/// worker thread are what the month exercises.
enum PyramidChild {
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 5 || arguments.count == 7, arguments[1] == "--cache-directory", arguments[3] == "--cache-max-mb",
              let megabytes = Int64(arguments[4]), arguments.count == 5 || arguments[5] == "--keep" else {
            writeStandardError("usage: pyramid IMAGE --cache-directory DIR --cache-max-mb N [--keep DZI]\n")
            return 64
        }
        let image = arguments[0], directory = arguments[2], keep = Array(arguments.dropFirst(6))
        do {
            let existing = try PyramidBuilder.cachedDescriptor(for: image, cacheDirectory: directory)
            if access(existing, F_OK) == 0 {
                writeStandardError("already built\n")
                writeStandardOutput(existing + "\n")
                return 0
            }
            let path = try PyramidBuilder.build(image: image, cacheDirectory: directory) { progress in
                if progress.finished { writeStandardError("\(progress)\n") }
            }
            if let removed = PyramidCache.trimmed(directory, inUse: [path] + keep, limit: megabytes > 0 ? megabytes << 20 : nil) {
                writeStandardError(removed + "\n")
            }
            writeStandardOutput(path + "\n")
            return 0
        } catch {
            writeStandardError("\(error)\n")
            return 1
        }
    }
}
