import FlickCore
import FlickSystem

/// The readable-fd watches of a set of descriptors that changes as devices come and go: one
/// sd-event source per descriptor, keyed by the descriptor's identity, not its number. Each
/// source holds its descriptor, so a file cannot be closed (and its number handed to a newcomer)
/// while a watch on it exists: a descriptor its owner let go stays open until the next
/// `update` drops its watch. `LiveRunner` keeps its own in one.
final class FileWatches {
    private let loop: EventLoop
    private let context: String
    private let handler: () -> Void
    private var watches: [ObjectIdentifier: IOSource] = [:]

    /// - Parameter handler: called when any watched descriptor is readable.
    init(loop: EventLoop, context: String, handler: @escaping () -> Void) {
        self.loop = loop
        self.context = context
        self.handler = handler
    }

    /// Watches exactly `descriptors`.
    /// - Throws: `SystemError` if a descriptor cannot be watched.
    func update(_ descriptors: [Descriptor]) throws(SystemError) {
        let wanted = Dictionary(descriptors.map { (ObjectIdentifier($0), $0) }, uniquingKeysWith: { first, _ in first })
        for key in watches.keys where wanted[key] == nil { watches[key] = nil }
        for (key, descriptor) in wanted where watches[key] == nil {
            let handler = self.handler
            watches[key] = try loop.addIO(descriptor, events: .readable, context: "\(descriptor) of \(context)") { _ in handler() }
        }
    }

    /// Stops every watch (and drops the handlers, which may hold their owner).
    func removeAll() {
        watches.removeAll()
    }
}
