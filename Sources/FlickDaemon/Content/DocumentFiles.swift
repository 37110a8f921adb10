import FlickDisplay
import FlickSystem
import FoundationEssentials
import Glibc

/// Which content is a document (a PDF or an SVG, drawn by `flickd-render`), and the helper's
/// arguments for it (docs/documents.md).
///
/// A folder goes to the helper when it holds at least one document: then all its pages, the
/// documents and the PNG/JPEG images among them, in file-name order (as a folder's images), are
/// the helper's, since one content has one provider. A folder of images alone stays with
/// flickd's own `PageFolderSource`.
enum DocumentFiles {
    /// The extensions drawn by the helper.
    static let extensions = [".pdf", ".svg"]
    /// The extensions of the image pages the helper draws among documents (a folder of images
    /// alone takes `ImageFormat.extensions`, WebP too).
    static let imageExtensions = [".png", ".jpg", ".jpeg"]
    /// The most files one folder given to the helper may hold: each is a descriptor there.
    static let maxFiles = 256

    /// Whether `path` names a document by its extension.
    static func isDocument(_ path: String) -> Bool {
        let lower = path.lowercased()
        return extensions.contains { lower.hasSuffix($0) }
    }

    /// Whether `path` names a PNG or JPEG image by its extension.
    static func isImage(_ path: String) -> Bool {
        let lower = path.lowercased()
        return imageExtensions.contains { lower.hasSuffix($0) }
    }

    /// The files the helper shows for `path`, in page order: the document itself, or a folder's
    /// documents and images when it holds a document; nil for other content (an image, a folder
    /// of images alone, a pyramid).
    /// - Throws: `ContentError` for a folder holding too many files.
    static func documents(at path: String) throws -> [String]? {
        if isDocument(path) { return [path] }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR,
              let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return nil }
        let pages = names.filter { !$0.hasPrefix(".") && (isDocument($0) || isImage($0)) }.sorted()
        guard pages.contains(where: isDocument) else { return nil }
        // The helper draws a folder's images with gdk-pixbuf, which reads no WebP without a
        // loader Debian does not install by default: said, rather than pages left out.
        if let webp = names.first(where: { !$0.hasPrefix(".") && $0.lowercased().hasSuffix(".webp") }) {
            throw ContentError(path: path, reason: .notAllowed(
                "\(webp): WebP pages beside a PDF or SVG are not drawn (the document helper reads PNG and JPEG); "
                + "convert them, or keep the images in a folder of their own"))
        }
        guard pages.count <= maxFiles else {
            throw ContentError(path: path, reason: .notAllowed("\(pages.count) documents and images; at most \(maxFiles) in one folder "
                                                               + "that holds a PDF or an SVG"))
        }
        let folder = path.hasSuffix("/") ? path : path + "/"
        return pages.map { folder + $0 }
    }

    /// Checks each document exists and can be read (`flickd check-config`, and before the helper
    /// is started): what it holds is the helper's to judge.
    /// - Throws: `ContentError` naming the file.
    static func checkReadable(_ files: [String]) throws {
        for file in files where access(file, R_OK) != 0 {
            throw ContentError(path: file, reason: .unreadable(.current("access", file)))
        }
    }

    /// The path of `flickd-render`: beside the running executable (`.build/debug` for the tests
    /// and benchmarks), else in `../libexec/flickd` from its folder (the package's
    /// `/usr/libexec/flickd`: not a command of a person's).
    static var helperPath: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return "/usr/libexec/flickd/flickd-render" }
        let folder = parentDirectory(of: String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self))
        let beside = folder + "/flickd-render"
        return access(beside, X_OK) == 0 ? beside : parentDirectory(of: folder) + "/libexec/flickd/flickd-render"
    }
}
