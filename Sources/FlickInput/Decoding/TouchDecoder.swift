import FlickCore

/// Turns one device's kernel events into `TouchFrame`s: one per `SYN_REPORT`, stamped with its
/// kernel time, positions in screen pixels.
///
/// The same decoder serves live devices and recordings. Its machine is `### touch` in
/// docs/input.md (states `Phase`, events `Event`, one dispatcher `handle(_:at:)`); the table is
/// the spec, and `TouchTableTests` holds the two together and takes every edge.
///
/// Per protocol:
/// - B: per-slot state persists as in the kernel (a new contact in a slot keeps the slot's
///   last position until it moves); `ABS_MT_TRACKING_ID` −1 ends a contact, a new id in a busy
///   slot ends the old contact and begins a new one; `MT_TOOL_PALM` marks a palm.
/// - A: each `SYN_MT_REPORT` closes one contact; contacts are matched to the previous frame's
///   by tracking id when the device sends ids, else by nearest position.
/// - single touch: `BTN_TOUCH` with `ABS_X`/`ABS_Y`.
///
/// A contact that begins and ends within one frame is in both `began` and `ended` (no finger
/// does that: `PhantomTouchFilter` drops it). A contact with no position ever reported is
/// dropped and counted (`positionless`).
public struct TouchDecoder: Sendable {
    /// The device.
    public let description: DeviceDescription
    /// Device units to screen pixels.
    public var transform: TouchTransform
    /// How the device reports contacts.
    public let touchProtocol: TouchProtocol

    private let idBase: Int
    private var serial = 0
    private var phase = Phase.collecting
    private var diagnostics: [String] = []
    /// Touches dropped for having no position (counted, not said one by one: a faulty panel
    /// sends them all day; `PhantomTouchLog` says them).
    public private(set) var positionless = 0
    /// Whether the machine's steps are kept for the trace (`takeTransitions`).
    public var tracing = false
    private var transitions: [Transition] = []

    /// Where the stream stands.
    enum Phase: String, Sendable {
        /// Events build the next frame.
        case collecting
        /// After a raw `SYN_DROPPED`: events up to the next `SYN_REPORT` are garbage.
        case discarding
        /// The next frame reconciles with the device's true state: contacts it lacks were lost.
        case resyncing
    }

    /// The machine's alphabet: the stream's own markers, not the data between them.
    enum Event: String, Sendable {
        /// `SYN_REPORT`: the end of a frame.
        case report
        /// `SYN_DROPPED` in the raw stream (a recording, or a reader without libevdev's sync).
        case dropped
        /// libevdev reported `SYN_DROPPED` and replays the device's state next.
        case syncDropped
        /// The device is gone, or the recording ended.
        case removed
    }

    // The frame being assembled.
    private var began: [ContactID] = []
    private var ended: [Contact] = []
    /// What the last emitted frame showed, by id.
    private var down: [ContactID: Contact] = [:]

    // Protocol B.
    private struct Slot: Sendable {
        var trackingID: Int32 = -1
        var contact: ContactID?
        var x: Int32?
        var y: Int32?
        var tool = ToolType.finger
        var pressure: Int32?
        var touchMajor: Int32?
    }
    private var slots: [Slot]
    private var slot = 0

    // Protocol A.
    private struct Report: Sendable {
        var x: Int32?
        var y: Int32?
        var trackingID: Int32?
        var tool = ToolType.finger
        var pressure: Int32?
        var touchMajor: Int32?
        var isEmpty: Bool { x == nil && y == nil && trackingID == nil }
    }
    private struct Tracked: Sendable {
        var id: ContactID
        var trackingID: Int32?
        var x: Int32
        var y: Int32
        var tool: ToolType
        var pressure: Int32?
        var touchMajor: Int32?
    }
    private var reports: [Report] = []
    private var pending = Report()
    private var tracked: [Tracked] = []

