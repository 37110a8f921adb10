@testable import FlickCore
import Testing

/// The one "times never go back" rule the recogniser and the pipeline both stamp with.
@Suite struct OutputClockTests {
    static func outputs(_ ms: [Double]) -> [GestureOutput] {
        ms.map { GestureOutput(time: .milliseconds($0), kind: .diagnostic("\($0)")) }
    }

    @Test func anEarlierTimeIsStampedAsTheLatest() {
        var clock = OutputClock()
        var outputs = Self.outputs([10, 8, 12, 11, 12])
        clock.stamp(&outputs)
        #expect(outputs.map(\.time) == [10, 10, 12, 12, 12].map { Instant.milliseconds($0) })
        #expect(clock.latest == .milliseconds(12))
    }

    @Test func theClockCarriesOverFromCallToCall() {
        var clock = OutputClock()
        var first = Self.outputs([20])
        clock.stamp(&first)
        var second = Self.outputs([16, 25])
        clock.stamp(&second)
        #expect(second.map(\.time) == [.milliseconds(20), .milliseconds(25)])
        var none: [GestureOutput] = []
        clock.stamp(&none)
        #expect(clock.latest == .milliseconds(25))
    }

    @Test func whatElseAnOutputSaysIsKept() {
        var clock = OutputClock()
        var outputs = Self.outputs([5, 3])
        let before = outputs
        clock.stamp(&outputs)
        #expect(outputs[1].kind == before[1].kind && outputs[1].state == before[1].state)
    }
}
