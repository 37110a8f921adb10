import FlickDisplay

/// Section 13's frame budget for Pi-class boards: what a frame's instructions and bytes would
/// take on one core of a Raspberry Pi 4 or 5, from published figures (BENCHMARKS.md, "Issue 36
/// part 6", cites them and states the assumptions).
///
/// time = max(instructions / (IPC × f), bytes / bandwidth): the cores are out of order and
/// their prefetchers run ahead of a streaming copy, so the arithmetic of a frame overlaps its
/// memory traffic and the slower of the two sets the time (a roofline). The sum, the bound if
/// nothing overlapped, is printed beside it.
struct PiBoard {
    var name: String
    /// One core's clock, Hz.
    var hertz: Double
    /// Instructions retired per cycle assumed for this code (copies, pixman's bilinear loops).
    var ipc: Double
    /// Bytes read plus bytes written per second that one core's copy achieves (STREAM's and
    /// tinymembench's copy, counted both ways).
    var bandwidth: Double

    /// Pi 4 Model B: Cortex-A72 at 1.5 GHz (1.8 GHz on boards since 2020), LPDDR4-3200 32-bit;
    /// STREAM copy 5.53 GB/s on one core (tinymembench's C copy 2.78 GB/s copied, 5.55 both ways).
    static let pi4 = PiBoard(name: "Pi 4", hertz: 1.5e9, ipc: 1.0, bandwidth: 5.5e9)
    /// Pi 5: Cortex-A76 at 2.4 GHz, LPDDR4X-4267 32-bit; tinymembench's C copy 4.9–6.2 GB/s
    /// copied on one core, 11 GB/s both ways.
    static let pi5 = PiBoard(name: "Pi 5", hertz: 2.4e9, ipc: 1.5, bandwidth: 11e9)

    /// The display engine reads the whole frame from the same memory every refresh (XRGB8888
    /// at 60 Hz), whatever the CPU does: that share is not the frame's.
    func available(panel: PixelSize) -> Double {
        max(bandwidth - Double(panel.area * 4) * 60, bandwidth * 0.1)
    }

    /// The frame's time in milliseconds on one core: the roofline and the no-overlap sum.
    func milliseconds(instructions: Double, bytes: Double, panel: PixelSize) -> (model: Double, sum: Double) {
        let compute = instructions / (ipc * hertz), memory = bytes / available(panel: panel)
        return (max(compute, memory) * 1e3, (compute + memory) * 1e3)
    }

    /// A 60 Hz frame's budget.
    static let budget = 1000.0 / 60
}
