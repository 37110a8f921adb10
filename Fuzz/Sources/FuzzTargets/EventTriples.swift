import FlickCore
import FlickInput

/// The evdev target's byte format: a 24-byte device header, then 8 bytes per event. Every
/// byte string means something, so the fuzzer never wastes an input on a format error.
///
///     header  0  protocol: 0 slots (B), 1 protocol A with ids, 2 protocol A without, 3 single touch
///             1  mapping: bits 0–1 quarter turns, bit 2 flip x, bit 3 flip y, bits 4–5 calibration
///             2  slots advertised (ABS_MT_SLOT maximum + 1, so 0 advertises −1)
///             3  resolution, units/mm
///             4  x minimum, x maximum, y minimum, y maximum: Int32 little-endian each
///            20  output width, output height: UInt16 little-endian each
///     event   0  time step, 100 µs units, UInt16 little-endian
///             2  type: low 2 bits 0 EV_SYN, 1 EV_KEY, 2 EV_ABS, 3 the raw type in the high 6 bits
///             3  code: EV_SYN 0–3 as is, 0xFE device removed, 0xFF libevdev sync; EV_KEY 0x100 +
///                byte; EV_ABS byte & 0x3f; raw types the byte
///             4  value, Int32 little-endian
struct EventTriples {
    /// What the decoder is asked to do next.
    enum Step: Equatable {
        case event(InputEvent)
        case syncDropped(Instant)
        case removed(Instant)
    }

    static let headerSize = 24
    static let eventSize = 8
    /// Calibration matrices the mapping byte picks from: none, libinput's example of a swap,
    /// a scaled and offset one, and a mirror.
    static let calibrations: [[Double]?] = [nil, [0, 1, 0, 1, 0, 0], [1.2, 0, -0.1, 0, 0.9, 0.05], [-1, 0, 1, 0, 1, 0]]

    var description: DeviceDescription
    var mapping: TouchMapping
    var outputSize: Size
    var steps: [Step] = []

    /// Reads the bytes; nil when they are too short for a header.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.headerSize else { return nil }
        func int32(_ at: Int) -> Int32 { Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: Int32.self)) }
        func uint16(_ at: Int) -> UInt16 { UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self)) }
        let resolution = Int32(bytes[3])
        var d = DeviceDescription(name: "fuzz")
        d.properties = [EventCode.INPUT_PROP_DIRECT]
        d.enable(EventCode.EV_KEY, EventCode.BTN_TOUCH)
        let x = AbsAxis(minimum: int32(4), maximum: int32(8), resolution: resolution)
        let y = AbsAxis(minimum: int32(12), maximum: int32(16), resolution: resolution)
        d.setAxis(EventCode.ABS_X, x)
        d.setAxis(EventCode.ABS_Y, y)
        switch bytes[0] % 4 {
        case 0:
            d.setAxis(EventCode.ABS_MT_SLOT, AbsAxis(minimum: 0, maximum: Int32(bytes[2]) - 1))
            fallthrough
        case 1:
            d.setAxis(EventCode.ABS_MT_TRACKING_ID, AbsAxis(minimum: 0, maximum: 65535))
            fallthrough
        case 2:
            d.setAxis(EventCode.ABS_MT_POSITION_X, x)
            d.setAxis(EventCode.ABS_MT_POSITION_Y, y)
        default:
            break
        }
        description = d
        let m = bytes[1]
        mapping = TouchMapping(rotation: Int(m & 3) * 90, flipX: m & 4 != 0, flipY: m & 8 != 0,
                               calibration: Self.calibrations[Int(m >> 4) & 3])
        outputSize = Size(width: Double(uint16(20)), height: Double(uint16(22)))
        var time = Instant.seconds(1000)
        var at = Self.headerSize
        while at + Self.eventSize <= bytes.count {
            time = time + .microseconds(100 * Int64(uint16(at)))
            let (kind, code, value) = (bytes[at + 2], bytes[at + 3], int32(at + 4))
            at += Self.eventSize
            switch kind & 3 {
            case 0:
                switch code {
                case 0xFF: steps.append(.syncDropped(time))
                case 0xFE: steps.append(.removed(time))
                default: steps.append(.event(InputEvent(time: time, type: EventCode.EV_SYN, code: UInt16(code & 3), value: value)))
                }
            case 1: steps.append(.event(InputEvent(time: time, type: EventCode.EV_KEY, code: 0x100 + UInt16(code), value: value)))
            case 2: steps.append(.event(InputEvent(time: time, type: EventCode.EV_ABS, code: UInt16(code & 0x3f), value: value)))
            default: steps.append(.event(InputEvent(time: time, type: UInt16(kind >> 2), code: UInt16(code), value: value)))
            }
        }
    }

    /// Encodes a device and its events (seeds from the project's recordings). Events the format
    /// cannot express (codes beyond its ranges) are left out.
    static func encode(protocolByte: UInt8, mapping: UInt8 = 0, slots: UInt8 = 10, resolution: UInt8 = 0,
                       x: ClosedRange<Int32>, y: ClosedRange<Int32>, output: (UInt16, UInt16),
                       events: [InputEvent]) -> [UInt8] {
        var out: [UInt8] = [protocolByte, mapping, slots, resolution]
        func append<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        append(x.lowerBound); append(x.upperBound); append(y.lowerBound); append(y.upperBound)
        append(output.0); append(output.1)
        var last = events.first?.time ?? .zero
        for e in events {
            let step = UInt16(clamping: (e.time - last).nanoseconds / 100_000)
            last = e.time
            let kind: UInt8, code: UInt8
            switch e.type {
            case EventCode.EV_SYN where e.code <= 3: (kind, code) = (0, UInt8(e.code))
            case EventCode.EV_KEY where (0x100...0x1ff).contains(e.code): (kind, code) = (1, UInt8(e.code - 0x100))
            case EventCode.EV_ABS where e.code <= 0x3f: (kind, code) = (2, UInt8(e.code))
            default: continue
            }
            append(step)
            out += [kind, code]
            append(e.value)
        }
        return out
    }
}
