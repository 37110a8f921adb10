extension PixelRect {
    /// Whether `o` lies wholly inside (an empty one lies inside any).
    public func contains(_ o: PixelRect) -> Bool {
        o.isEmpty || (o.x0 >= x0 && o.x1 <= x1 && o.y0 >= y0 && o.y1 <= y1)
    }

    /// Out-of-date parts, `dirty`, with `rects` added: a rectangle inside one already there
    /// adds nothing and one already there inside a new one goes, so the same tiles redrawn
    /// frame after frame by an app (an invalidation flood) stay one rectangle each. Beyond
    /// `limit` rectangles, one holding them all: drawing more than changed is the price of a
    /// bounded list. The limit is above a band's tiles, so tile-sized changes never reach it;
    /// at the old 16 they did within a frame, and the whole view was drawn again for them.
    public static func merging(_ dirty: [PixelRect], _ rects: [PixelRect], limit: Int = 256) -> [PixelRect] {
        var all = dirty
        for r in rects where !r.isEmpty && !all.contains(where: { $0.contains(r) }) {
            all.removeAll { r.contains($0) }
            all.append(r)
        }
        guard all.count > limit, let first = all.first else { return all }
        return [all.dropFirst().reduce(first) { $0.union($1) }]
    }
}
