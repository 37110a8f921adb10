import FlickCore
import FlickDisplay
import FlickSystem
import FoundationEssentials
import Glibc

/// `flickd check-config`'s look at the content a config names: that it exists and that the
/// service user can read it, and what it is — so a typo in `content.path` is found before the
/// kiosk shows the public a placeholder.
public enum ContentCheck {
    /// What the config's content and placeholder are, and the zoom the content starts at, one
    /// line each; or the first problem.
    /// - Parameters:
    ///   - file: the config file (for the error's line).
    ///   - user: the service user (`User=` of flickd.service); checked as that user when run as
    ///     root and the user exists, else as the caller.
    ///   - panel: the panel's size, for the zoom; nil: `display.mode`'s, else `display.headless_size`.
    /// - Throws: `ConfigError` at `content.path` (or `content.placeholder`) saying what is wrong.
    public static func describe(_ configuration: Configuration, file: String, user: String,
                                panel: PixelSize? = nil) throws(ConfigError) -> [String] {
        let lines = keyLines(file)
        let reader = Reader(user: user)
        let view = view(of: configuration, panel: panel)
        var said: [String] = []
        let path = configuration.contentPath
        if path.isEmpty {
            said.append("content: none (content.path is empty): the placeholder (\(configuration.placeholder)) shows")
        } else if let provider = ContentLoader.providerName(path) {
            let who = provider.isEmpty ? "any content provider" : "content provider \(provider)"
            said.append("content: drawn by \(who) over the control socket; the placeholder (\(configuration.placeholder)) shows until it connects")
            said.append("zoom: worked out for the app's content when it provides it (the journal says it)")
        } else {
            if let problem = reader.problem(path) {
                throw ConfigError(path: file, line: lines("content.path"), key: "content.path", message: "\(path): \(problem)")
            }
            do {
                let (text, size, buildsPyramid) = try what(path, configuration: configuration, view: view.size)
                said.append("content: \(text)")
                if buildsPyramid { said.append(try cacheLine(configuration, reader: reader, lines: lines, file: file)) }
                if let size {
                    let zoom = try ZoomSummary(configuration: configuration, content: size, view: view.size.size)
                    said.append(zoom.line + " (\(view.source))")
                } else {
                    said.append("zoom: worked out for the document once flickd-render has laid it out (the journal says it)")
                }
            } catch let error as ConfigError {
                throw error // the cache's, at its own key
            } catch {
                throw ConfigError(path: file, line: lines("content.path"), key: "content.path", message: "\(error)")
            }
        }
        if case let .image(splash) = configuration.placeholder {
            if let problem = reader.problem(splash) {
                throw ConfigError(path: file, line: lines("content.placeholder"), key: "content.placeholder",
                                  message: "\(splash): \(problem)")
            }
            do {
                let size = try PyramidBuilder.imageSize(of: splash)
                said.append("placeholder: \(size) splash, scaled down to fit the panel if larger")
            } catch {
                throw ConfigError(path: file, line: lines("content.placeholder"), key: "content.placeholder", message: "\(error)")
            }
        }
        if !reader.checkedAsService {
            said.append("(readable by \(reader.who); the service user \(user) was not checked: run as root where it exists)")
        }
        return said
    }

