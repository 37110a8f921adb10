import FlickCore
import FlickDisplay
import FlickInput

/// A bad `--input` or `--display` value, with what was expected.
public struct EndpointError: FlickError, Hashable, Sendable {
    /// The option (`--input`, `--display`).
    public var option: String
    /// The value given.
    public var value: String
    /// What would have been accepted.
    public var expected: String

    /// Creates an error.
    public init(option: String, value: String, expected: String) {
        self.option = option
        self.value = value
        self.expected = expected
    }

    public var context: ErrorContext { ErrorContext(source: option, expected: expected, found: "'\(value)'") }

    public var kind: ErrorKind { .usage }
}

/// Where touches come from (`--input`).
public enum InputEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// Every touchscreen found under `/dev/input`, with hotplug.
    case auto
    /// One device node, e.g. `/dev/input/event3` (still reopened when it comes back).
    case device(String)
    /// An evemu recording replayed in real time (`evemu:FILE`).
    case recording(String)

    static let expected = "auto, a device path such as /dev/input/event3, or evemu:FILE"

    /// Parses `auto`, `/dev/input/eventN` or `evemu:FILE`.
    /// - Throws: `EndpointError` naming the value and what was expected.
    public init(parsing text: String) throws(EndpointError) {
        if text == "auto" {
            self = .auto
        } else if text.hasPrefix("evemu:") {
            let path = String(text.dropFirst("evemu:".count))
            guard !path.isEmpty else { throw EndpointError(option: "--input", value: text, expected: Self.expected) }
            self = .recording(path)
        } else if text.hasPrefix("/") {
            self = .device(text)
        } else {
            throw EndpointError(option: "--input", value: text, expected: Self.expected)
        }
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .device(let path): path
        case .recording(let path): "evemu:\(path)"
        }
    }
}

/// Where frames go (`--display`).
public enum DisplayEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// DRM/KMS, then fbdev, then headless: the first that opens.
    case auto
    /// DRM/KMS on the given card, or the first card with a connected connector.
    case drm(card: String?)
    /// A framebuffer device, `/dev/fb0` by default.
    case fbdev(device: String?)
    /// Memory only, at the given size or the configured one.
    case headless(size: PixelSize?)
    /// A window on the Wayland compositor at `WAYLAND_DISPLAY`: fullscreen, or of the given
    /// size in surface pixels.
    case wayland(size: PixelSize?)

    static let expected = "auto, drm[:/dev/dri/cardN], fbdev[:/dev/fbN], headless[:WIDTHxHEIGHT] or wayland[:WIDTHxHEIGHT]"

    /// Parses `auto`, `drm[:CARD]`, `fbdev[:DEVICE]`, `headless[:WxH]` or `wayland[:WxH]`.
    /// - Throws: `EndpointError` naming the value and what was expected.
    public init(parsing text: String) throws(EndpointError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let argument = parts.count == 2 ? String(parts[1]) : nil
        if argument?.isEmpty == true { throw EndpointError(option: "--display", value: text, expected: Self.expected) }
        switch parts[0] {
        case "auto" where argument == nil: self = .auto
        case "drm": self = .drm(card: argument)
        case "fbdev": self = .fbdev(device: argument)
        case "headless":
            guard let argument else { self = .headless(size: nil); return }
            guard let size = PixelSize(parsing: argument) else {
                throw EndpointError(option: "--display", value: text, expected: "headless:WIDTHxHEIGHT with both from 1 to 16384")
            }
            self = .headless(size: size)
        case "wayland":
            guard let argument else { self = .wayland(size: nil); return }
            guard let size = PixelSize(parsing: argument) else {
                throw EndpointError(option: "--display", value: text,
                                    expected: "wayland:WIDTHxHEIGHT with both from 1 to 16384 (the window's size; plain wayland: fullscreen)")
            }
            self = .wayland(size: size)
        default:
            throw EndpointError(option: "--display", value: text, expected: Self.expected)
        }
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .drm(let card): card.map { "drm:\($0)" } ?? "drm"
        case .fbdev(let device): device.map { "fbdev:\($0)" } ?? "fbdev"
        case .headless(let size): size.map { "headless:\($0)" } ?? "headless"
        case .wayland(let size): size.map { "wayland:\($0)" } ?? "wayland"
        }
    }
}

extension PixelSize {
    /// Parses `WIDTHxHEIGHT`, each from 1 to 16384; nil otherwise.
    public init?(parsing text: String) {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
              (1...16384).contains(w), (1...16384).contains(h) else { return nil }
        self.init(width: w, height: h)
    }
}

extension TouchInputOptions {
    /// The devices an input endpoint and the config name (`input.match_name`, `input.grab`),
    /// mapped with the config's touch mapping onto a view of `outputSize`, phantom touches
    /// dropped as the config says (`input.minimum_touch_ms`): `flickd run` and `flickd
    /// calibrate` take the same touchscreens, and the same touches from them.
    public init(configuration: Configuration, endpoint: InputEndpoint, outputSize: Size) {
        self.init(outputSize: outputSize)
        if case .device(let path) = endpoint { devicePath = path }
        if !configuration.inputMatchName.isEmpty { force.nameContains = [configuration.inputMatchName] }
        grab = configuration.grab
        mapping = configuration.touchMapping
        minimumTouchDuration = configuration.minimumTouchDuration
    }
}
