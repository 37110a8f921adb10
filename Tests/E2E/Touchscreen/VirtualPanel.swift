import FlickInput
import Glibc

/// A multitouch panel (protocol B, `INPUT_PROP_DIRECT`) made through uinput, addressed in
/// screen pixels: it converts to device units the way flickd's `TouchTransform` converts back.
final class VirtualPanel {
    /// The screen the panel lies on, px.
    let screenWidth: Int, screenHeight: Int
    /// Device units per axis and per millimetre: 4096 × 3072 units at 20/mm, so 3 mm of slop
    /// is a known number of pixels (15 at 1024 px wide).
    static let xMax: Int32 = 4095, yMax: Int32 = 3071, resolution: Int32 = 20
    /// The kernel's name for it; scripts look for it in `status` and logs.
    static let name = "flickd-e2e touchscreen"

    private var device: UInputDevice?
    /// Slots in use → tracking id.
    private var contacts: [Int32: Int32] = [:]
    private var nextTrackingID: Int32 = 1

    /// A deliberate misalignment: the calibration matrix flickd would need to put this panel's
    /// touches where they were aimed (`--calibration`, for `flickd calibrate` to recover).
    let calibration: [Double]?

    init(screenWidth: Int, screenHeight: Int, calibration: [Double]? = nil) {
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.calibration = calibration
    }

    /// The node of the current device, or nil when unplugged.
    var devicePath: String? { device?.devicePath }

    /// Creates the device (again); contacts start from none.
    func plug() throws(InputDeviceError) {
        var d = DeviceDescription(name: Self.name)
        d.bus = 0x06   // BUS_VIRTUAL
        d.vendor = 0xF11C
        d.product = 0x0E2E
        d.properties = [EventCode.INPUT_PROP_DIRECT]
        d.enable(EventCode.EV_KEY, EventCode.BTN_TOUCH)
        let x = AbsAxis(minimum: 0, maximum: Self.xMax, resolution: Self.resolution)
        let y = AbsAxis(minimum: 0, maximum: Self.yMax, resolution: Self.resolution)
        d.setAxis(EventCode.ABS_X, x)
        d.setAxis(EventCode.ABS_Y, y)
        d.setAxis(EventCode.ABS_MT_SLOT, AbsAxis(minimum: 0, maximum: 9))
        d.setAxis(EventCode.ABS_MT_TRACKING_ID, AbsAxis(minimum: 0, maximum: 65535))
        d.setAxis(EventCode.ABS_MT_POSITION_X, x)
        d.setAxis(EventCode.ABS_MT_POSITION_Y, y)
        device = try UInputDevice(d)
        contacts = [:]
    }

    /// Destroys the device with whatever fingers are down still down: the reader gets `ENODEV`.
    func unplug() {
        device?.destroy()
        device = nil
        contacts = [:]
    }

    /// One frame: the given slots move to (or touch down at) screen points, `lift` slots lift.
    func frame(_ positions: [Int32: (x: Double, y: Double)], lift: Set<Int32> = []) throws(InputDeviceError) {
        guard let device else { throw InputDeviceError(path: "/dev/uinput", reason: "the panel is unplugged") }
        let wasTouching = !contacts.isEmpty
        for slot in positions.keys.sorted() {
            let (x, y) = positions[slot]!
            try device.write(type: EventCode.EV_ABS, code: EventCode.ABS_MT_SLOT, value: slot)
            if contacts[slot] == nil {
                contacts[slot] = nextTrackingID
                try device.write(type: EventCode.EV_ABS, code: EventCode.ABS_MT_TRACKING_ID, value: nextTrackingID)
                nextTrackingID += 1
            }
            let (ux, uy) = units(x, y)
            try device.write(type: EventCode.EV_ABS, code: EventCode.ABS_MT_POSITION_X, value: ux)
            try device.write(type: EventCode.EV_ABS, code: EventCode.ABS_MT_POSITION_Y, value: uy)
        }
        for slot in lift.sorted() where contacts[slot] != nil {
            try device.write(type: EventCode.EV_ABS, code: EventCode.ABS_MT_SLOT, value: slot)
            try device.write(type: EventCode.EV_ABS, code: EventCode.ABS_MT_TRACKING_ID, value: -1)
            contacts[slot] = nil
        }
        if wasTouching != !contacts.isEmpty {
            try device.write(type: EventCode.EV_KEY, code: EventCode.BTN_TOUCH, value: contacts.isEmpty ? 0 : 1)
        }
        // Single-touch emulation follows the lowest slot down, as kernel drivers do.
        if let first = contacts.keys.min(), let p = positions[first] {
            let (ux, uy) = units(p.x, p.y)
            try device.write(type: EventCode.EV_ABS, code: EventCode.ABS_X, value: ux)
            try device.write(type: EventCode.EV_ABS, code: EventCode.ABS_Y, value: uy)
        }
        try device.write(type: EventCode.EV_SYN, code: EventCode.SYN_REPORT, value: 0)
    }

    /// Screen px → device units: the inverse of `TouchTransform`'s `raw · (size − 1) / span`,
    /// and with a `calibration`, of its matrix too (rotation 0): the units that the matrix
    /// takes to the point.
    private func units(_ x: Double, _ y: Double) -> (Int32, Int32) {
        var u = x / Double(max(1, screenWidth - 1)), v = y / Double(max(1, screenHeight - 1))
        if let m = calibration {
            let det = m[0] * m[4] - m[1] * m[3]
            let (du, dv) = (u - m[2], v - m[5])
            (u, v) = ((m[4] * du - m[1] * dv) / det, (m[0] * dv - m[3] * du) / det)
        }
        func clamp(_ f: Double, _ maximum: Int32) -> Int32 {
            let raw = (f * Double(maximum)).rounded()
            return raw.isFinite ? Int32(min(max(raw, 0), Double(maximum))) : 0
        }
        return (clamp(u, Self.xMax), clamp(v, Self.yMax))
    }
}