    /// What `path` is and what showing it takes, its size at zoom 1 when that is known before it
    /// is shown (not a document's: flickd-render lays it out) on a view of `view`, and whether
    /// showing it builds a pyramid into the cache (an image over the budget, not built yet).
    static func what(_ path: String, configuration: Configuration, view: PixelSize) throws -> (String, size: Size?, buildsPyramid: Bool) {
        if let files = try DocumentFiles.documents(at: path) {
            try DocumentFiles.checkReadable(files)
            let helper = DocumentFiles.helperPath
            let runs = access(helper, X_OK) == 0 ? "drawn by \(helper)" : "to be drawn by \(helper), which is missing"
            let images = files.filter(DocumentFiles.isImage).count
            let what = files.count == 1 ? "a document" : "a folder of \(files.count - images) documents" + (images > 0 ? " and \(images) image\(images == 1 ? "" : "s")" : "")
            return ("\(what), readable, \(runs) (what it holds is checked when it is shown)", nil, false)
        }
        var info = stat()
        _ = stat(path, &info)
        if info.st_mode & S_IFMT == S_IFDIR {
            let content = try Content.load(directory: path, pageSize: view,
                                           background: configuration.background, pixelBudget: configuration.pixelBudget,
                                           direction: configuration.pageDirection, tiles: .inline)
            return ("a folder of \(content.pages.count) page\(content.pages.count == 1 ? "" : "s"), laid out \(configuration.pageDirection)",
                    content.size, false)
        }
        let lower = path.lowercased()
        if lower.hasSuffix(".dzi") || lower.hasSuffix(".xml") {
            let content = try Content.load(deepZoom: path, tiles: .inline)
            let levels = content.tiles.map { $0.source.grid.maxLevel + 1 } ?? 1
            return ("a Deep Zoom pyramid of \(Int(content.size.width))x\(Int(content.size.height)), \(levels) levels", content.size, false)
        }
        let size = try ContentLoader.imageSize(of: path)
        let head = try? FileIO.read(path, limit: ImageFormat.signatureLength, truncating: true).get()
        let kind = head.flatMap { ImageFormat(signature: $0) }?.rawValue ?? "image"
        if size.area <= configuration.pixelBudget {
            return ("\(size) \(kind), decoded whole (\(megabytes(Double(size.area) * 4)) in memory)", size.size, false)
        }
        let cache = configuration.cacheDirectory
        let descriptor = try PyramidBuilder.cachedDescriptor(for: path, cacheDirectory: cache)
        if access(descriptor, F_OK) == 0 { return ("\(size) \(kind), shown from its pyramid, built already in \(descriptor)", size.size, false) }
        // What its tiles take depends on what the picture holds, so a sample of it is built.
        let estimate = try PyramidEstimate.estimate(image: path, blockSize: blockSize(near: cache))
        return ("\(size) \(kind): over content.pixel_budget, a pyramid will be built into \(cache) once, "
                + "~\(megabytes(Double(estimate.bytes))) in \(estimate.tiles) tiles (a sample of \(estimate.patches) of "
                + "\(estimate.patchesInImage) patches built to measure it)",
                size.size, true)
    }

    /// The block size of the file system `folder` is on, or would be made on (its nearest
    /// existing parent); 4096 if none can be asked.
    static func blockSize(near folder: String) -> Int {
        var path = folder
        var info = statvfs()
        while statvfs(path, &info) != 0 {
            let parent = parentDirectory(of: path)
            guard !parent.isEmpty, parent != path else { return 4096 }
            path = parent
        }
        return info.f_bsize > 0 ? Int(info.f_bsize) : 4096
    }

    /// The cache folder a pyramid will be built into: that the service user can make it and
    /// write in it, else a `ConfigError` at `content.cache_directory` (the daemon would show the
    /// placeholder for good). The unit's own folder (`CacheDirectory=`) is made by systemd when
    /// it starts the service; any other is read-only under the shipped unit
    /// (`ProtectSystem=strict`) unless a drop-in lists it in `ReadWritePaths=`, which is said.
    static func cacheLine(_ configuration: Configuration, reader: Reader, lines: (String) -> Int, file: String) throws(ConfigError) -> String {
        let cache = configuration.cacheDirectory
        let unitsOwn = cache == Configuration().cacheDirectory
        if unitsOwn, access(cache, F_OK) != 0 {
            return "cache: \(cache), made for the service by systemd when it starts it (CacheDirectory=)"
        }
        if let problem = reader.writeProblem(folder: cache) {
            throw ConfigError(path: file, line: lines("content.cache_directory"), key: "content.cache_directory",
                              message: "\(cache): \(problem): the pyramid could not be built, and the placeholder would stay")
        }
        return "cache: \(cache), writable by \(reader.who)"
            + (unitsOwn ? "" : "; under the shipped unit (ProtectSystem=strict) only if a drop-in adds it to ReadWritePaths=")
    }

    /// The view check-config works the zoom out for: `panel`, else `display.mode`'s size, else
    /// `display.headless_size`, turned by `display.rotation`; and where its size came from.
    static func view(of configuration: Configuration, panel: PixelSize?) -> (size: PixelSize, source: String) {
        let (size, source): (PixelSize, String)
        if let panel {
            (size, source) = (panel, "--panel")
        } else if let mode = configuration.modeRequest {
            (size, source) = (PixelSize(width: mode.width, height: mode.height), "display.mode")
        } else {
            (size, source) = (configuration.headlessSize,
                              "display.headless_size; for a panel of another size, check-config --panel WIDTHxHEIGHT")
        }
        let logical = configuration.panelRotation.logicalSize(panel: size)
        return (logical, logical == size ? source : source + ", turned by display.rotation")
    }

