/// One input device as `flickd list-devices` shows it.
public struct DeviceReport: Hashable, Sendable, CustomStringConvertible {
    /// The node.
    public var path: String
    /// The device's name, if it could be opened.
    public var name: String?
    /// Whether flickd takes it, and why; or why it could not be looked at.
    public var verdict: TouchscreenClassifier.Verdict

    public var description: String {
        "\(path)\t\(name.map { "'\($0)'" } ?? "-")\t\(verdict)"
    }
}

/// Every input device of a folder, each with flickd's verdict.
public enum DeviceInventory {
    /// Looks at every `event*` node.
    public static func list(directory: String = "/dev/input", force: TouchscreenClassifier.ForceRules = .init(),
                            opener: (String) throws(InputDeviceError) -> any EventReader = { path throws(InputDeviceError) in
                                try EvdevDevice(path: path)
                            }) -> [DeviceReport] {
        var reports: [DeviceReport] = []
        for path in TouchInput.eventNodes(in: directory) {
            do throws(InputDeviceError) {
                let reader = try opener(path)
                defer { reader.close() }
                reports.append(DeviceReport(path: path, name: reader.description.name,
                                            verdict: TouchscreenClassifier.verdict(for: reader.description, path: path, force: force)))
            } catch {
                reports.append(DeviceReport(path: path, name: nil, verdict: .init(isTouchscreen: false, reason: error.reason)))
            }
        }
        return reports
    }
}
