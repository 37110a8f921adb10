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

/// Saves the state atomically — write a temporary file beside it, fsync, rename over, fsync the
/// folder — so a power cut leaves the old or the new file, never half of one. A file that is
/// truncated or corrupt anyway is ignored with a warning.
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
        do {
            return (try JSONDecoder().decode(PersistedState.self, from: data), nil)
        } catch {
            return (nil, "\(path): ignoring an unreadable saved state (\(data.count) bytes): \(error)")
        }
    }

    /// Writes the state atomically.
    /// - Throws: `SystemError` naming the step and the path.
    public func save(_ state: PersistedState) throws(SystemError) {
        try write(Self.encoded(state))
    }

    /// The file's bytes for `state`: the same state gives the same bytes (keys sorted), so an
    /// unchanged state is seen as such before it is written.
    static func encoded(_ state: PersistedState) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(state)) ?? Data()
    }

    /// Writes `data` as the state file, atomically.
    /// - Throws: `SystemError` naming the step and the path.
    func write(_ data: Data) throws(SystemError) {
        try AtomicFile.write(data, to: path, makingDirectory: true)
    }
}
