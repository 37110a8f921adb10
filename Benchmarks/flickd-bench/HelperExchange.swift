import FlickControl
import FlickDocument
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The built flickd-render started as flickd starts it (its socket at fd 3, the document at 4),
/// its `provide` accepted, and tiles asked for with up to 16 outstanding.
final class HelperExchange {
    let pid: pid_t
    let socket: Int32
    private var buffer: [UInt8] = []
    private var nextRequest = 1

    struct Failure: Error, CustomStringConvertible { let description: String }

    init(helper: String, document: String) throws {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else { throw Failure(description: "socketpair") }
        socket = pair[0]
        let file = open(document, O_RDONLY | O_CLOEXEC)
        let sources = [fcntl(pair[1], F_DUPFD_CLOEXEC, 100), fcntl(file, F_DUPFD_CLOEXEC, 100)]
        close(pair[1])
        close(file)
        defer { for fd in sources { close(fd) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (i, fd) in sources.enumerated() { posix_spawn_file_actions_adddup2(&actions, fd, Int32(3 + i)) }
        let argv = [helper, "--socket", "3", "--document", "4:menu.pdf", "--page-width", "1280", "--gap", "16", "--detail-max", "2",
                    "--background", "#101820", "--slots", "16", "--tile-size", "256"]
        var cArguments = argv.map { strdup($0) } + [nil]
        var cEnvironment = [strdup("LANG=C.UTF-8"), nil]
        defer { for p in cArguments + cEnvironment { free(p) } }
        var child: pid_t = 0
        guard posix_spawn(&child, helper, &actions, nil, &cArguments, &cEnvironment) == 0 else { throw Failure(description: "posix_spawn \(helper)") }
        pid = child
        let provide = try line()
        guard provide.contains("\"cmd\":\"provide\"") else { throw Failure(description: "not a provide: \(provide)") }
        send("{\"id\":1,\"ok\":true,\"provider\":{\"name\":\"document\",\"levels\":16,\"slotBytes\":262144,\"stride\":1024}}\n")
    }

    deinit {
        close(socket)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// Asks for `tiles`, at most 16 outstanding, and waits for every answer.
    func draw(_ tiles: [DocumentBench.Tile]) throws {
        var sent = 0, answered = 0
        var freeSlots = Array(0..<16)
        var slotOf: [Int: Int] = [:]
        while answered < tiles.count {
            var batch = ""
            while sent < tiles.count, let slot = freeSlots.popLast() {
                let t = tiles[sent], id = nextRequest
                nextRequest += 1
                slotOf[id] = slot
                batch += "{\"type\":\"tileRequest\",\"request\":\(id),\"tile\":{\"level\":0,\"column\":0,\"row\":0,\"scale\":\(t.scale),"
                    + "\"x\":\(t.x),\"y\":\(t.y),\"width\":\(256 / t.scale),\"height\":\(256 / t.scale),\"pixelWidth\":256,"
                    + "\"pixelHeight\":256,\"slot\":\(slot),\"offset\":\(slot * 262_144),\"stride\":1024}}\n"
                sent += 1
            }
            if !batch.isEmpty { send(batch) }
            let answer = try line()
            guard let range = answer.range(of: "\"request\":"),
                  let id = Int(answer[range.upperBound...].prefix { $0.isNumber }), let slot = slotOf.removeValue(forKey: id) else {
                throw Failure(description: "not an answer: \(answer)")
            }
            guard !answer.contains("\"drawn\":false") else { throw Failure(description: "a tile not drawn: \(answer)") }
            freeSlots.append(slot)
            answered += 1
        }
    }

    private func send(_ text: String) {
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return }
            done += n
        }
    }

    private func line() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let text = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return text
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw Failure(description: "flickd-render closed the socket") }
            buffer += chunk[0..<n]
        }
    }
}
