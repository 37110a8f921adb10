import FlickCore

/// Turns a Wayland seat's events (`WaylandSeatEvent`) into what the pipeline takes
/// (`WaylandInput`): pure, no connection and no clock, so recorded sequences drive it in tests
/// exactly as the live seat's listeners do.
///
/// - Touches: down, motion and up gather until `wl_touch.frame` and make one `TouchFrame` in the
///   panel's pixels; `cancel` ends every touch cancelled (the recogniser's path for a lost
///   device).
/// - Times: `zwp_input_timestamps_v1`'s nanoseconds (kept to the microsecond, as evdev's) where
///   the compositor offers them, else the event's milliseconds; a note says once per device
///   that the resampler then gets milliseconds.
/// - The pointer (`WaylandInputTranslator+Pointer`): the left button held is one more finger,
///   whose id no touch can have; wheels, touchpad scrolls and pinches are `PointerInput`s.
public struct WaylandInputTranslator: Sendable {
    /// The pointer's finger: outside every `wl_touch` id (an `Int32`).
    public static let pointerContact = ContactID(Int(Int32.max) + 1)

    /// Surface coordinates to the panel's pixels.
    public var mapping: WaylandSurfaceMapping

    /// The first time made is moved here (a recording replayed from its start); nil keeps the
    /// compositor's clock (live: `CLOCK_MONOTONIC`, the loop's).
    private let rebase: Instant?
    private var shift: Duration?
    /// The ms clock unwrapped: it wraps every 49.7 days.
    private var msHigh: Int64 = 0
    private var lastMs: UInt32?
    /// Each device's timestamp for its next timed event.
    private var pending: [WaylandSeatEvent.Device: UInt64] = [:]
    private var precise: Set<WaylandSeatEvent.Device> = []
    private var notedMilliseconds: Set<WaylandSeatEvent.Device> = []
    /// The latest time made: untimed events (cancel, leave) happen then.
    private(set) var latest: Instant?

    /// Touches down, in the panel's pixels.
    private var touches: [Int32: Point] = [:]
    /// The touch frame being gathered.
    private var began: [Int32] = []
    private var ended: [Int32: Point] = [:]
    private var touchTime: Instant?
    /// The fingers an event of the group being gathered changed.
    private var touched: Set<Int32> = []
    /// The pointer's side (`+Pointer`).
    var pointer = PointerState()

    private var outputs: [WaylandInput] = []
    private var notes: [String] = []

    /// Creates a translator.
    /// - Parameters:
    ///   - mapping: surface coordinates to the panel's pixels.
    ///   - rebase: where the first time made is moved to (a replay), or nil for the compositor's.
    public init(mapping: WaylandSurfaceMapping, rebase: Instant? = nil) {
        self.mapping = mapping
        self.rebase = rebase
    }

    /// Takes one event; what it completes is in `takeOutputs()`.
    public mutating func handle(_ event: WaylandSeatEvent) {
        switch event {
        case let .touchDown(ms, id, x, y):
            let t = time(ms, .touch)
            closeGroup(touching: id)
            touchTime = t
            touches[id] = mapping.map(x, y)
            if ended.removeValue(forKey: id) == nil, !began.contains(id) { began.append(id) }
        case let .touchMotion(ms, id, x, y):
            let t = time(ms, .touch)
            guard touches[id] != nil else { return }
            closeGroup(touching: id)
            touchTime = t
            touches[id] = mapping.map(x, y)
        case let .touchUp(ms, id):
            let t = time(ms, .touch)
            // A down and its lift in one frame stay one frame: a touch of a few microseconds.
            if began.contains(id) { touched.insert(id) } else { closeGroup(touching: id) }
            guard let p = touches.removeValue(forKey: id) else { return }
            touchTime = t
            ended[id] = p
        case .touchFrame:
            flushTouches(cancelled: false)
        case .touchCancel:
            touchesLost()
        case .touchShape:
            // A contact's size has no place in a `TouchFrame`: the recogniser goes by position.
            break
        case let .timestamp(device, ns):
            pending[device] = ns
            precise.insert(device)
        case .pointerEnter, .pointerLeave, .pointerMotion, .pointerButton, .pointerAxis, .pointerAxisSource,
             .pointerAxisStop, .pointerAxisDiscrete, .pointerAxisValue120, .pointerFrame,
             .pinchBegin, .pinchUpdate, .pinchEnd:
            handlePointer(event)
        }
    }

