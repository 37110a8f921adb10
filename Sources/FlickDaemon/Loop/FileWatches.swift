import FlickCore

/// The readable-fd watches of a set of fds that changes as devices come and go: one sd-event
/// source per fd, made anew for all when the owner's files changed (`descriptorGeneration`),
/// since a watch is on the file behind a number and a new device may reuse the number of one
/// that left. `LiveRunner` keeps its own in one.
final class FileWatches {
    private let loop: EventLoop
    private let context: String
    private let handler: () -> Void
    private var watches: [Int32: IOSource] = [:]
    private var generation: Int?

    /// - Parameter handler: called when any watched fd is readable.
    init(loop: EventLoop, context: String, handler: @escaping () -> Void) {
        self.loop = loop
        self.context = context
        self.handler = handler
    }

    /// Watches exactly `fds`, given the generation of the files behind them.
    /// - Throws: `SystemError` if an fd cannot be watched.
    func update(_ fds: [Int32], generation: Int) throws(SystemError) {
        if self.generation != generation {
            watches.removeAll()
            self.generation = generation
        }
        let wanted = Set(fds)
        for fd in watches.keys where !wanted.contains(fd) { watches[fd] = nil }
        for fd in wanted where watches[fd] == nil {
            let handler = self.handler
            watches[fd] = try loop.addIO(fd: fd, events: .readable, context: "fd \(fd) of \(context)") { _ in handler() }
        }
    }

    /// Stops every watch (and drops the handlers, which may hold their owner).
    func removeAll() {
        watches.removeAll()
        generation = nil
    }
}
