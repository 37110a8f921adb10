import FlickCore
import Testing
@testable import FlickDisplay

// After a flip given up as lost, the next event may be that flip's (late) or the new frame's.
// The e2e VM showed the loop's clock mistaking one for the other: the late flip completed after
// the loop woke but before the new commit, so its event carried a time after the "commit time",
// the new frame was taken as shown, and the next commit was refused as busy.

@Test func aLateFlipIsToldByTheVblankCounterNotTheLoopsClock() {
    let committedAt = Instant.seconds(100)
    // Completed at the vblank counted when the new frame was committed, and timed after the
    // loop's reading: the late flip's all the same.
    #expect(DRMOutput.isLateFlip(sequence: 500, time: committedAt + .milliseconds(2),
                                 committedAtSequence: 500, committedAt: committedAt))
    #expect(DRMOutput.isLateFlip(sequence: 499, time: committedAt - .milliseconds(15),
                                 committedAtSequence: 500, committedAt: committedAt))
    // The vblank after the commit is the new frame's.
    #expect(!DRMOutput.isLateFlip(sequence: 501, time: committedAt + .milliseconds(16),
                                  committedAtSequence: 500, committedAt: committedAt))
}

@Test func theVblankCounterIsComparedAcrossItsWrap() {
    // Events carry the low 32 bits of a 64-bit counter.
    let committed: UInt64 = (1 << 32) + 2
    #expect(!DRMOutput.isLateFlip(sequence: 3, time: .zero, committedAtSequence: committed, committedAt: .zero))
    #expect(DRMOutput.isLateFlip(sequence: 2, time: .zero, committedAtSequence: committed, committedAt: .zero))
    #expect(DRMOutput.isLateFlip(sequence: UInt32.max, time: .zero, committedAtSequence: committed, committedAt: .zero))
    let beforeWrap: UInt64 = (1 << 32) - 1
    #expect(!DRMOutput.isLateFlip(sequence: 0, time: .zero, committedAtSequence: beforeWrap, committedAt: .zero))
}

@Test func withoutTheCounterTheLoopsClockDecides() {
    let committedAt = Instant.seconds(100)
    #expect(DRMOutput.isLateFlip(sequence: 9, time: committedAt - .milliseconds(1), committedAtSequence: nil, committedAt: committedAt))
    #expect(!DRMOutput.isLateFlip(sequence: 9, time: committedAt, committedAtSequence: nil, committedAt: committedAt))
}
