import FlickCore

/// Writes evemu-record text: the project's own recordings (test fixtures, the demo) come from
/// here, never from copies of other people's files.
public struct EvemuWriter: Sendable {
    /// The device written in the header.
    public var description: DeviceDescription
    private var lines: [String] = []

    /// Starts a recording of `description`.
    public init(description: DeviceDescription) {
        self.description = description
    }

    /// Appends one event.
    public mutating func event(_ t: Instant, _ type: UInt16, _ code: UInt16, _ value: Int32) {
        let micro = (t.nanoseconds / 1000) % 1_000_000
        let seconds = t.nanoseconds / 1_000_000_000
        let fraction = String(micro)
        lines.append("E: \(seconds).\(String(repeating: "0", count: 6 - fraction.count))\(fraction) "
                     + "\(hex4(type)) \(hex4(code)) \(value)")
    }

    /// Appends an `EV_ABS` event.
    public mutating func abs(_ t: Instant, _ code: UInt16, _ value: Int32) { event(t, EventCode.EV_ABS, code, value) }

    /// Appends a `SYN_REPORT`, closing a frame.
    public mutating func report(_ t: Instant) { event(t, EventCode.EV_SYN, EventCode.SYN_REPORT, 0) }

    /// Appends a raw line as is (for malformed-file tests).
    public mutating func raw(_ line: String) { lines.append(line) }

    /// The events appended since the last call, as text, and forgets them: a recording written
    /// as it happens (`flickd record`) keeps nothing in memory.
    public mutating func takeEventsText() -> String {
        defer { lines.removeAll(keepingCapacity: true) }
        return eventsText
    }

    /// The header and the events: the one-file layout.
    public var text: String { header + eventsText }

    /// The events only: the `NAME.WHAT.events` layout.
    public var eventsText: String { lines.map { $0 + "\n" }.joined() }

    /// The `N: I: P: B: A:` header: the `NAME.desc` layout.
    public var header: String {
        let d = description
        var out = "# EVEMU 1.3\n# written by flickd's EvemuWriter\n"
        out += "N: \(d.name)\nI: \(hex4(d.bus)) \(hex4(d.vendor)) \(hex4(d.product)) \(hex4(d.version))\n"
        out += "P: " + bytes(of: d.properties, count: 8) + "\n"
        let types = Set(d.codes.keys).union(d.absAxes.isEmpty ? [] : [EventCode.EV_ABS]).union([EventCode.EV_SYN])
        out += "B: 00 " + bytes(of: types, count: 8) + "\n"
        for type in types.sorted() where type != EventCode.EV_SYN {
            var codes = d.codes[type] ?? []
            if type == EventCode.EV_ABS { codes.formUnion(d.absAxes.keys) }
            let count = type == EventCode.EV_KEY ? 96 : 8
            let mask = bytes(of: codes, count: count).split(separator: " ")
            // evemu writes masks 8 bytes a line, continuing the type's mask on the next line.
            for chunk in stride(from: 0, to: mask.count, by: 8) {
                out += "B: \(String(format2: type)) " + mask[chunk..<min(mask.count, chunk + 8)].joined(separator: " ") + "\n"
            }
        }
        for (code, a) in d.absAxes.sorted(by: { $0.key < $1.key }) {
            out += "A: \(String(format2: code)) \(a.minimum) \(a.maximum) \(a.fuzz) \(a.flat) \(a.resolution)\n"
        }
        return out
    }

    private func hex4(_ v: UInt16) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    private func bytes(of bits: Set<UInt16>, count: Int) -> String {
        var mask = [UInt8](repeating: 0, count: count)
        for bit in bits where Int(bit) / 8 < count { mask[Int(bit) / 8] |= 1 << (bit % 8) }
        return mask.map { String(format2: UInt16($0)) }.joined(separator: " ")
    }
}

extension String {
    /// Two lower-case hex digits.
    init(format2 value: UInt16) {
        let s = String(value, radix: 16)
        self = s.count < 2 ? "0" + s : s
    }
}

extension DeviceDescription {
    /// A protocol B touchscreen with `INPUT_PROP_DIRECT`, axes 0…width−1 × 0…height−1.
    public static func slotTouchscreen(name: String = "flickd test touchscreen (B)", width: Int32, height: Int32,
                                       slots: Int32 = 10, resolution: Int32 = 0) -> DeviceDescription {
        var d = DeviceDescription(name: name)
        d.properties = [EventCode.INPUT_PROP_DIRECT]
        d.enable(EventCode.EV_KEY, EventCode.BTN_TOUCH)
        d.setAxis(EventCode.ABS_X, AbsAxis(minimum: 0, maximum: width - 1, resolution: resolution))
        d.setAxis(EventCode.ABS_Y, AbsAxis(minimum: 0, maximum: height - 1, resolution: resolution))
        d.setAxis(EventCode.ABS_MT_SLOT, AbsAxis(minimum: 0, maximum: slots - 1))
        d.setAxis(EventCode.ABS_MT_POSITION_X, AbsAxis(minimum: 0, maximum: width - 1, resolution: resolution))
        d.setAxis(EventCode.ABS_MT_POSITION_Y, AbsAxis(minimum: 0, maximum: height - 1, resolution: resolution))
        d.setAxis(EventCode.ABS_MT_TOOL_TYPE, AbsAxis(minimum: 0, maximum: 2))
        d.setAxis(EventCode.ABS_MT_TRACKING_ID, AbsAxis(minimum: 0, maximum: 65535))
        return d
    }

    /// A protocol A touchscreen (no slots), with or without tracking ids.
    public static func protocolATouchscreen(name: String = "flickd test touchscreen (A)", width: Int32, height: Int32,
                                            trackingIDs: Bool) -> DeviceDescription {
        var d = DeviceDescription(name: name)
        d.enable(EventCode.EV_KEY, EventCode.BTN_TOUCH)
        d.setAxis(EventCode.ABS_X, AbsAxis(minimum: 0, maximum: width - 1))
        d.setAxis(EventCode.ABS_Y, AbsAxis(minimum: 0, maximum: height - 1))
        d.setAxis(EventCode.ABS_MT_POSITION_X, AbsAxis(minimum: 0, maximum: width - 1))
        d.setAxis(EventCode.ABS_MT_POSITION_Y, AbsAxis(minimum: 0, maximum: height - 1))
        if trackingIDs { d.absAxes[EventCode.ABS_MT_TRACKING_ID] = AbsAxis(minimum: 0, maximum: 65535) }
        return d
    }

    /// A single-touch touchscreen: `BTN_TOUCH`, `ABS_X`, `ABS_Y`.
    public static func singleTouchscreen(name: String = "flickd test touchscreen (single)", width: Int32,
                                         height: Int32) -> DeviceDescription {
        var d = DeviceDescription(name: name)
        d.enable(EventCode.EV_KEY, EventCode.BTN_TOUCH)
        d.setAxis(EventCode.ABS_X, AbsAxis(minimum: 0, maximum: width - 1))
        d.setAxis(EventCode.ABS_Y, AbsAxis(minimum: 0, maximum: height - 1))
        return d
    }
}
