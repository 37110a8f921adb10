import FlickCore
import FlickDisplay

/// The window's frame buffers, whichever memory backs them (`ShmBuffers`, `DmabufBuffers`): a
/// few buffers of one size, drawn into only when the compositor does not hold them.
protocol WaylandBufferSet: AnyObject {
    /// The buffers' size in pixels.
    var size: PixelSize { get }
    /// The pixels of buffer `index`, to draw into.
    func pixels(_ index: Int) -> PixelBuffer
    /// The `wl_buffer` of buffer `index` (nil while the compositor has not created it).
    func buffer(_ index: Int) -> OpaquePointer?
    /// A buffer the compositor does not hold, other than `excluding` (the frame last committed,
    /// which the next frame is compared with), if any.
    func free(excluding: Int?) -> Int?
    /// Marks a buffer attached: the compositor holds it until it releases it.
    func attach(_ index: Int)
}
