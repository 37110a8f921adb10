#if canImport(Glibc)
import Glibc
#endif

/// The floor of any event path that copies a whole frame: one 1920×1080 XRGB8888 frame copied
/// with `memcpy` from memory the caches no longer hold, paced like the latency rig's reports.
///
/// Item 2's memcpy peer copies the same buffers back to back, so they stay in the last-level
/// cache; a live frame is composed after the loop slept, from rows the previous frames did not
/// all read, into the buffer that was on screen two frames ago. Here sources and targets rotate
/// through more memory than the caches hold (6 frames, 48 MB), with the same 0.5–2.5 ms pauses.
enum ColdFrameCopy {
    /// Microseconds per copy.
    static func run(copies: Int) -> Stats {
        let bytes = 1920 * 1080 * 4
        let buffers = (0..<6).map { _ -> UnsafeMutableRawPointer in
            let p = malloc(bytes)!
            memset(p, 0x5A, bytes)
            return p
        }
        defer { buffers.forEach { free($0) } }
        var samples: [Double] = []
        var rng: UInt64 = 7
        for i in 0..<copies {
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            usleep(500 + UInt32((rng >> 33) % 2000))
            let source = buffers[(2 * i) % 6], target = buffers[(2 * i + 1) % 6]
            let start = monotonicNanoseconds()
            memcpy(target, source, bytes)
            samples.append(Double(monotonicNanoseconds() - start) / 1000)
        }
        return Stats(samples: samples)
    }
}
