import FlickDisplay
import Glibc

/// The parts of a frame that differ from the frame before it, for `wl_surface.damage_buffer`:
/// with shared memory the compositor copies (or samples) only what is damaged, so a frame in
/// which only a scroll indicator faded costs it the indicator's pixels, not the panel's.
///
/// Frames are composed whole (`FrameComposer`), so the difference is found by comparing the new
/// frame with the one committed before it, which is still in its own buffer: rows by `memcmp`,
/// and within each changed row the first and last changed pixel. Runs of changed rows become one
/// rectangle each; beyond `limit` runs, one rectangle around them all.
enum FrameDamage {
    /// The rectangles of `frame` that differ from `previous` (nil: no previous frame of this
    /// size, so everything).
    /// - Parameters:
    ///   - frame: the frame about to be committed.
    ///   - previous: the frame committed before it, the same size, or nil.
    ///   - limit: the most rectangles to return.
    /// - Returns: the changed rectangles, top to bottom; empty when nothing changed.
    static func rectangles(_ frame: PixelBuffer, since previous: PixelBuffer?, limit: Int = 8) -> [PixelRect] {
        let whole = PixelRect(x0: 0, y0: 0, x1: frame.width, y1: frame.height)
        guard let previous, previous.width == frame.width, previous.height == frame.height else { return [whole] }
        var runs: [PixelRect] = []
        let rowBytes = frame.width * 4
        for y in 0..<frame.height {
            let new = frame.row(y), old = previous.row(y)
            guard memcmp(new, old, rowBytes) != 0 else { continue }
            var first = 0, last = frame.width - 1
            while new[first] == old[first] { first += 1 }
            while new[last] == old[last] { last -= 1 }
            if var run = runs.last, run.y1 == y {
                run.x0 = min(run.x0, first)
                run.x1 = max(run.x1, last + 1)
                run.y1 = y + 1
                runs[runs.count - 1] = run
            } else {
                runs.append(PixelRect(x0: first, y0: y, x1: last + 1, y1: y + 1))
            }
        }
        guard runs.count > max(1, limit) else { return runs }
        return [runs.dropFirst().reduce(runs[0]) { PixelRect(x0: min($0.x0, $1.x0), y0: $0.y0, x1: max($0.x1, $1.x1), y1: $1.y1) }]
    }

    /// What a commit damages: the changed rectangles, or one pixel when nothing changed. A
    /// commit without damage gets no frame callback from wlroots (cage, sway, labwc): it sends
    /// `done` only for an output frame it renders, and renders only damage. The frame presenter
    /// waits for that callback with no timeout on Wayland, so the sub-pixel tail of a
    /// deceleration — frames identical to the one before — stopped the model short of its rest
    /// under cage (e2e), `didEndDecelerating` never sent.
    static func toCommit(_ frame: PixelBuffer, since previous: PixelBuffer?, limit: Int = 8) -> [PixelRect] {
        let changed = rectangles(frame, since: previous, limit: limit)
        return changed.isEmpty ? [PixelRect(x0: 0, y0: 0, x1: 1, y1: 1)] : changed
    }
}
