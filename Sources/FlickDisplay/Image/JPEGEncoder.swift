import CTurboJPEG

/// JPEG encoding through libjpeg-turbo's TurboJPEG API: for tiles and fixtures made by flickd's
/// own tools (the fuzz seeds), not on any display path.
public enum JPEGEncoder {
    /// Encodes a buffer's colours as a baseline JPEG, 4:4:4 (alpha, if any, is ignored).
    ///
    /// The corresponding C function is `tjCompress2`.
    /// - Parameters:
    ///   - buffer: the pixels.
    ///   - quality: 1 (smallest) to 100 (best).
    /// - Returns: the file's bytes, or `nil` when TurboJPEG fails (it fails only out of memory).
    public static func encode(_ buffer: PixelBuffer, quality: Int = 90) -> [UInt8]? {
        guard let handle = tjInitCompress() else { return nil }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = tjCompress2(handle, buffer.pixels.assumingMemoryBound(to: UInt8.self), Int32(buffer.width),
                                 Int32(buffer.stride), Int32(buffer.height), Int32(TJPF_BGRX.rawValue), &output, &size,
                                 Int32(TJSAMP_444.rawValue), Int32(min(max(quality, 1), 100)), 0)
        defer { tjFree(output) }
        guard result == 0, let output else { return nil }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
