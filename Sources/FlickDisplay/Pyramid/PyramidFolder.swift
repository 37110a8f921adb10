import FlickSystem
import Glibc

/// Where a pyramid is written: a temporary folder beside its final one, renamed into place only
/// when every tile and the descriptor are on disk, so a crash or a failure never leaves a
/// half pyramid that looks done. Any failure removes the temporary folder. Tiles are written
/// from several threads at once; `discard` and `publish` only from the builder's, after them.
final class PyramidFolder: @unchecked Sendable {
    /// The cache folder that holds every pyramid.
    let cacheDirectory: String
    /// The folder being written, `cacheDirectory/.FOLDER.partial-PID-XXXXXX`.
    let temporary: String
    /// The folder once complete, `cacheDirectory/FOLDER`.
    let destination: String
    /// The descriptor's base name: `NAME.dzi` beside `NAME_files/`.
    let name: String
    private var removed = false

    /// The prefix of temporary folders for `folder`; the builder's PID follows it.
    static func partialPrefix(_ folder: String) -> String { ".\(folder).partial-" }

    /// Creates the temporary folder and its `NAME_files/LEVEL` folders, `levels` of them.
    /// - Throws: `ContentError` naming the cache folder (missing, read-only, not a folder…).
    init(cacheDirectory: String, folder: String, name: String, levels: Int) throws {
        self.cacheDirectory = cacheDirectory
        self.destination = "\(cacheDirectory)/\(folder)"
        self.name = name
        var template = Array("\(cacheDirectory)/\(Self.partialPrefix(folder))\(getpid())-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw ContentError(path: cacheDirectory, reason: .cacheWriteFailed(step: "create a temporary folder",
                                                                                         cause: .current("mkdtemp", cacheDirectory)))
        }
        temporary = String(cString: made)
        do {
            try makeDirectory("\(temporary)/\(name)_files")
            for level in 0..<levels { try makeDirectory("\(temporary)/\(name)_files/\(level)") }
        } catch {
            discard()
            throw error
        }
    }

    deinit { discard() }

    /// Writes one tile's file, `NAME_files/LEVEL/COLUMN_ROW.png`.
    /// - Throws: `ContentError` naming the file (ENOSPC, EIO…).
    func writeTile(_ key: TileKey, _ bytes: [UInt8]) throws {
        try write(bytes, to: "\(temporary)/\(name)_files/\(key.level)/\(key.column)_\(key.row).png", step: "write a tile")
    }

    /// Writes `NAME.dzi`, the descriptor `vips dzsave` writes for PNG tiles.
    func writeDescriptor(_ grid: TileGrid) throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Image xmlns="http://schemas.microsoft.com/deepzoom/2008" TileSize="\(grid.tileSize)" \
            Overlap="\(grid.overlap)" Format="png"><Size Width="\(grid.width)" Height="\(grid.height)"/></Image>

            """
        try write(Array(xml.utf8), to: "\(temporary)/\(name).dzi", step: "write the descriptor")
    }

    /// The file in a pyramid's folder that names the image it was built from (its resolved
    /// path), so the versions of one image can be told from another image of the same name.
    static let sourceFile = "source"

    /// Writes which image the pyramid is of (`sourceFile`).
    func writeSource(_ path: String) throws {
        try write(Array((path + "\n").utf8), to: "\(temporary)/\(Self.sourceFile)", step: "write the source's name")
    }

    /// Flushes the files to disk and renames the folder into place.
    ///
    /// - Returns: the descriptor's path. When another builder published the same pyramid first,
    ///   this one is discarded and that one's path returned.
    /// - Throws: `ContentError` naming the folder.
    func publish() throws -> String {
        let descriptor = "\(destination)/\(name).dzi"
        // One sync() for the whole build, not an fsync per tile (thousands of them): after a
        // power cut the renamed folder holds whole files, not the empty ones delayed allocation
        // can leave. (syncfs would limit it to one filesystem, but Glibc's module hides it.)
        sync()
        if rename(temporary, destination) != 0 {
            let error = SystemError.current("rename", destination)
            if error.errno == EEXIST || error.errno == ENOTEMPTY, access(descriptor, F_OK) == 0 {
                discard()
                return descriptor
            }
            throw failure("rename into place as \(destination)", error, path: temporary)
        }
        removed = true
        return descriptor
    }

    /// Removes the temporary folder and everything in it (once; after `publish` nothing).
    func discard() {
        guard !removed else { return }
        removed = true
        Self.removeTree(temporary)
    }

    /// Removes `path`, a file or a folder with everything under it, ignoring errors (what is
    /// left is a stale partial folder, removed by the next build of the same pyramid).
    static func removeTree(_ path: String) {
        if unlink(path) == 0 { return }
        guard let dir = opendir(path) else { return }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(dir)
        for name in names { removeTree("\(path)/\(name)") }
        rmdir(path)
    }

    private func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o755) != 0 { throw failure("create a folder", .current("mkdir", path), path: path) }
    }

    private func write(_ bytes: [UInt8], to path: String, step: String) throws {
        if case .failure(let error) = FileIO.write(bytes, to: path) { throw failure(step, error, path: path) }
    }

    /// A write failure's error. The builder removes the temporary folder once every tile task
    /// has stopped (removing it here would race with the others).
    private func failure(_ step: String, _ error: SystemError, path: String) -> ContentError {
        ContentError(path: path, reason: .cacheWriteFailed(step: step, cause: error))
    }
}
