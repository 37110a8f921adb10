/// The subset of `linux/input-event-codes.h` flickd reads, with names for messages.
public enum EventCode {
    // Types.
    public static let EV_SYN: UInt16 = 0x00
    public static let EV_KEY: UInt16 = 0x01
    public static let EV_REL: UInt16 = 0x02
    public static let EV_ABS: UInt16 = 0x03
    public static let EV_MSC: UInt16 = 0x04
    public static let EV_MAX: UInt16 = 0x1f

    // EV_SYN codes.
    public static let SYN_REPORT: UInt16 = 0
    public static let SYN_CONFIG: UInt16 = 1
    public static let SYN_MT_REPORT: UInt16 = 2
    public static let SYN_DROPPED: UInt16 = 3

    // EV_KEY codes.
    public static let BTN_TOOL_PEN: UInt16 = 0x140
    public static let BTN_TOOL_FINGER: UInt16 = 0x145
    public static let BTN_TOUCH: UInt16 = 0x14a
    public static let BTN_TOOL_DOUBLETAP: UInt16 = 0x14d

    // EV_ABS codes.
    public static let ABS_X: UInt16 = 0x00
    public static let ABS_Y: UInt16 = 0x01
    public static let ABS_Z: UInt16 = 0x02
    public static let ABS_RX: UInt16 = 0x03
    public static let ABS_PRESSURE: UInt16 = 0x18
    public static let ABS_MT_SLOT: UInt16 = 0x2f
    public static let ABS_MT_TOUCH_MAJOR: UInt16 = 0x30
    public static let ABS_MT_POSITION_X: UInt16 = 0x35
    public static let ABS_MT_POSITION_Y: UInt16 = 0x36
    public static let ABS_MT_TOOL_TYPE: UInt16 = 0x37
    public static let ABS_MT_TRACKING_ID: UInt16 = 0x39
    public static let ABS_MT_PRESSURE: UInt16 = 0x3a
    public static let ABS_MAX: UInt16 = 0x3f

    // Input properties.
    public static let INPUT_PROP_POINTER: UInt16 = 0x00
    public static let INPUT_PROP_DIRECT: UInt16 = 0x01

    // ABS_MT_TOOL_TYPE values.
    public static let MT_TOOL_FINGER: Int32 = 0
    public static let MT_TOOL_PEN: Int32 = 1
    public static let MT_TOOL_PALM: Int32 = 2

    /// The highest code of each type the kernel defines (`*_MAX`); a code above it is unknown.
    public static func maximumCode(type: UInt16) -> UInt16? {
        switch type {
        case EV_SYN: 0x0f
        case EV_KEY: 0x2ff
        case EV_REL: 0x0f
        case EV_ABS: ABS_MAX
        case EV_MSC: 0x07
        case 0x05: 0x10   // EV_SW
        case 0x11: 0x0f   // EV_LED
        case 0x12: 0x07   // EV_SND
        case 0x14: 0x01   // EV_REP
        case 0x15: 0x7f   // EV_FF
        case 0x16: 0x01   // EV_PWR
        case 0x17: 0x01   // EV_FF_STATUS
        default: nil
        }
    }

    private static let absNames: [UInt16: String] = [
        0x00: "ABS_X", 0x01: "ABS_Y", 0x02: "ABS_Z", 0x03: "ABS_RX", 0x04: "ABS_RY", 0x05: "ABS_RZ",
        0x18: "ABS_PRESSURE", 0x2f: "ABS_MT_SLOT", 0x30: "ABS_MT_TOUCH_MAJOR", 0x31: "ABS_MT_TOUCH_MINOR",
        0x34: "ABS_MT_ORIENTATION", 0x35: "ABS_MT_POSITION_X", 0x36: "ABS_MT_POSITION_Y",
        0x37: "ABS_MT_TOOL_TYPE", 0x39: "ABS_MT_TRACKING_ID", 0x3a: "ABS_MT_PRESSURE",
    ]

    /// A readable name such as `ABS_MT_SLOT` or `EV_KEY 0x14a`.
    public static func name(type: UInt16, code: UInt16) -> String {
        switch type {
        case EV_SYN: ["SYN_REPORT", "SYN_CONFIG", "SYN_MT_REPORT", "SYN_DROPPED"][safe: Int(code)] ?? "EV_SYN \(code)"
        case EV_ABS: absName(code)
        case EV_KEY:
            switch code {
            case BTN_TOUCH: "BTN_TOUCH"
            case BTN_TOOL_PEN: "BTN_TOOL_PEN"
            case BTN_TOOL_FINGER: "BTN_TOOL_FINGER"
            default: "EV_KEY 0x" + String(code, radix: 16)
            }
        default: "type \(type) code \(code)"
        }
    }

    /// `ABS_MT_SLOT`, or `ABS_0x28` for codes without a name here.
    public static func absName(_ code: UInt16) -> String {
        absNames[code] ?? "ABS_0x" + String(code, radix: 16)
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