    static func megabytes(_ bytes: Double) -> String {
        bytes >= 1_048_576 ? "\(Int((bytes / 1_048_576).rounded())) MB" : "\(Int((bytes / 1024).rounded())) kB"
    }

    /// The line of each key in `file`, 0 where it cannot be told.
    static func keyLines(_ file: String) -> (String) -> Int {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8), let table = try? TOMLValue.parse(text) else {
            return { _ in 0 }
        }
        let lines = KeyLines(table)
        return { lines.line(of: $0) }
    }

    /// Whether a user can read a path: the mode bits, owner, group and supplementary groups of
    /// the path and of every folder above it, as the kernel would judge them for that user.
    struct Reader {
        let uid: uid_t
        let groups: Set<gid_t>
        let who: String
        let checkedAsService: Bool

        init(user: String) {
            if geteuid() == 0, let entry = getpwnam(user) {
                uid = entry.pointee.pw_uid
                var count: Int32 = 64
                var list = [gid_t](repeating: 0, count: Int(count))
                if getgrouplist(user, entry.pointee.pw_gid, &list, &count) < 0 {
                    list = [gid_t](repeating: 0, count: Int(count))
                    _ = getgrouplist(user, entry.pointee.pw_gid, &list, &count)
                }
                groups = Set(list.prefix(Int(max(0, count)))).union([entry.pointee.pw_gid])
                who = user
                checkedAsService = true
            } else {
                uid = geteuid()
                var list = [gid_t](repeating: 0, count: Int(max(0, getgroups(0, nil))))
                let n = getgroups(Int32(list.count), &list)
                groups = Set(list.prefix(Int(max(0, n)))).union([getegid()])
                who = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "uid \(geteuid())"
                checkedAsService = false
            }
        }

        /// Why the path cannot be read, or nil.
        func problem(_ path: String) -> String? {
            var info = stat()
            guard stat(path, &info) == 0 else { return "\(String(cString: strerror(errno)).lowercased())" }
            let isFolder = info.st_mode & S_IFMT == S_IFDIR
            guard allows(info, isFolder ? [S_IRUSR | S_IXUSR] : [S_IRUSR]) else {
                return "not readable by \(who) (mode \(String(info.st_mode & 0o777, radix: 8)), owner \(info.st_uid):\(info.st_gid))"
            }
            var folder = parentDirectory(of: path)
            while !folder.isEmpty && folder != "/" {
                var above = stat()
                if stat(folder, &above) == 0, !allows(above, [S_IXUSR]) {
                    return "the folder \(folder) cannot be entered by \(who) (mode \(String(above.st_mode & 0o777, radix: 8)))"
                }
                folder = parentDirectory(of: folder)
            }
            return nil
        }

        /// Why the folder `path` cannot be written by the user, or made by them where it is
        /// missing (in the nearest folder above that exists), or nil.
        func writeProblem(folder path: String) -> String? {
            var existing = path
            var info = stat()
            while stat(existing, &info) != 0 {
                let above = parentDirectory(of: existing)
                let next = above.isEmpty ? "." : above
                guard errno == ENOENT || errno == ENOTDIR, next != existing else {
                    return "\(existing): \(String(cString: strerror(errno)).lowercased())"
                }
                existing = next
            }
            // Said of the folder itself, or of the one above that keeps it from being made.
            let making = existing != path ? "cannot be created: \(existing) is " : ""
            guard info.st_mode & S_IFMT == S_IFDIR else { return making + "not a folder" }
            var volume = statvfs()
            if statvfs(existing, &volume) == 0, volume.f_flag & UInt(ST_RDONLY) != 0 {
                return making + "on a read-only file system"
            }
            guard allows(info, [S_IWUSR | S_IXUSR]) else {
                return making + "not writable by \(who) (mode \(String(info.st_mode & 0o777, radix: 8)), owner \(info.st_uid):\(info.st_gid))"
            }
            return problem(existing).map { existing != path ? "cannot be created: \(existing): \($0)" : $0 }
        }

        /// Whether the owner, group or other bits (the one class the kernel picks) grant `needs`,
        /// given as owner bits.
        private func allows(_ info: stat, _ needs: [mode_t]) -> Bool {
            guard uid != 0 else { return true }
            let shift: mode_t = info.st_uid == uid ? 0 : groups.contains(info.st_gid) ? 3 : 6
            return needs.allSatisfy { info.st_mode & ($0 >> shift) == $0 >> shift }
        }
    }
}
