import FlickCore
@testable import FlickDisplay
import Testing

/// `RedrawBudget` (`content.provider_redraw_hz`): how fast an app's changed tiles on screen are
/// asked for again. Time is the test's: frames at 60 Hz.
@Suite struct RedrawBudgetTests {
    static let frame = Duration.nanoseconds(16_666_667)

    static func keys(_ n: Int) -> [TileKey] { (0..<n).map { TileKey(level: 4, column: $0 % 8, row: $0 / 8) } }

    /// Frames from `start` for `seconds`, `changed(frame)` stale at each; the admitted tiles'
    /// new pixels arrive before the next frame (an app that answers at once). Returns the tiles
    /// admitted at each frame.
    static func run(_ budget: inout RedrawBudget, seconds: Double, from start: Instant = .zero,
                    changed: (Int) -> [TileKey]) -> [[TileKey]] {
        var t = start, out: [[TileKey]] = []
        for i in 0..<Int((seconds * 60).rounded()) {
            let admitted = budget.admit(changed(i), at: t)
            for key in admitted { budget.settle(key) }
            out.append(admitted)
            t = t + frame
        }
        return out
    }

    @Test func anAppChangingAFewTilesIsAskedForThemAtEveryFrame() {
        var budget = RedrawBudget(viewsPerSecond: 30, viewTiles: 40)
        let clock = Self.keys(3)
        let frames = Self.run(&budget, seconds: 2) { _ in clock }
        #expect(frames.allSatisfy { $0 == clock })
        let said = budget.takeStartedPacing()
        #expect(budget.deferred == 0 && budget.waiting == 0 && !said)
    }

    @Test func anAppChangingItsWholeViewAtEveryFrameIsAskedForThatManyViewsASecondEachTileInTurn() {
        var budget = RedrawBudget(viewsPerSecond: 30, viewTiles: 40)
        let view = Self.keys(40)
        let frames = Self.run(&budget, seconds: 3) { _ in view }
        // The first frame takes a whole view (the budget starts full), then 20 tiles a frame:
        // 30 views of 40 tiles a second.
        #expect(frames[0].count == 40)
        let lastSecond = frames.suffix(60)
        #expect(lastSecond.map(\.count).reduce(0, +) == 1200, "\(lastSecond.map(\.count))")
        #expect(lastSecond.allSatisfy { $0.count == 20 })
        // Each tile in turn: every one redrawn 30 times in that second, none waiting two frames.
        var times: [TileKey: Int] = [:]
        for admitted in lastSecond { for key in admitted { times[key, default: 0] += 1 } }
        #expect(view.allSatisfy { times[$0] == 30 }, "\(times.values.sorted())")
        for (a, b) in zip(lastSecond.dropLast(), lastSecond.dropFirst()) { #expect(Set(a).union(b) == Set(view)) }
        #expect(budget.deferred > 0 && budget.waiting == 20)
        // Said once.
        let first = budget.takeStartedPacing(), second = budget.takeStartedPacing()
        #expect(first && !second)
    }

    @Test func aTileAskedForAndNotArrivedIsAskedForAgainWithoutAToken() {
        var budget = RedrawBudget(viewsPerSecond: 1, viewTiles: 4)
        let view = Self.keys(4)
        #expect(budget.admit(view, at: .zero) == view)
        // No token left, and nothing arrived: the same four are still asked for, in order.
        #expect(budget.admit(view, at: .zero + Self.frame) == view)
        // A fifth changed tile waits; once one arrives and a token comes back, it goes first.
        let fifth = TileKey(level: 4, column: 4, row: 0)
        #expect(budget.admit(view + [fifth], at: .zero + Self.frame * 2) == view)
        budget.settle(view[0])
        #expect(budget.admit([view[0], fifth], at: .zero + .milliseconds(300)) == [fifth])
        #expect(budget.deferred == 2)
    }

    @Test func aViewsWorthIsAskedForAtOnceAfterAPause() {
        var budget = RedrawBudget(viewsPerSecond: 30, viewTiles: 40)
        let view = Self.keys(40)
        _ = Self.run(&budget, seconds: 1) { _ in view }
        // A second without a change: the budget is full again, not fuller.
        let after = Self.run(&budget, seconds: 2 / 60, from: .zero + .seconds(2)) { _ in view }
        #expect(after[0].count == 40)
        #expect(after[1].count == 20)
    }

    @Test func noLimitAsksForEveryChangedTileAtEveryFrame() {
        var budget = RedrawBudget(viewsPerSecond: 0, viewTiles: 40)
        let view = Self.keys(64)
        let frames = Self.run(&budget, seconds: 1) { _ in view }
        #expect(frames.allSatisfy { $0 == view })
        #expect(budget.deferred == 0)
    }

    @Test func forgottenTilesLeaveTheBudget() {
        var budget = RedrawBudget(viewsPerSecond: 1, viewTiles: 2)
        let view = Self.keys(4)
        _ = budget.admit(view, at: .zero)
        #expect(budget.admitted.count == 2 && budget.waiting == 2)
        budget.keep(only: [view[0], view[3]])
        #expect(budget.admitted == [view[0]] && budget.waiting == 1)
    }

    @Test func aViewTouchesOneMoreColumnAndRowThanItSpans() {
        #expect(RedrawBudget.viewTiles(of: PixelSize(width: 1920, height: 1080), tileSize: 256) == 9 * 6)
        #expect(RedrawBudget.viewTiles(of: PixelSize(width: 1280, height: 800), tileSize: 256) == 6 * 5)
        #expect(RedrawBudget.viewTiles(of: PixelSize(width: 256, height: 256), tileSize: 256) == 4)
        #expect(RedrawBudget.viewTiles(of: PixelSize(width: 0, height: 0), tileSize: 0) == 1)
    }
}
