import FlickCore

/// The promises `TouchFrame` documents, checked frame after frame: what the gesture recogniser
/// relies on, so a decoder that breaks them is a bug even when nothing traps.
struct FrameChecks {
    /// The contacts shown by the last frame, by id.
    private var down: Set<ContactID> = []

    /// Checks one frame against itself and against the frame before it.
    mutating func check(_ frame: TouchFrame) {
        let ids = frame.contacts.map(\.id)
        fuzzCheck(ids == ids.sorted() && Set(ids).count == ids.count, "contacts not unique and by id: \(ids)")
        let ended = frame.ended.map(\.id)
        fuzzCheck(Set(ended).count == ended.count, "a contact ended twice: \(ended)")
        fuzzCheck(Set(frame.began).count == frame.began.count, "a contact began twice: \(frame.began)")
        fuzzCheck(Set(ended).isDisjoint(with: ids), "a contact both ended and still down: \(ended) / \(ids)")
        fuzzCheck(Set(frame.cancelled).isSubset(of: Set(ended)), "cancelled \(frame.cancelled) not among ended \(ended)")
        for id in frame.began {
            fuzzCheck(!down.contains(id), "contact \(id) began while already down")
            fuzzCheck(ids.contains(id) || ended.contains(id), "contact \(id) began but is neither down nor ended")
        }
        for id in ended {
            fuzzCheck(down.contains(id) || frame.began.contains(id), "contact \(id) ended without having begun")
        }
        for id in down where !ids.contains(id) {
            fuzzCheck(ended.contains(id), "contact \(id) vanished without ending")
        }
        for id in ids where !down.contains(id) {
            fuzzCheck(frame.began.contains(id), "contact \(id) appeared without beginning")
        }
        for c in frame.contacts + frame.ended {
            fuzzCheck(c.position.x.isFinite && c.position.y.isFinite, "contact \(c.id) at \(c.position)")
        }
        down = Set(ids)
    }

    /// Whether every contact has ended.
    var isEmpty: Bool { down.isEmpty }
}