    // Single touch.
    private var touching = false
    private var single: Tracked?
    private var singleX: Int32?
    private var singleY: Int32?
    private var singlePressure: Int32?

    /// The most slots followed; beyond it a slot index is ignored with a diagnostic.
    static let slotLimit = 64

    /// Creates a decoder.
    /// - Parameters:
    ///   - description: the device.
    ///   - transform: device units to screen pixels.
    ///   - idBase: keeps contact ids unique when several devices feed one view.
    public init(description: DeviceDescription, transform: TouchTransform, idBase: Int = 0) {
        self.description = description
        self.transform = transform
        self.touchProtocol = description.touchProtocol
        self.idBase = idBase << 32
        let count = Int(description.absAxes[EventCode.ABS_MT_SLOT]?.maximum ?? 0) + 1
        slots = Array(repeating: Slot(), count: min(Self.slotLimit, max(1, count)))
    }

    /// Problems met since the last call (a slot out of range).
    public mutating func takeDiagnostics() -> [String] {
        defer { diagnostics.removeAll() }
        return diagnostics
    }

    /// The machine's steps since the last call (only while `tracing`).
    public mutating func takeTransitions() -> [Transition] {
        defer { transitions.removeAll() }
        return transitions
    }

    /// Whether any contact is down (as of the last frame).
    public var hasContacts: Bool { !down.isEmpty }

    /// Feeds one event; returns a frame at `SYN_REPORT`.
    public mutating func feed(_ e: InputEvent) -> TouchFrame? {
        if e.type == EventCode.EV_SYN {
            switch e.code {
            case EventCode.SYN_DROPPED:
                return handle(.dropped, at: e.time)
            case EventCode.SYN_REPORT:
                return handle(.report, at: e.time)
            case EventCode.SYN_MT_REPORT:
                if phase != .discarding && touchProtocol == .multiTouchA { closeReport() }
                return nil
            default:
                return nil
            }
        }
        guard phase != .discarding else { return nil }
        switch touchProtocol {
        case .slots: feedSlots(e)
        case .multiTouchA: feedProtocolA(e)
        case .singleTouch: feedSingle(e)
        }
        return nil
    }

    /// libevdev reported `SYN_DROPPED` at `t` and is about to replay the device's state (SYNC
    /// mode): those events are fed normally, and the frame they end reconciles.
    public mutating func syncDropped(at t: Instant) {
        _ = handle(.syncDropped, at: t)
    }

    /// The device is gone (`ENODEV`) or the recording ended: a last frame ends every contact
    /// as cancelled, so no touch is ever stuck. Nil when nothing was down.
    public mutating func deviceRemoved(at t: Instant) -> TouchFrame? {
        handle(.removed, at: t)
    }

    // MARK: The machine

    /// The one dispatcher: every (phase, event) pair written out, no `default`.
    private mutating func handle(_ event: Event, at t: Instant) -> TouchFrame? {
        let before = phase
        defer {
            if tracing && phase != before {
                transitions.append(Transition(.touch, at: t, from: before.rawValue, on: event.rawValue, to: phase.rawValue))
            }
        }
        switch (phase, event) {
        case (.collecting, .report):
            return emit(at: t, cancellingLost: false)
        case (.discarding, .report):
            // The garbage ends here; the device's true state comes in the next frame.
            phase = .resyncing
            return nil
        case (.resyncing, .report):
            phase = .collecting
            return emit(at: t, cancellingLost: true)
        case (.collecting, .dropped), (.discarding, .dropped), (.resyncing, .dropped):
            phase = .discarding
            return nil
        case (.collecting, .syncDropped), (.discarding, .syncDropped), (.resyncing, .syncDropped):
            phase = .resyncing
            return nil
        case (.collecting, .removed), (.discarding, .removed), (.resyncing, .removed):
            phase = .collecting
            return removeEverything(at: t)
        }
    }

