import CCairo

/// Images for documents to refer to.
public enum SamplePNG {
    /// Writes a red `width` × `height` PNG to `path`.
    @discardableResult
    public static func writeRed(to path: String, width: Int, height: Int) -> Bool {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)) else { return false }
        defer { cairo_surface_destroy(surface) }
        guard let cr = cairo_create(surface) else { return false }
        cairo_set_source_rgb(cr, 1, 0, 0)
        cairo_paint(cr)
        cairo_destroy(cr)
        return cairo_surface_write_to_png(surface, path).rawValue == 0
    }
}
