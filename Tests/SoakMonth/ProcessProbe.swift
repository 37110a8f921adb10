import Glibc

/// What the process holds, read from /proc/self: the figures a month must keep flat.
struct ProcessProbe: Equatable {
    /// Resident memory, bytes (/proc/self/statm's second field × the page size).
    var residentBytes: Int
    /// Open descriptors (/proc/self/fd).
    var descriptors: Int
    /// Threads (/proc/self/task).
    var threads: Int
    /// Memory mappings (/proc/self/maps lines).
    var mappings: Int

    static func now() -> ProcessProbe {
        let statm = read("/proc/self/statm").split(separator: " ")
        let pages = statm.count > 1 ? Int(statm[1]) ?? 0 : 0
        return ProcessProbe(residentBytes: pages * Int(sysconf(Int32(_SC_PAGESIZE))),
                            // The listing's own descriptor is not one the soak holds.
                            descriptors: entries("/proc/self/fd") - 1, threads: entries("/proc/self/task"),
                            mappings: read("/proc/self/maps").utf8.count { $0 == 0x0A })
    }

    /// The whole of a small /proc file.
    static func read(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Entries of a folder, "." and ".." left out; files under it, recursively, with `recursive`.
    static func entries(_ path: String, recursive: Bool = false) -> Int {
        guard let dir = opendir(path) else { return 0 }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            if recursive && entry.pointee.d_type == UInt8(DT_DIR) {
                count += entries(path + "/" + name, recursive: true)
            } else {
                count += 1
            }
        }
        return count
    }
}

extension ProcessProbe {
    /// What each open descriptor is (/proc/self/fd's links), to say what a leak holds.
    static func descriptorTargets() -> [String] {
        guard let dir = opendir("/proc/self/fd") else { return [] }
        defer { closedir(dir) }
        var targets: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            var buffer = [CChar](repeating: 0, count: 256)
            let n = readlink("/proc/self/fd/" + name, &buffer, buffer.count - 1)
            targets.append("\(name)→" + (n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"))
        }
        return targets
    }
}
