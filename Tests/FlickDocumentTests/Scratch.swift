import Foundation
import Glibc

/// A temporary folder for one test's documents, removed when dropped.
final class Scratch {
    let path: String

    init() throws {
        var template = Array("/tmp/flickd-render-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp: errno \(errno)") }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `bytes` to `name` in the folder; returns its path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = path + "/" + name
        guard FileManager.default.createFile(atPath: file, contents: Data(bytes)) else { throw TestFailure("cannot write \(file)") }
        return file
    }

    /// Writes `text` to `name`; returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String { try write(name, Array(text.utf8)) }

    /// The path of `name` in the folder.
    func file(_ name: String) -> String { path + "/" + name }

    /// The bytes of `name`.
    func read(_ name: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: file(name)) else { throw TestFailure("cannot read \(name)") }
        return Array(data)
    }
}