    /// Forgets every contact and returns a frame cancelling those that were down, if any.
    private mutating func removeEverything(at t: Instant) -> TouchFrame? {
        let gone = down.values.sorted { $0.id < $1.id }
        down.removeAll()
        began.removeAll()
        ended.removeAll()
        for i in slots.indices { slots[i].contact = nil; slots[i].trackingID = -1 }
        tracked.removeAll()
        reports.removeAll()
        pending = Report()
        single = nil
        touching = false
        guard !gone.isEmpty else { return nil }
        return TouchFrame(time: t, contacts: [], ended: gone, cancelled: gone.map(\.id))
    }

    /// What the device last said of a contact that is down, in its own units: for
    /// `flickd events`, which shows both sides of the mapping. Nil once it is up.
    public func raw(of id: ContactID) -> RawContact? {
        guard down[id] != nil else { return nil }
        switch touchProtocol {
        case .slots:
            guard let i = slots.firstIndex(where: { $0.contact == id }), let x = slots[i].x, let y = slots[i].y else { return nil }
            return RawContact(x: x, y: y, slot: i, pressure: slots[i].pressure, touchMajor: slots[i].touchMajor)
        case .multiTouchA:
            guard let t = tracked.first(where: { $0.id == id }) else { return nil }
            return RawContact(x: t.x, y: t.y, slot: nil, pressure: t.pressure, touchMajor: t.touchMajor)
        case .singleTouch:
            guard let s = single, s.id == id else { return nil }
            return RawContact(x: s.x, y: s.y, slot: nil, pressure: singlePressure, touchMajor: nil)
        }
    }

    /// The raw side of each contact down after `frame` (see `raw(of:)`).
    public func raw(for frame: TouchFrame) -> [ContactID: RawContact] {
        var out: [ContactID: RawContact] = [:]
        for c in frame.contacts { out[c.id] = raw(of: c.id) }
        return out
    }

    // MARK: Protocol B

    private mutating func feedSlots(_ e: InputEvent) {
        guard e.type == EventCode.EV_ABS else { return }
        switch e.code {
        case EventCode.ABS_MT_SLOT:
            slot = Int(e.value)
            if !slots.indices.contains(slot) {
                if slot >= 0 && slot < Self.slotLimit {
                    slots += Array(repeating: Slot(), count: slot + 1 - slots.count)
                } else {
                    diagnostics.append("slot \(e.value) out of range 0…\(Self.slotLimit - 1): its events are ignored")
                }
            }
        case EventCode.ABS_MT_TRACKING_ID where slots.indices.contains(slot):
            if e.value < 0 {
                endSlot(slot)
            } else if slots[slot].contact == nil || slots[slot].trackingID != e.value {
                endSlot(slot)
                slots[slot].contact = newContact()
                slots[slot].tool = .finger
                began.append(slots[slot].contact!)
            }
            slots[slot].trackingID = e.value
        case EventCode.ABS_MT_POSITION_X where slots.indices.contains(slot): slots[slot].x = e.value
        case EventCode.ABS_MT_POSITION_Y where slots.indices.contains(slot): slots[slot].y = e.value
        case EventCode.ABS_MT_TOOL_TYPE where slots.indices.contains(slot): slots[slot].tool = Self.tool(e.value)
        case EventCode.ABS_MT_PRESSURE where slots.indices.contains(slot): slots[slot].pressure = e.value
        case EventCode.ABS_MT_TOUCH_MAJOR where slots.indices.contains(slot): slots[slot].touchMajor = e.value
        default: break
        }
    }

    private mutating func endSlot(_ i: Int) {
        guard let id = slots[i].contact else { return }
        slots[i].contact = nil
        end(id, x: slots[i].x, y: slots[i].y, tool: slots[i].tool)
    }

    // MARK: Protocol A

