/// Decides which input devices are touchscreens, and says why or why not.
///
/// A touchscreen is `INPUT_PROP_DIRECT` with X/Y axes, or — for older drivers that set no
/// property — absolute X/Y with `BTN_TOUCH` and none of a touchpad's or a tablet's signs
/// (`BTN_TOOL_FINGER`, `BTN_TOOL_PEN`, `INPUT_PROP_POINTER`). Config can force a device in by
/// path or by a name match.
public enum TouchscreenClassifier {
    /// Devices to take whatever they look like.
    public struct ForceRules: Hashable, Sendable {
        /// Device nodes to take (e.g. `/dev/input/event3`).
        public var paths: Set<String>
        /// Name substrings to take, case-insensitive.
        public var nameContains: [String]

        /// Creates rules; none by default.
        public init(paths: Set<String> = [], nameContains: [String] = []) {
            self.paths = paths
            self.nameContains = nameContains
        }
    }

    /// The decision and its reason.
    public struct Verdict: Hashable, Sendable, CustomStringConvertible {
        /// Whether flickd reads it.
        public var isTouchscreen: Bool
        /// Why, in words for a log line or `list-devices`.
        public var reason: String

        public var description: String { (isTouchscreen ? "touchscreen: " : "ignored: ") + reason }
    }

    /// Classifies a device by its capabilities.
    public static func verdict(for d: DeviceDescription, path: String? = nil,
                               force: ForceRules = ForceRules()) -> Verdict {
        let axes = d.positionAxes != nil
        if let path, force.paths.contains(path) {
            return axes ? Verdict(isTouchscreen: true, reason: "forced by path \(path) (\(d.touchProtocol.rawValue))")
                        : Verdict(isTouchscreen: false, reason: "forced by path, but it has no X/Y axes")
        }
        if let match = force.nameContains.first(where: { !$0.isEmpty && d.name.lowercased().contains($0.lowercased()) }) {
            return axes ? Verdict(isTouchscreen: true, reason: "forced by name match '\(match)' (\(d.touchProtocol.rawValue))")
                        : Verdict(isTouchscreen: false, reason: "matched '\(match)', but it has no X/Y axes")
        }
        guard axes else {
            let abs = (d.codes[EventCode.EV_ABS] ?? []).union(d.absAxes.keys).sorted()
            if abs.isEmpty { return Verdict(isTouchscreen: false, reason: "no absolute axes") }
            return Verdict(isTouchscreen: false,
                           reason: "reports only " + abs.map(EventCode.absName).joined(separator: "/") + ", no X/Y position")
        }
        if d.properties.contains(EventCode.INPUT_PROP_DIRECT) {
            return Verdict(isTouchscreen: true, reason: "INPUT_PROP_DIRECT (\(d.touchProtocol.rawValue))")
        }
        if d.properties.contains(EventCode.INPUT_PROP_POINTER) {
            return Verdict(isTouchscreen: false, reason: "INPUT_PROP_POINTER: a touchpad or tablet, not a screen")
        }
        if d.has(EventCode.EV_KEY, EventCode.BTN_TOOL_PEN) {
            return Verdict(isTouchscreen: false, reason: "BTN_TOOL_PEN: a pen tablet, not a touchscreen")
        }
        if d.has(EventCode.EV_KEY, EventCode.BTN_TOOL_FINGER) {
            return Verdict(isTouchscreen: false, reason: "BTN_TOOL_FINGER: a touchpad, not a touchscreen")
        }
        let touch = d.has(EventCode.EV_KEY, EventCode.BTN_TOUCH)
        // Multitouch without BTN_TOUCH (some protocol A drivers) is still a screen when direct
        // input is not contradicted; single touch needs BTN_TOUCH to tell down from hover.
        if touch || d.touchProtocol != .singleTouch {
            return Verdict(isTouchscreen: true, reason: "absolute X/Y with \(touch ? "BTN_TOUCH" : "multitouch"), no touchpad signs "
                           + "(\(d.touchProtocol.rawValue))")
        }
        return Verdict(isTouchscreen: false, reason: "absolute X/Y without BTN_TOUCH: cannot tell a touch from hover")
    }
}
