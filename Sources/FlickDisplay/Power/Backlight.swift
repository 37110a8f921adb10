import FlickCore
import FlickSystem
import Glibc

/// Why a backlight cannot be used.
public enum BacklightError: FlickError, Hashable, Sendable {
    /// The path is not a backlight device (no `brightness` or `max_brightness` with a number).
    case notABacklight(path: String, missing: String)
    /// Several backlights and none belongs to the display's card: which one is the panel's?
    case ambiguous(root: String, names: [String])
    /// Reading or writing one of its files failed.
    case io(SystemError)

    public var context: ErrorContext {
        switch self {
        case let .notABacklight(path, missing):
            ErrorContext(source: path, reason: "not a backlight: no readable \(missing) (look in /sys/class/backlight)")
        case let .ambiguous(root, names):
            ErrorContext(source: root, reason: "several backlights (\(names.joined(separator: ", "))) and none under the display's card: "
                             + "name one with power.backlight")
        case let .io(error): error.context
        }
    }

    public var kind: ErrorKind { .config }
}

/// A panel's backlight in sysfs (`/sys/class/backlight/NAME`): `bl_power` turns it off (4,
/// FB_BLANK_POWERDOWN) and on (0), `brightness` dims it, out of `max_brightness`. The brightness
/// found when it is opened is what `on` restores, so dimming never loses the owner's setting.
/// The root is a parameter: tests use a fake tree in a temporary folder.
public final class Backlight {
    /// The sysfs classes' default root.
    public static let defaultRoot = "/sys/class/backlight"

    /// The device's folder.
    public let path: String
    /// Its name (the folder's).
    public let name: String
    /// `max_brightness`.
    public let maximum: Int
    /// `brightness` when it was opened: restored when the panel is lit.
    public let brightnessAtStart: Int
    /// Whether it has `bl_power` (without it, off is brightness 0).
    public let hasPowerSwitch: Bool

    /// Opens the backlight at `path`.
    /// - Throws: `BacklightError.notABacklight` when it lacks `max_brightness` or `brightness`.
    public init(path: String) throws(BacklightError) {
        self.path = path
        name = String(path.split(separator: "/").last ?? Substring(path))
        guard let maximum = Self.readNumber(path + "/max_brightness"), maximum > 0 else {
            throw .notABacklight(path: path, missing: "max_brightness")
        }
        guard let brightness = Self.readNumber(path + "/brightness") else { throw .notABacklight(path: path, missing: "brightness") }
        self.maximum = maximum
        brightnessAtStart = min(brightness, maximum)
        var info = stat()
        hasPowerSwitch = stat(path + "/bl_power", &info) == 0
    }

    /// The panel's backlight under `root`: the one named, or the one whose `device` lies under
    /// the display's card (`cardDevice`, the card's resolved sysfs folder), or the only one.
    /// - Returns: nil when there is none.
    /// - Throws: a named one that is no backlight, or several with none the card's.
    public static func find(root: String = defaultRoot, named: String?, cardDevice: String?) throws(BacklightError) -> Backlight? {
        if let named, !named.isEmpty {
            return try Backlight(path: named.hasPrefix("/") ? named : root + "/" + named)
        }
        guard let dir = opendir(root) else { return nil }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        closedir(dir)
        names.sort()
        let usable = names.filter { readNumber(root + "/" + $0 + "/max_brightness") != nil }
        if let cardDevice, let card = resolved(cardDevice),
           let own = usable.first(where: { resolved(root + "/" + $0 + "/device").map { $0.hasPrefix(card + "/") || $0 == card } ?? false }) {
            return try Backlight(path: root + "/" + own)
        }
        guard usable.count <= 1 else { throw .ambiguous(root: root, names: usable) }
        return try usable.first.map { name throws(BacklightError) in try Backlight(path: root + "/" + name) }
    }

    /// Lights the backlight at the brightness found at start.
    public func on() throws(BacklightError) {
        try write("brightness", brightnessAtStart)
        if hasPowerSwitch { try write("bl_power", 0) }
    }

    /// Dims to `percent` (1…100) of the maximum, at least 1 so the panel stays visible.
    public func dim(percent: Int) throws(BacklightError) {
        let level = max(1, maximum * min(max(percent, 1), 100) / 100)
        try write("brightness", level)
        if hasPowerSwitch { try write("bl_power", 0) }
    }

    /// Turns the backlight off.
    public func off() throws(BacklightError) {
        if hasPowerSwitch { try write("bl_power", 4) } else { try write("brightness", 0) }
    }

    /// The number in a sysfs file, if it holds one.
    public static func readNumber(_ file: String) -> Int? {
        guard case .success(let bytes) = FileIO.read(file, limit: 64, truncating: true) else { return nil }
        let digits = bytes.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: " ") }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    /// Writes a number to one of its files; the file must exist (sysfs never creates one).
    private func write(_ file: String, _ value: Int) throws(BacklightError) {
        let target = path + "/" + file
        let fd = open(target, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(.current("open", target)) }
        defer { _ = close(fd) }
        do {
            try writeWhole(Array((String(value) + "\n").utf8), to: fd, context: target)
        } catch {
            throw .io(error)
        }
    }

    private static func resolved(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
