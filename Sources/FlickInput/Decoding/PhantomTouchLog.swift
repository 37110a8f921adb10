import FlickCore

/// Says what was dropped as phantom at most once a minute: the first at once, then the count
/// since the last line. An unattended kiosk's journal would otherwise fill with a line every
/// 13 s from a panel that never stops sending them.
public struct PhantomTouchLog: Sendable {
    /// The shortest time between two lines.
    public static let interval = Duration.seconds(60)
    private var said = 0
    private var lastLine: Instant?

    public init() {}

    /// A line, when one is due.
    /// - Parameters:
    ///   - total: touches dropped so far (both kinds).
    ///   - last: where the last one with a position was.
    ///   - now: the time.
    ///   - final: the input ends (a recording's end): say what is left, whenever the last line was.
    public mutating func line(total: Int, last: Point?, at now: Instant, final: Bool = false) -> String? {
        guard total > said else { return nil }
        if let lastLine, now - lastLine < Self.interval, !final { return nil }
        defer {
            said = total
            lastLine = now
        }
        let count = total - said
        let place = last.map { " (the last at \($0.x.brief), \($0.y.brief))" } ?? ""
        return "\(count) phantom touch\(count == 1 ? "" : "es") ignored\(place): a touch no finger makes "
            + "(it began and ended at once, or had no position); at most one such line a minute"
    }
}
