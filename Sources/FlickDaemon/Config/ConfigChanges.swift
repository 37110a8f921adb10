import FoundationEssentials

/// What a reload changed, key by key, and when each change takes effect: the one list of keys
/// a reload cannot apply (`restartOnly`), which `config/flickd.toml`'s comments and a test agree
/// with.
///
/// Keys are compared as the files wrote them (a key left out is "(default)"), so a reload logs
/// one line per key it changed, `key: old → new`, with when it applies, then a summary.
public enum ConfigChanges {
    /// When a changed key takes effect.
    public enum Takes: String, Hashable, Sendable {
        /// At once (the next gesture, frame or save).
        case now
        /// When content is next loaded (a new `content.path`, `flickctl load`): what is shown
        /// stays as it was loaded.
        case nextContent = "when content is next loaded"
        /// Only at the next start: the daemon opened or made what the key names at start.
        case restart = "only at the next start"
    }

    /// Keys whose value is read only at start, and what reads it: the display (`DisplayOpener`,
    /// the compositor's rotation), the touchscreens (`TouchInputOptions`), the control socket
    /// and the state file (`Daemon.init`), and whether a saved view is restored (`ContentHost`).
    public static let restartOnly: Set<String> = [
        "display.backend", "display.card", "display.connector", "display.mode", "display.rotation", "display.fbdev", "display.fallback",
        "display.headless_size", "display.headless_refresh_rate", "display.realtime_priority", "display.wayland_buffers",
        "input.device", "input.match_name", "input.grab",
        "control.socket", "control.group", "control.mode",
        "state.path", "state.restore",
        "power.method", "power.backlight",
    ]

    /// Keys read when content is loaded (`ContentLoader`): a reload keeps what is shown.
    public static let atNextContent: Set<String> = [
        "content.page_direction", "content.pixel_budget", "content.cache_directory",
        "content.page_gap_px", "content.document_width_px", "content.document_max_pages", "content.render_memory_mb",
    ]

    /// When a change of `key` takes effect.
    public static func takes(_ key: String) -> Takes {
        restartOnly.contains(key) ? .restart : atNextContent.contains(key) ? .nextContent : .now
    }

    /// One changed key.
    public struct Change: Hashable, Sendable {
        /// `section.key`.
        public var key: String
        /// The values as the files wrote them; nil where the file left the key out.
        public var old: String?, new: String?
        /// When it applies.
        public var takes: Takes { ConfigChanges.takes(key) }

        /// `key: old → new`, and when it applies unless at once.
        public var line: String {
            "\(key): \(old ?? "(default)") → \(new ?? "(default)")" + (takes == .now ? "" : " (applies \(takes.rawValue))")
        }
    }

    /// The keys whose written values differ between two files' `values`, in key order.
    public static func between(_ old: [String: String], _ new: [String: String]) -> [Change] {
        Set(old.keys).union(new.keys).sorted().compactMap { key in
            old[key] == new[key] ? nil : Change(key: key, old: old[key], new: new[key])
        }
    }

    /// The reload's summary: how many keys changed and which wait for a restart.
    public static func summary(_ changes: [Change]) -> String {
        guard !changes.isEmpty else { return "no key changed" }
        let waiting = changes.filter { $0.takes == .restart }.map(\.key)
        return "\(changes.count) key\(changes.count == 1 ? "" : "s") changed"
            + (waiting.isEmpty ? "" : "; restart flickd to apply \(waiting.joined(separator: ", "))")
    }

    /// Every key of the config file at `path` with its value as written (`section.key` → TOML
    /// text), or nothing when it cannot be read or parsed (the loader says why).
    public static func values(path: String) -> [String: String] {
        // The loader's guards first: the file may have changed since it was loaded.
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        let source = String(decoding: data, as: UTF8.self)
        guard !source.unicodeScalars.contains("\0"), TOMLScan.firstAbort(in: source) == nil,
              let table = try? TOMLValue.parse(source) else { return [:] }
        var values: [String: String] = [:]
        for section in table {
            for entry in section.value.table ?? [] { values[section.key + "." + entry.key] = text(entry.value) }
        }
        return values
    }

    /// A value as TOML writes it, to compare and to log.
    static func text(_ value: TOMLValue) -> String {
        switch value {
        case .string(let s): "\"\(s)\""
        case .integer(let n): String(n)
        case .float(let d): String(d)
        case .boolean(let b): String(b)
        case .array(let a): "[" + a.map(text).joined(separator: ", ") + "]"
        case .table(let t): "{" + t.map { "\($0.key) = \(text($0.value))" }.joined(separator: ", ") + "}"
        case .date, .time, .dateTime: "a \(value.kindName)"
        }
    }
}
