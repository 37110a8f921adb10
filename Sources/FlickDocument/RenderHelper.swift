import FlickCore
import FlickSystem
import Glibc

/// What `flickd-render` does, from its arguments to its exit status (docs/documents.md): limits,
/// pool, fonts, the seccomp filter, then the documents parsed and either `documentError` (exit 65)
/// or `provide` and tiles until flickd closes the connection (exit 0).
public enum RenderHelper {
    /// Exit statuses (sysexits.h).
    public enum Status: Int32, Sendable {
        /// flickd closed the connection.
        case done = 0
        /// A wrong command line.
        case usage = 64
        /// The document cannot be shown (after `documentError`).
        case dataError = 65
        /// flickd refused `provide`: a bug on one side.
        case software = 70
        /// The sandbox could not be set up.
        case osError = 71
    }

    /// Runs the helper; returns its exit status.
    public static func main(arguments: [String]) -> Status {
        let options: RenderOptions
        do {
            options = try RenderOptions(arguments: arguments)
        } catch {
            say("\(error)\n\(RenderOptions.usage)")
            return .usage
        }
        // A write to a closed socket is an error to handle, not a signal that kills.
        signal(SIGPIPE, SIG_IGN)
        let pool: TilePool
        do {
            let highest = ([options.socket] + options.documents.map(\.fd)).max() ?? 3
            try Sandbox.limit(memoryMB: options.memoryMB, highestDescriptor: highest)
            pool = try TilePool(slots: options.slots, tileSize: options.tileSize)
            Sandbox.prepareFonts()
            try Sandbox.confine()
        } catch {
            say("flickd-render: cannot set up its sandbox: \(error)")
            return .osError
        }
        let document: Document
        do {
            document = try Document(descriptors: options)
        } catch {
            send(HelperMessages.documentError(error), on: options.socket)
            return .dataError
        }
        let detail = document.layout.detail(maximum: options.detailMax)
        let session = ProviderSession(socket: options.socket, document: document, pool: pool, slots: options.slots,
                                      background: options.background)
        switch session.run(provide: HelperMessages.provide(document, tileSize: options.tileSize, slots: options.slots, detail: detail)) {
        case .closed:
            return .done
        case let .refused(reason):
            say("flickd-render: flickd refused the document's provide: \(reason)")
            return .software
        }
    }

    /// Writes `line` to flickd, or to stderr when flickd cannot be reached.
    private static func send(_ line: String, on socket: Int32) {
        do {
            try writeWhole(Array(line.utf8), to: socket, context: "the socket to flickd")
        } catch {
            say("flickd-render: \(line.dropLast())")
        }
    }

    /// One line on stderr (flickd's: the journal under systemd).
    private static func say(_ text: String) {
        try? writeWhole(Array((text + "\n").utf8), to: STDERR_FILENO, context: "stderr")
    }
}
