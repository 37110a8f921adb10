/// Two fingers of a pinch: the scale is the ratio of their distances, the focus their centroid.
struct PinchTracker: Hashable, Sendable {
    /// The finger that was down first.
    let first: ContactID
    /// The finger that joined it.
    let second: ContactID
    /// Their distance at the last update.
    private(set) var distance: Double
    /// Their centroid at the last update.
    private(set) var centroid: Point

    init(_ a: Contact, _ b: Contact) {
        first = a.id
        second = b.id
        distance = a.position.distance(to: b.position)
        centroid = Self.centroid(a.position, b.position)
    }

    static func centroid(_ a: Point, _ b: Point) -> Point {
        Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
    }

    func contains(_ id: ContactID) -> Bool { first == id || second == id }

    /// The other finger of the pair.
    func partner(of id: ContactID) -> ContactID { id == first ? second : first }

    /// The change since the last update: the scale factor (1 when the fingers are too close to
    /// measure), the centroid before (`from`) and now (`to`). The scroll view scales about
    /// `from` and then pans to `to`, so the content under the fingers follows them.
    mutating func update(_ a: Point, _ b: Point) -> (factor: Double, from: Point, to: Point) {
        let d = a.distance(to: b)
        let c = Self.centroid(a, b)
        // Below a pixel apart the ratio is noise (or a division by zero).
        let factor = distance >= 1 && d >= 1 ? d / distance : 1
        let from = centroid
        if d >= 1 || distance < 1 { distance = d }
        centroid = c
        return (factor, from, c)
    }
}
