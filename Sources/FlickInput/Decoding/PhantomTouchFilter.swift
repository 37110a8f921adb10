import FlickCore

/// Drops touches no finger makes, before gesture recognition: a touch that begins and ends in
/// one report, and one that ends sooner than `minimumDuration` after it began. Panels in the
/// field send them (the Raspberry Pi Touch Display 2 a zero-length touch at one point every
/// 12.9 s, raspberrypi/linux #7638); on an unattended kiosk each would be a click, and would
/// keep attract mode and screen blanking from ever starting.
///
/// A touch cannot be judged on its first frame when it might still end too soon: from the
/// frame it begins in, frames are held back until every touch begun is older than
/// `minimumDuration` (by a later frame's time, or by `release(upTo:)` at `deadline`), then
/// handed on unchanged, with their own times; a touch found too short is taken out of every
/// frame it was in.
public struct PhantomTouchFilter: Sendable {
    /// `input.minimum_touch_ms`'s default, 0.02 ms: below the shortest real tap in the recorded
    /// panels (an eGalax eMPIA tap of 51 µs over three reports), so what is held back is held for
    /// microseconds. ("A few ms" would drop that tap.)
    public static let defaultMinimumDuration = Duration.nanoseconds(20_000)

    /// How long a touch must last to be a finger's; 0 drops only touches of one report.
    public var minimumDuration: Duration
    /// Touches dropped so far.
    public private(set) var dropped = 0
    /// Where the last dropped touch was, in screen pixels.
    public private(set) var lastDropped: Point?

    /// Says the dropped touches at most once a minute.
    private var log = PhantomTouchLog()

    /// Frames held back, oldest first.
    private var held: [TouchFrame] = []
    /// Touches begun in held frames and not yet old enough, with when they began.
    private var young: [ContactID: Instant] = [:]

    /// Creates a filter.
    public init(minimumDuration: Duration) {
        self.minimumDuration = minimumDuration
    }

    /// When the held frames are due if no frame comes first (a finger held still sends none).
    public var deadline: Instant? { young.values.max().map { $0 + minimumDuration } }

    /// Takes the decoder's next frame; returns the frames that may go on, oldest first.
    public mutating func feed(_ frame: TouchFrame) -> [TouchFrame] {
        // Most frames: touches already judged move. Nothing is held (held frames imply a young
        // touch), so the frame goes on as it is.
        if young.isEmpty, frame.began.isEmpty { return [frame] }
        var frame = frame
        // Begun and ended in one report: no finger does that.
        let instant = Set(frame.began).intersection(frame.ended.map(\.id))
        for id in instant { drop(id, endedIn: &frame) }
        for id in frame.began { young[id] = frame.time }
        for (id, began) in young {
            let ended = frame.ended.contains { $0.id == id }
            // A cancel (device gone, events lost) is no touch anyway: it goes on as it is.
            if ended, !frame.cancelled.contains(id), frame.time - began < minimumDuration {
                drop(id, endedIn: &frame)
            } else if ended || frame.time - began >= minimumDuration {
                young[id] = nil
            }
        }
        if Self.says(frame) { held.append(frame) }
        return young.isEmpty ? releaseAll() : []
    }

    /// Lets held frames go once every touch in them is old enough at `now`.
    public mutating func release(upTo now: Instant) -> [TouchFrame] {
        for (id, began) in young where now - began >= minimumDuration { young[id] = nil }
        return young.isEmpty ? releaseAll() : []
    }

    /// A line saying what was dropped, when one is due (`PhantomTouchLog`).
    /// - Parameters:
    ///   - positionless: the touches the decoder dropped for having no position, so far.
    ///   - final: the input ends: say what is left.
    public mutating func report(positionless: Int, at now: Instant, final: Bool = false) -> String? {
        log.line(total: dropped + positionless, last: lastDropped, at: now, final: final)
    }

    /// Takes `id` out of every held frame and of `frame`, where it ended, and counts it.
    private mutating func drop(_ id: ContactID, endedIn frame: inout TouchFrame) {
        young[id] = nil
        dropped += 1
        lastDropped = frame.ended.first(where: { $0.id == id })?.position ?? lastDropped
        frame = Self.removing(id, from: frame)
        held = held.map { Self.removing(id, from: $0) }.filter(Self.says)
    }

    private mutating func releaseAll() -> [TouchFrame] {
        defer { held.removeAll(keepingCapacity: true) }
        return held
    }

    private static func removing(_ id: ContactID, from frame: TouchFrame) -> TouchFrame {
        TouchFrame(time: frame.time, contacts: frame.contacts.filter { $0.id != id }, began: frame.began.filter { $0 != id },
                   ended: frame.ended.filter { $0.id != id }, cancelled: frame.cancelled.filter { $0 != id })
    }

    /// Whether a frame still says anything: a contact down, or one beginning or ending.
    private static func says(_ frame: TouchFrame) -> Bool {
        !frame.contacts.isEmpty || !frame.began.isEmpty || !frame.ended.isEmpty || !frame.cancelled.isEmpty
    }
}
