import FlickSystem
import FoundationEssentials
import Glibc

/// What survives a restart: where the view was, for which content.
public struct PersistedState: Codable, Hashable, Sendable {
    /// Which content it belongs to (path, size, modification time); restored only if it matches.
    public var content: String
    public var offsetX: Double
    public var offsetY: Double
    public var zoomScale: Double
    /// The content `load` chose, shown again after a restart (absent: the config's; a state
    /// saved before this field is read as absent).
    public var loaded: String?
    /// The config's `content.path` when `load` chose it: once the config names other content,
    /// the config's is shown.
    public var loadedUnder: String?
    /// The home view the view was saved under (`Configuration.homeView`): a view saved before
    /// the start scale or home offset was edited is not restored (absent: not restored either).
    public var home: String?

    /// Creates a state.
    public init(content: String, offsetX: Double, offsetY: Double, zoomScale: Double,
                loaded: String? = nil, loadedUnder: String? = nil, home: String? = nil) {
        self.content = content
        self.offsetX = offsetX
        self.offsetY = offsetY
        self.zoomScale = zoomScale
        self.loaded = loaded
        self.loadedUnder = loadedUnder
        self.home = home
    }
}

/// What a start shows (`state.restore`): the view saved for the content, or its home view.
public enum StateRestore: String, Hashable, Sendable {
    /// The view saved for the same content under the same home view.
    case view
    /// The home view, whatever was saved: a kiosk in a public place shows each visitor what
    /// it was set up to show, not where the last one left it.
    case home
}

/// Saves the state so that a power cut leaves the old or the new one, never half of one, and
/// writes one page a save: the file is two slots rewritten in turn in place (`StateSlots`), made
/// whole at the first save (write a temporary file beside it, fsync, rename over, fsync the
/// folder: `AtomicFile`). A file that is truncated or corrupt anyway is ignored with a warning.
public struct StateStore: Sendable {
    /// The state file.
    public let path: String

    /// A store at `path`.
    public init(path: String) {
        self.path = path
    }

    /// Reads the state: nil when there is none; nil and a warning when it is unusable.
    public func load() -> (state: PersistedState?, warning: String?) {
        guard let data = FileManager.default.contents(atPath: path) else { return (nil, nil) }
        guard let payload = Self.payload(in: data) else {
            return (nil, "\(path): ignoring an unreadable saved state (\(data.count) bytes): neither slot is whole")
        }
        do {
            return (try JSONDecoder().decode(PersistedState.self, from: payload), nil)
        } catch {
            return (nil, "\(path): ignoring an unreadable saved state (\(data.count) bytes): \(error)")
        }
    }

    /// Writes the state.
    /// - Throws: `SystemError` naming the step and the path.
    public func save(_ state: PersistedState) throws(SystemError) {
        try write(Self.encoded(state))
    }

    /// The state's JSON: the same state gives the same bytes (keys sorted), so an unchanged state
    /// is seen as such before it is written.
    static func encoded(_ state: PersistedState) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(state)) ?? Data()
    }

    /// The JSON of the newest state in the file, nil when there is none.
    func savedPayload() -> Data? {
        FileManager.default.contents(atPath: path).flatMap(Self.payload(in:))
    }

    /// The newest state's JSON in a file's bytes: its newest whole slot (nil when neither is
    /// whole), or in the first layout the whole file.
    private static func payload(in file: Data) -> Data? {
        guard let slots = StateSlots(parsing: file) else { return file }
        return slots.newest?.payload
    }

    /// Writes `payload`, a state's JSON: into the older slot, in place, with `fdatasync`; the
    /// whole file atomically when there is none yet, it has the first layout or another, or the
    /// state outgrew its slots.
    /// - Throws: `SystemError` naming the step and the path.
    func write(_ payload: Data) throws(SystemError) {
        // Read by path, then opened: only this process writes the file.
        if case .success(let bytes) = FileIO.read(path, limit: 1 << 20), let slots = StateSlots(parsing: Data(bytes)),
           StateSlots.slotSize(for: payload) <= slots.slotSize {
            let fd = open(path, O_RDWR | O_CLOEXEC)
            if fd >= 0 {
                defer { close(fd) }
                let sequence = (slots.newest?.sequence ?? 0) &+ 1
                let slot = StateSlots.slot(sequence: sequence, payload: payload, slotSize: slots.slotSize)
                try writeWhole(Array(slot), to: fd, at: slots.nextIndex * slots.slotSize, context: path)
                guard fdatasync(fd) == 0 else { throw SystemError(call: "fdatasync", context: path, errno: errno) }
                return
            }
        }
        let slotSize = StateSlots.slotSize(for: payload)
        let file = StateSlots.slot(sequence: 1, payload: payload, slotSize: slotSize) + StateSlots.blank(slotSize: slotSize)
        try AtomicFile.write(file, to: path, makingDirectory: true)
    }
}