    /// Ends the touch group gathered so far, as `wl_touch.frame` would: the seat calls it when
    /// it has read everything the compositor sent, for compositors that close their frames late
    /// or never (under cage 0.1.4 on wlroots 0.15 a whole flick reached flickd as one frame of a
    /// down and a lift).
    public mutating func endTouchGroup() { flushTouches(cancelled: false) }

    /// Every touch ends cancelled: `wl_touch.cancel`, or the seat lost its touchscreen.
    public mutating func touchesLost() {
        for (id, p) in touches { ended[id] = p }
        touches.removeAll()
        flushTouches(cancelled: true)
    }

    /// What the events so far completed, oldest first.
    public mutating func takeOutputs() -> [WaylandInput] {
        defer { outputs.removeAll(keepingCapacity: true) }
        return outputs
    }

    /// What is worth saying once in the journal (milliseconds only), oldest first.
    public mutating func takeNotes() -> [String] {
        defer { notes.removeAll() }
        return notes
    }

    // MARK: Pieces the pointer's side shares

    mutating func emit(_ input: WaylandInput) { outputs.append(input) }

    /// The contacts down now: the touches by id, then the pointer's finger.
    var contacts: [Contact] {
        var all = touches.keys.sorted().compactMap { id in touches[id].map { Contact(id: ContactID(Int(id)), position: $0) } }
        if pointer.held, let p = pointer.position { all.append(Contact(id: Self.pointerContact, position: p)) }
        return all
    }

    /// The time of a timed event of `device`: its timestamp if one came, else its milliseconds.
    mutating func time(_ ms: UInt32, _ device: WaylandSeatEvent.Device) -> Instant {
        if let last = lastMs, ms < last, last - ms > UInt32.max / 2 { msHigh &+= 1 << 32 }
        lastMs = ms
        let raw: Instant
        if let ns = pending.removeValue(forKey: device) {
            raw = Instant(nanoseconds: Int64(clamping: ns / 1000) &* 1000)
        } else {
            raw = Instant(nanoseconds: (msHigh + Int64(ms)) &* 1_000_000)
            if !precise.contains(device), notedMilliseconds.insert(device).inserted {
                notes.append("wl_\(device.rawValue): times in milliseconds (the compositor offers no zwp_input_timestamps_v1), "
                             + "so the resampler gets millisecond report times")
            }
        }
        if shift == nil { shift = rebase.map { $0 - raw } ?? .zero }
        let t = raw + (shift ?? .zero)
        latest = max(latest ?? t, t)
        return t
    }

    /// A second event for a finger already changed in the group being gathered belongs to a
    /// later frame the compositor did not close: the group so far is one frame.
    private mutating func closeGroup(touching id: Int32) {
        if touched.contains(id) { flushTouches(cancelled: false) }
        touched.insert(id)
    }

    /// The touch frame gathered so far, if anything changed.
    private mutating func flushTouches(cancelled: Bool) {
        guard !began.isEmpty || !ended.isEmpty || touchTime != nil else { return }
        let t = touchTime ?? latest ?? rebase ?? .zero
        let ends = ended.keys.sorted().compactMap { id in ended[id].map { Contact(id: ContactID(Int(id)), position: $0) } }
        emit(.touch(TouchFrame(time: t, contacts: contacts, began: began.map { ContactID(Int($0)) }, ended: ends,
                               cancelled: cancelled ? ends.map(\.id) : [])))
        began.removeAll()
        ended.removeAll()
        touched.removeAll()
        touchTime = nil
    }
}
