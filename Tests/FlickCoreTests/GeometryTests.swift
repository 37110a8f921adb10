import Testing
@testable import FlickCore

@Test func instantArithmeticRoundTrips() {
    let t = Instant(seconds: 12, microseconds: 345_678)
    #expect(t.nanoseconds == 12_345_678_000)
    #expect((t + .milliseconds(150)) - t == .milliseconds(150))
    #expect(Duration.milliseconds(150).inSeconds == 0.15)
}
