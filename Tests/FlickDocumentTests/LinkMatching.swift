import FlickDocument

extension PageLink {
    /// Whether this link is `expected` within `tolerance` points: its page, area, and target
    /// (a position given on one side only does not match).
    func isNear(_ expected: PageLink, tolerance: Double = 1) -> Bool {
        func near(_ a: Double?, _ b: Double?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case let (a?, b?): abs(a - b) <= tolerance
            default: false
            }
        }
        guard page == expected.page, near(x, expected.x), near(y, expected.y), near(width, expected.width),
              near(height, expected.height) else { return false }
        if case let .page(page, x, y) = target, case let .page(wanted, wantedX, wantedY) = expected.target {
            return page == wanted && near(x, wantedX) && near(y, wantedY)
        }
        return target == expected.target
    }
}

/// Whether `links` are `expected`, in order, each within a point.
func areNear(_ links: [PageLink], _ expected: [PageLink]) -> Bool {
    links.count == expected.count && zip(links, expected).allSatisfy { $0.isNear($1) }
}
