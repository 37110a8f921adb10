#!/usr/bin/python3
"""Tests/E2E/menu.py — scenario 15's document, made on the host by scripts/e2e.sh (python3's
standard library and libcairo through ctypes: no Python binding needed).

    menu.py pdf OUT.pdf           a 4-page menu: each page 504 x 376 pt, its own paper colour,
                                  a title, text and vector shapes (cairo embeds the font)
    menu.py ppm IN.png OUT.ppm    a PNG (pdftocairo's rendering of a page) as a binary PPM,
                                  which docframe.py reads inside the machine

504 x 376 pt is a 4:3 page whose paper, fitted into a 1024x768 screen's cell inset by the
default 16 px gap, is exactly 2 px per pt: 1008 x 752 (docs/documents.md, "Layout").
"""
import ctypes
import ctypes.util
import sys

WIDTH, HEIGHT = 504.0, 376.0
# Paper, title band and accent of each page: far apart, so a page is known by its colours.
PAGES = [
    ((0.96, 0.90, 0.78), (0.55, 0.10, 0.10), (0.10, 0.45, 0.20), "Starters"),
    ((0.80, 0.90, 0.98), (0.05, 0.20, 0.50), (0.85, 0.55, 0.05), "Mains"),
    ((0.85, 0.97, 0.82), (0.10, 0.40, 0.10), (0.60, 0.10, 0.55), "Desserts"),
    ((0.98, 0.84, 0.90), (0.45, 0.05, 0.30), (0.05, 0.45, 0.55), "Drinks"),
]
DISHES = ["Soup of the day", "Grilled vegetables", "Fish and chips", "Lemon tart", "Espresso"]

cairo = ctypes.CDLL(ctypes.util.find_library("cairo") or "libcairo.so.2")
P, D, I = ctypes.c_void_p, ctypes.c_double, ctypes.c_int
for name, result, args in [
    ("cairo_pdf_surface_create", P, [ctypes.c_char_p, D, D]),
    ("cairo_create", P, [P]), ("cairo_destroy", None, [P]),
    ("cairo_surface_finish", None, [P]), ("cairo_surface_destroy", None, [P]),
    ("cairo_surface_status", I, [P]), ("cairo_show_page", None, [P]),
    ("cairo_set_source_rgb", None, [P, D, D, D]), ("cairo_paint", None, [P]),
    ("cairo_rectangle", None, [P, D, D, D, D]), ("cairo_fill", None, [P]),
    ("cairo_arc", None, [P, D, D, D, D, D]), ("cairo_stroke", None, [P]),
    ("cairo_set_line_width", None, [P, D]), ("cairo_move_to", None, [P, D, D]),
    ("cairo_line_to", None, [P, D, D]),
    ("cairo_select_font_face", None, [P, ctypes.c_char_p, I, I]),
    ("cairo_set_font_size", None, [P, D]), ("cairo_show_text", None, [P, ctypes.c_char_p]),
    ("cairo_image_surface_create_from_png", P, [ctypes.c_char_p]),
    ("cairo_image_surface_get_data", ctypes.POINTER(ctypes.c_ubyte), [P]),
    ("cairo_image_surface_get_width", I, [P]), ("cairo_image_surface_get_height", I, [P]),
    ("cairo_image_surface_get_stride", I, [P]), ("cairo_image_surface_get_format", I, [P]),
    ("cairo_surface_flush", None, [P]),
]:
    function = getattr(cairo, name)
    function.restype, function.argtypes = result, args


def text(cr, x, y, size, words, bold=False):
    cairo.cairo_select_font_face(cr, b"DejaVu Sans", 0, 1 if bold else 0)
    cairo.cairo_set_font_size(cr, size)
    cairo.cairo_move_to(cr, x, y)
    cairo.cairo_show_text(cr, words.encode())


def pdf(path):
    surface = cairo.cairo_pdf_surface_create(path.encode(), WIDTH, HEIGHT)
    cr = cairo.cairo_create(surface)
    for number, (paper, band, accent, title) in enumerate(PAGES, start=1):
        cairo.cairo_set_source_rgb(cr, *paper)
        cairo.cairo_paint(cr)
        cairo.cairo_set_source_rgb(cr, *band)
        cairo.cairo_rectangle(cr, 0, 0, WIDTH, 64)
        cairo.cairo_fill(cr)
        cairo.cairo_set_source_rgb(cr, 1, 1, 1)
        text(cr, 24, 44, 30, f"{title}  ({number}/{len(PAGES)})", bold=True)
        cairo.cairo_set_source_rgb(cr, 0.1, 0.1, 0.1)
        for row, dish in enumerate(DISHES):
            text(cr, 24, 104 + row * 34, 18, dish)
            text(cr, 260, 104 + row * 34, 18, f"{number * 3 + row}.50")
        # Vector shapes: an accent block, a ring and a rule, a little different on each page.
        cairo.cairo_set_source_rgb(cr, *accent)
        cairo.cairo_rectangle(cr, 340, 90, 140, 90 + number * 10)
        cairo.cairo_fill(cr)
        cairo.cairo_set_line_width(cr, 6)
        cairo.cairo_arc(cr, 410, 300, 20 + number * 8, 0, 6.283185307179586)
        cairo.cairo_stroke(cr)
        cairo.cairo_move_to(cr, 24, 350)
        cairo.cairo_line_to(cr, 300, 350)
        cairo.cairo_stroke(cr)
        cairo.cairo_show_page(cr)
    cairo.cairo_destroy(cr)
    cairo.cairo_surface_finish(surface)
    if cairo.cairo_surface_status(surface) != 0:
        sys.exit(f"menu.py: cairo could not write {path}")
    cairo.cairo_surface_destroy(surface)


def ppm(png, out):
    surface = cairo.cairo_image_surface_create_from_png(png.encode())
    if cairo.cairo_surface_status(surface) != 0:
        sys.exit(f"menu.py: cairo cannot read {png}")
    cairo.cairo_surface_flush(surface)
    width = cairo.cairo_image_surface_get_width(surface)
    height = cairo.cairo_image_surface_get_height(surface)
    stride = cairo.cairo_image_surface_get_stride(surface)
    if cairo.cairo_image_surface_get_format(surface) not in (0, 1):   # ARGB32, RGB24
        sys.exit(f"menu.py: {png} is not 8-bit RGB")
    data = ctypes.string_at(cairo.cairo_image_surface_get_data(surface), stride * height)
    rgb = bytearray()
    for y in range(height):
        row = data[y * stride:y * stride + width * 4]
        # Little-endian 0xAARRGGBB: B, G, R, A in memory. The pages are opaque.
        rgb += bytes(b for x in range(0, len(row), 4) for b in (row[x + 2], row[x + 1], row[x]))
    with open(out, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (width, height) + bytes(rgb))
    cairo.cairo_surface_destroy(surface)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "pdf":
        pdf(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "ppm":
        ppm(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: menu.py pdf OUT.pdf | menu.py ppm IN.png OUT.ppm")
