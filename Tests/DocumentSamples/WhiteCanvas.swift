import CCairo

/// The white canvas the tests' reference renderings are painted on.
public enum WhiteCanvas {
    /// `width` × `height` XRGB8888 pixels (rows `width × 4` bytes apart), white, with `draw`
    /// then painting on them through a cairo context; `nil` when cairo cannot make the surface.
    public static func pixels(width: Int, height: Int, _ draw: (OpaquePointer) throws -> Void) rethrows -> [UInt32]? {
        var pixels = [UInt32](repeating: 0, count: width * height)
        let made: Bool = try pixels.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self),
                  let surface = cairo_image_surface_create_for_data(base, CAIRO_FORMAT_RGB24, Int32(width), Int32(height), Int32(width * 4))
            else { return false }
            defer { cairo_surface_destroy(surface) }
            guard let cr = cairo_create(surface) else { return false }
            defer { cairo_destroy(cr) }
            cairo_set_source_rgb(cr, 1, 1, 1)
            cairo_paint(cr)
            try draw(cr)
            cairo_surface_flush(surface)
            return true
        }
        return made ? pixels : nil
    }
}
