import FlickCore
@testable import FlickInput
import Testing

/// `PhantomTouchFilter` on hand-made frames: what no finger makes is dropped before recognition,
/// everything else goes on unchanged, with its own times.
@Suite struct PhantomTouchFilterTests {
    static let a = ContactID(1), b = ContactID(2)
    static func at(_ us: Int64) -> Instant { .seconds(10) + .nanoseconds(us * 1000) }
    static func contact(_ id: ContactID, _ x: Double) -> Contact { Contact(id: id, position: Point(x: x, y: 5)) }

    @Test func aTouchOfOneReportIsDroppedAndCounted() {
        var filter = PhantomTouchFilter(minimumDuration: .zero)
        let frame = TouchFrame(time: Self.at(0), contacts: [], began: [Self.a], ended: [Self.contact(Self.a, 7)])
        #expect(filter.feed(frame).isEmpty)
        #expect(filter.dropped == 1 && filter.lastDropped == Point(x: 7, y: 5) && filter.deadline == nil)
    }

    @Test func aTouchShorterThanTheMinimumIsTakenOutOfEveryFrameItWasIn() {
        var filter = PhantomTouchFilter(minimumDuration: .nanoseconds(20_000))
        // b is down already; a begins beside it and ends 10 µs later, over two reports.
        #expect(filter.feed(TouchFrame(time: Self.at(0), contacts: [Self.contact(Self.b, 1)], began: [Self.b])).isEmpty)
        #expect(filter.deadline == Self.at(20))
        let b1 = filter.release(upTo: Self.at(20))
        #expect(b1.map(\.began) == [[Self.b]])
        let first = TouchFrame(time: Self.at(100), contacts: [Self.contact(Self.a, 3), Self.contact(Self.b, 2)], began: [Self.a])
        #expect(filter.feed(first).isEmpty && filter.deadline == Self.at(120))
        let second = TouchFrame(time: Self.at(110), contacts: [Self.contact(Self.b, 3)], ended: [Self.contact(Self.a, 3)])
        let out = filter.feed(second)
        // b's motion goes on, as it was, without a: a never was.
        #expect(out.map(\.time) == [Self.at(100), Self.at(110)])
        #expect(out.map(\.contacts) == [[Self.contact(Self.b, 2)], [Self.contact(Self.b, 3)]])
        #expect(out.allSatisfy { $0.began.isEmpty && $0.ended.isEmpty } && filter.dropped == 1 && filter.deadline == nil)
    }

    @Test func aRealTouchGoesOnUnchangedOnceOldEnough() {
        var filter = PhantomTouchFilter(minimumDuration: .nanoseconds(20_000))
        let down = TouchFrame(time: Self.at(0), contacts: [Self.contact(Self.a, 1)], began: [Self.a])
        let moved = TouchFrame(time: Self.at(8_000), contacts: [Self.contact(Self.a, 2)])
        let up = TouchFrame(time: Self.at(51_000), contacts: [], ended: [Self.contact(Self.a, 2)])
        #expect(filter.feed(down).isEmpty)
        // The next report is older than the minimum: both go on, each with its own time.
        #expect(filter.feed(moved) == [down, moved])
        #expect(filter.feed(up) == [up] && filter.dropped == 0)
    }

    @Test func aFingerHeldStillIsLetGoAtTheDeadline() {
        var filter = PhantomTouchFilter(minimumDuration: .nanoseconds(20_000))
        let down = TouchFrame(time: Self.at(0), contacts: [Self.contact(Self.a, 1)], began: [Self.a])
        #expect(filter.feed(down).isEmpty)
        #expect(filter.release(upTo: Self.at(19)).isEmpty)
        #expect(filter.release(upTo: Self.at(20)) == [down] && filter.deadline == nil)
    }

    @Test func aCancelIsNoPhantom() {
        var filter = PhantomTouchFilter(minimumDuration: .nanoseconds(20_000))
        let down = TouchFrame(time: Self.at(0), contacts: [Self.contact(Self.a, 1)], began: [Self.a])
        let removed = TouchFrame(time: Self.at(5), contacts: [], ended: [Self.contact(Self.a, 1)], cancelled: [Self.a])
        #expect(filter.feed(down).isEmpty)
        #expect(filter.feed(removed) == [down, removed] && filter.dropped == 0)
    }

    @Test func theLogSaysTheFirstAtOnceThenAtMostOnceAMinute() {
        var log = PhantomTouchLog()
        let p = Point(x: 700, y: 50)
        #expect(log.line(total: 1, last: p, at: .seconds(1))?.hasPrefix("1 phantom touch ignored (the last at 700, 50)") == true)
        #expect(log.line(total: 2, last: p, at: .seconds(14)) == nil)
        #expect(log.line(total: 5, last: p, at: .seconds(60.9)) == nil)
        #expect(log.line(total: 5, last: p, at: .seconds(61))?.hasPrefix("4 phantom touches ignored") == true)
        #expect(log.line(total: 5, last: p, at: .seconds(200)) == nil)
        #expect(log.line(total: 6, last: nil, at: .seconds(201), final: true)?.hasPrefix("1 phantom touch ignored:") == true)
    }
}