    private mutating func feedProtocolA(_ e: InputEvent) {
        guard e.type == EventCode.EV_ABS else { return }
        switch e.code {
        case EventCode.ABS_MT_POSITION_X: pending.x = e.value
        case EventCode.ABS_MT_POSITION_Y: pending.y = e.value
        case EventCode.ABS_MT_TRACKING_ID: pending.trackingID = e.value
        case EventCode.ABS_MT_TOOL_TYPE: pending.tool = Self.tool(e.value)
        case EventCode.ABS_MT_PRESSURE: pending.pressure = e.value
        case EventCode.ABS_MT_TOUCH_MAJOR: pending.touchMajor = e.value
        default: break
        }
    }

    private mutating func closeReport() {
        // An empty SYN_MT_REPORT means "no contacts"; a report with tracking id −1 too.
        if !pending.isEmpty && (pending.trackingID ?? 0) >= 0 { reports.append(pending) }
        pending = Report()
    }

    /// Matches this frame's reports to the previous frame's contacts.
    private mutating func reconcileProtocolA() {
        if !pending.isEmpty { closeReport() }   // drivers that omit the last SYN_MT_REPORT
        let current = reports
        reports.removeAll(keepingCapacity: true)
        var matchOf = [Int?](repeating: nil, count: current.count)   // report → index in tracked
        let byID = !current.isEmpty && current.allSatisfy { $0.trackingID != nil }
        var usedOld = Set<Int>()
        if byID {
            // Each contact matches one report at most: a device repeating an id within a frame
            // used to yield one contact twice (found by fuzzing, FuzzRegressionTests).
            for (r, report) in current.enumerated() {
                matchOf[r] = tracked.indices.first { tracked[$0].trackingID == report.trackingID && !usedOld.contains($0) }
                if let o = matchOf[r] { usedOld.insert(o) }
            }
        } else {
            // Greedy nearest pairs: fine for the ten contacts a panel reports.
            var pairs: [(distance: Double, report: Int, old: Int)] = []
            for (r, report) in current.enumerated() {
                guard let x = report.x, let y = report.y else { continue }
                for (o, old) in tracked.enumerated() {
                    let dx = Double(x) - Double(old.x), dy = Double(y) - Double(old.y)
                    pairs.append((dx * dx + dy * dy, r, o))
                }
            }
            pairs.sort { $0.distance < $1.distance }
            for pair in pairs where matchOf[pair.report] == nil && !usedOld.contains(pair.old) {
                matchOf[pair.report] = pair.old
                usedOld.insert(pair.old)
            }
        }
        var next: [Tracked] = []
        var kept = Set<Int>()
        for (r, report) in current.enumerated() {
            if let o = matchOf[r] {
                kept.insert(o)
                var t = tracked[o]
                t.x = report.x ?? t.x
                t.y = report.y ?? t.y
                t.tool = report.tool
                t.pressure = report.pressure ?? t.pressure
                t.touchMajor = report.touchMajor ?? t.touchMajor
                next.append(t)
            } else if let x = report.x, let y = report.y {
                let id = newContact()
                began.append(id)
                next.append(Tracked(id: id, trackingID: report.trackingID, x: x, y: y, tool: report.tool,
                                    pressure: report.pressure, touchMajor: report.touchMajor))
            } else {
                positionless &+= 1
            }
        }
        for (o, old) in tracked.enumerated() where !kept.contains(o) {
            end(old.id, x: old.x, y: old.y, tool: old.tool)
        }
        tracked = next
    }

    // MARK: Single touch

    private mutating func feedSingle(_ e: InputEvent) {
        switch (e.type, e.code) {
        case (EventCode.EV_KEY, EventCode.BTN_TOUCH):
            if e.value != 0 && !touching {
                touching = true
                let id = newContact()
                began.append(id)
                single = Tracked(id: id, trackingID: nil, x: singleX ?? 0, y: singleY ?? 0, tool: .finger)
            } else if e.value == 0 && touching {
                touching = false
                if let s = single { end(s.id, x: singleX, y: singleY, tool: .finger) }
                single = nil
            }
        case (EventCode.EV_ABS, EventCode.ABS_X): singleX = e.value
        case (EventCode.EV_ABS, EventCode.ABS_Y): singleY = e.value
        case (EventCode.EV_ABS, EventCode.ABS_PRESSURE): singlePressure = e.value
        default: break
        }
    }

