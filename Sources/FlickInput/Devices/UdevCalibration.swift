import CSystemd

/// The calibration matrix udev gives a device (`LIBINPUT_CALIBRATION_MATRIX`, set by hwdb or a
/// rule), read through sd-device. Where udev does not run there is none; the config's matrix
/// overrides it either way.
public enum UdevCalibration {
    /// The matrix for a device node, if udev has one.
    public static func matrix(forDeviceNode path: String) -> [Double]? {
        var device: OpaquePointer?
        guard sd_device_new_from_devname(&device, path) >= 0, let device else { return nil }
        defer { sd_device_unref(device) }
        var value: UnsafePointer<CChar>?
        guard sd_device_get_property_value(device, "LIBINPUT_CALIBRATION_MATRIX", &value) >= 0, let value else { return nil }
        return parse(String(cString: value))
    }

    /// Six numbers separated by spaces, all finite; nil otherwise.
    public static func parse(_ text: String) -> [Double]? {
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) }
        guard numbers.count == 6, numbers.allSatisfy(\.isFinite),
              text.split(whereSeparator: { $0 == " " || $0 == "\t" }).count == 6 else { return nil }
        return numbers
    }
}
