/// One absolute axis as the kernel describes it (`struct input_absinfo`).
public struct AbsAxis: Hashable, Sendable {
    /// Lowest value.
    public var minimum: Int32
    /// Highest value.
    public var maximum: Int32
    /// Noise the kernel filters.
    public var fuzz: Int32
    /// Dead zone.
    public var flat: Int32
    /// Units per millimetre; 0 when the device does not say.
    public var resolution: Int32

    /// Creates an axis.
    public init(minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }

    /// `maximum − minimum`, at least 1 so it can divide.
    public var span: Double { max(1, Double(maximum) - Double(minimum)) }
}

/// What an input device is and reports: from `libevdev` for a live device, from the `N: I: P:
/// B: A:` header of an evemu recording otherwise.
public struct DeviceDescription: Hashable, Sendable {
    /// The kernel's name for it.
    public var name: String
    /// Bus type, vendor, product and version (`I:`).
    public var bus: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0
    /// Input properties (`INPUT_PROP_DIRECT`, …).
    public var properties: Set<UInt16> = []
    /// The codes it can send, by event type.
    public var codes: [UInt16: Set<UInt16>] = [:]
    /// The absolute axes with their ranges.
    public var absAxes: [UInt16: AbsAxis] = [:]

    /// Creates a description.
    public init(name: String) {
        self.name = name
    }

    /// Whether it can send `code` of `type` (an axis described by `A:` counts for `EV_ABS`).
    public func has(_ type: UInt16, _ code: UInt16) -> Bool {
        codes[type]?.contains(code) == true || (type == EventCode.EV_ABS && absAxes[code] != nil)
    }

    /// Declares that it can send `code` of `type`.
    public mutating func enable(_ type: UInt16, _ code: UInt16) {
        codes[type, default: []].insert(code)
    }

    /// Declares an absolute axis and its range.
    public mutating func setAxis(_ code: UInt16, _ axis: AbsAxis) {
        absAxes[code] = axis
        enable(EventCode.EV_ABS, code)
    }

    /// How contacts are reported.
    public var touchProtocol: TouchProtocol {
        if has(EventCode.EV_ABS, EventCode.ABS_MT_SLOT) { return .slots }
        if has(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X) { return .multiTouchA }
        return .singleTouch
    }

    /// The X and Y axes contacts are reported on: the MT ones, else `ABS_X`/`ABS_Y`.
    public var positionAxes: (x: AbsAxis, y: AbsAxis)? {
        let mt = touchProtocol != .singleTouch
        let xCode = mt ? EventCode.ABS_MT_POSITION_X : EventCode.ABS_X
        let yCode = mt ? EventCode.ABS_MT_POSITION_Y : EventCode.ABS_Y
        guard let x = absAxes[xCode] ?? absAxes[EventCode.ABS_X], let y = absAxes[yCode] ?? absAxes[EventCode.ABS_Y] else {
            return nil
        }
        return (x, y)
    }

    /// Physical size in millimetres, when the axes give a resolution.
    public var physicalSize: (width: Double, height: Double)? {
        guard let (x, y) = positionAxes, x.resolution > 0, y.resolution > 0 else { return nil }
        return (x.span / Double(x.resolution), y.span / Double(y.resolution))
    }
}

/// The kernel's three ways of reporting touches.
public enum TouchProtocol: String, Hashable, Sendable {
    /// Multitouch protocol B: `ABS_MT_SLOT` and tracking ids.
    case slots = "protocol B"
    /// Multitouch protocol A: contacts separated by `SYN_MT_REPORT`.
    case multiTouchA = "protocol A"
    /// One contact: `BTN_TOUCH` with `ABS_X`/`ABS_Y`.
    case singleTouch = "single-touch"
}
