/// Smooths every contact's position with its own 1€ filter before gesture recognition, so a
/// held finger's noise neither shimmers the content nor pushes a tap over the slop. A contact's
/// filter begins with its touch (its first position passes unchanged) and ends with it (the lift
/// is at the filtered position, so a drag ends where it was shown).
public struct TouchSmoother: Sendable {
    /// The filters' tunables.
    public let parameters: OneEuroFilter.Parameters
    private var filters: [ContactID: OneEuroFilter] = [:]

    /// Creates a smoother.
    public init(_ parameters: OneEuroFilter.Parameters) {
        self.parameters = parameters
    }

    /// The frame with every contact's position filtered.
    public mutating func smooth(_ frame: TouchFrame) -> TouchFrame {
        var out = frame
        for id in frame.began { filters[id] = OneEuroFilter(parameters) }
        out.contacts = frame.contacts.map { filtered($0, at: frame.time) }
        out.ended = frame.ended.map { filtered($0, at: frame.time) }
        for contact in frame.ended { filters[contact.id] = nil }
        return out
    }

    private mutating func filtered(_ contact: Contact, at t: Instant) -> Contact {
        var c = contact
        // A contact first seen without a `began` (a frame after a dropped report) starts a filter.
        c.position = filters[contact.id, default: OneEuroFilter(parameters)].filter(contact.position, at: t)
        return c
    }
}