    // MARK: Frames

    private mutating func newContact() -> ContactID {
        serial &+= 1
        return ContactID(idBase | (serial & 0xFFFF_FFFF))
    }

    /// Records that `id` lifted at the given raw position (or its last shown one).
    private mutating func end(_ id: ContactID, x: Int32?, y: Int32?, tool: ToolType) {
        if let shown = down[id] {
            let position = x.flatMap { x in y.map { transform.apply(x: x, y: $0) } } ?? shown.position
            ended.append(Contact(id: id, position: position, tool: tool))
        } else if let x, let y {
            // Began in this same frame: still a touch (and a tap), down and up together.
            ended.append(Contact(id: id, position: transform.apply(x: x, y: y), tool: tool))
        } else {
            began.removeAll { $0 == id }
            positionless &+= 1
        }
    }

    /// The frame at a `SYN_REPORT`; after a resync (`cancellingLost`), contacts that vanished
    /// while events were lost are cancelled, not lifted.
    private mutating func emit(at t: Instant, cancellingLost: Bool) -> TouchFrame? {
        var contacts: [Contact] = []
        switch touchProtocol {
        case .slots:
            for i in slots.indices {
                guard let id = slots[i].contact else { continue }
                guard let x = slots[i].x, let y = slots[i].y else {
                    slots[i].contact = nil
                    began.removeAll { $0 == id }
                    positionless &+= 1
                    continue
                }
                contacts.append(Contact(id: id, position: transform.apply(x: x, y: y), tool: slots[i].tool))
            }
        case .multiTouchA:
            reconcileProtocolA()
            contacts = tracked.map { Contact(id: $0.id, position: transform.apply(x: $0.x, y: $0.y), tool: $0.tool) }
        case .singleTouch:
            if var s = single {
                if let x = singleX, let y = singleY {
                    s.x = x
                    s.y = y
                    single = s
                    contacts.append(Contact(id: s.id, position: transform.apply(x: x, y: y)))
                } else {
                    single = nil
                    touching = false
                    began.removeAll { $0 == s.id }
                    positionless &+= 1
                }
            }
        }
        contacts.sort { $0.id < $1.id }
        let cancelled = cancellingLost ? ended.map(\.id) : []
        defer {
            began.removeAll(keepingCapacity: true)
            ended.removeAll(keepingCapacity: true)
        }
        let changed = !began.isEmpty || !ended.isEmpty || contacts.count != down.count
            || contacts.contains { down[$0.id] != $0 }
        guard changed || !contacts.isEmpty else { return nil }
        down.removeAll(keepingCapacity: true)
        for c in contacts { down[c.id] = c }
        return TouchFrame(time: t, contacts: contacts, began: began, ended: ended, cancelled: cancelled)
    }

    private static func tool(_ value: Int32) -> ToolType {
        switch value {
        case EventCode.MT_TOOL_PALM: .palm
        case EventCode.MT_TOOL_PEN: .pen
        default: .finger
        }
    }
}

/// One contact as the device reports it, before the mapping to screen pixels.
public struct RawContact: Hashable, Sendable {
    /// Position in device units.
    public var x: Int32, y: Int32
    /// The protocol B slot, if the device has slots.
    public var slot: Int?
    /// `ABS_MT_PRESSURE` (or `ABS_PRESSURE` for a single-touch device), if it was reported.
    public var pressure: Int32?
    /// `ABS_MT_TOUCH_MAJOR`, if it was reported.
    public var touchMajor: Int32?
}
