import CCairo
import CRsvg
import Testing

/// PNG and JPEG pages for the tests, made on the spot: a PNG by cairo (colour bands, a
/// half-transparent disc, text-like stripes), a JPEG by gdk-pixbuf's own encoder, and each one
/// decoded for reference apart from the helper's code.
enum SampleImages {
    /// Writes a `width` × `height` PNG with alpha (cairo ARGB32) to `path`.
    static func writePNG(to path: String, width: Int, height: Int) throws {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)),
              let cr = cairo_create(surface) else { throw TestFailure("no surface") }
        defer { cairo_surface_destroy(surface) }
        for band in 0..<8 {
            cairo_set_source_rgb(cr, Double(band % 2), Double(band) / 7, 1 - Double(band) / 7)
            cairo_rectangle(cr, Double(band * width / 8), 0, Double(width / 8), Double(height))
            cairo_fill(cr)
        }
        cairo_set_source_rgba(cr, 0.2, 0.9, 0.3, 0.5)
        cairo_arc(cr, Double(width) / 2, Double(height) / 2, Double(min(width, height)) / 3, 0, 2 * Double.pi)
        cairo_fill(cr)
        // A transparent corner: the paper shows through it.
        cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
        cairo_rectangle(cr, 0, 0, Double(width / 4), Double(height / 4))
        cairo_fill(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
        cairo_set_source_rgb(cr, 0, 0, 0)
        for line in stride(from: height / 2, to: height, by: 6) {
            cairo_rectangle(cr, 8, Double(line), Double(width - 16), 2)
        }
        cairo_fill(cr)
        cairo_destroy(cr)
        guard cairo_surface_write_to_png(surface, path).rawValue == 0 else { throw TestFailure("cannot write \(path)") }
    }

    /// The PNG at `path` read by cairo's own reader.
    static func cairoSurface(png path: String) throws -> OpaquePointer {
        guard let surface = cairo_image_surface_create_from_png(path), cairo_surface_status(surface).rawValue == 0 else {
            throw TestFailure("cairo cannot read \(path)")
        }
        return surface
    }

    /// Writes a `width` × `height` JPEG (quality 95) with gdk-pixbuf's encoder to `path`.
    static func writeJPEG(to path: String, width: Int, height: Int) throws {
        guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, Int32(width), Int32(height)),
              let pixels = gdk_pixbuf_get_pixels(pixbuf) else { throw TestFailure("no pixbuf") }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        let rowstride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        for y in 0..<height {
            for x in 0..<width {
                let p = pixels + y * rowstride + x * 3
                // Smooth gradients (JPEG keeps them) and a few large blocks of colour.
                p[0] = UInt8(x * 255 / max(1, width - 1))
                p[1] = UInt8(y * 255 / max(1, height - 1))
                p[2] = (x / 64 + y / 64) % 2 == 0 ? 200 : 40
            }
        }
        var keys = [strdup("quality"), nil], values = [strdup("95"), nil]
        defer { for p in keys + values { free(p) } }
        var failure: UnsafeMutablePointer<GError>?
        guard gdk_pixbuf_savev(pixbuf, path, "jpeg", &keys, &values, &failure) != 0 else {
            if let failure { g_error_free(failure) }
            throw TestFailure("gdk-pixbuf cannot write \(path)")
        }
    }

    /// The JPEG at `path` decoded by gdk-pixbuf and copied into an RGB24 surface pixel by pixel
    /// (an opaque image: no premultiplying).
    static func cairoSurface(jpeg path: String) throws -> OpaquePointer {
        guard let pixbuf = gdk_pixbuf_new_from_file(path, nil) else { throw TestFailure("gdk-pixbuf cannot read \(path)") }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        let width = Int(gdk_pixbuf_get_width(pixbuf)), height = Int(gdk_pixbuf_get_height(pixbuf))
        let rowstride = Int(gdk_pixbuf_get_rowstride(pixbuf)), channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        guard let source = gdk_pixbuf_read_pixels(pixbuf),
              let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)),
              let data = cairo_image_surface_get_data(surface) else { throw TestFailure("no surface") }
        let stride = Int(cairo_image_surface_get_stride(surface))
        for y in 0..<height {
            for x in 0..<width {
                let p = source + y * rowstride + x * channels
                let pixel = UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
                (data + y * stride + x * 4).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee = 0xFF00_0000 | pixel }
            }
        }
        cairo_surface_mark_dirty(surface)
        return surface
    }

    /// A PNG header alone (signature and IHDR) claiming `width` × `height`.
    static func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
        func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + bigEndian(width) + bigEndian(height)
            + [8, 6, 0, 0, 0, 0, 0, 0, 0]
    }
}
