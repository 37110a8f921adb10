#!/usr/bin/env python3
"""Draws demo/map.jpg: the made-up town the demo replay shows (scripts/run.sh, README).

A square map on a wide panel, so the demo shows what a kiosk map looks like fitted and centred.
Everything is generated from a fixed seed (no outside data, so no licence but the project's):
land and water from fractal noise, a river, parks, a street grid, main roads and district
names. Needs Pillow >= 10.1 and NumPy, only to make the file again:

    python3 -m venv /tmp/mapenv && /tmp/mapenv/bin/pip install pillow numpy
    /tmp/mapenv/bin/python scripts/demo-map.py demo/map.jpg
"""
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

SIZE = 3000
rng = np.random.default_rng(34)


def fractal_noise(size, octaves=6):
    """Value noise: coarse random grids upsampled smoothly and summed, finer ones weaker."""
    total = np.zeros((size, size), np.float32)
    amplitude, weight = 1.0, 0.0
    for octave in range(octaves):
        cells = 4 * 2 ** octave
        grid = rng.random((cells + 1, cells + 1)).astype(np.float32)
        layer = Image.fromarray(grid).resize((size, size), Image.BICUBIC)
        total += amplitude * np.asarray(layer)
        weight += amplitude
        amplitude *= 0.5
    return total / weight


def main(path):
    height = fractal_noise(SIZE)
    # An island: lower towards the edges, so the sea frames the town.
    y, x = np.mgrid[0:SIZE, 0:SIZE] / SIZE - 0.5
    height -= 0.9 * (x * x + y * y)
    land = height > 0.18
    park = (fractal_noise(SIZE, 4) > 0.62) & land

    rgb = np.zeros((SIZE, SIZE, 3), np.uint8)
    rgb[:] = (158, 196, 222)                      # sea
    shallow = (height > 0.13) & ~land
    rgb[shallow] = (183, 215, 235)
    rgb[land] = (241, 236, 222)                   # town
    rgb[park] = (196, 222, 178)
    image = Image.fromarray(rgb)
    draw = ImageDraw.Draw(image)

    # A river winding north to south.
    river = [(int(1450 + 260 * np.sin(t / 380)), t) for t in range(0, SIZE, 20)]
    draw.line(river, fill=(158, 196, 222), width=38, joint="curve")

    # Streets: a grid, drawn only on land.
    streets = Image.new("L", (SIZE, SIZE), 0)
    sdraw = ImageDraw.Draw(streets)
    for i in range(120, SIZE, 120):
        sdraw.line([(i, 0), (i, SIZE)], fill=255, width=7)
        sdraw.line([(0, i), (SIZE, i)], fill=255, width=7)
    mask = Image.fromarray((land & ~park).astype(np.uint8) * 255)
    streets = Image.fromarray(np.minimum(np.asarray(streets), np.asarray(mask)))
    image.paste((255, 255, 255), (0, 0), streets)

    # Main roads: two diagonals and a ring, in the road colour, with bridges over the river.
    for road in ([(300, 700), (2700, 2300)], [(400, 2500), (2600, 500)]):
        draw.line(road, fill=(246, 200, 120), width=22)
    draw.ellipse([900, 900, 2100, 2100], outline=(246, 200, 120), width=20)
    image = image.filter(ImageFilter.SMOOTH)
    draw = ImageDraw.Draw(image)

    font = ImageFont.load_default(size=64)
    small = ImageFont.load_default(size=40)
    names = [((1500, 1500), "Old Town"), ((760, 1180), "Harbour"), ((2230, 1180), "Museum Quarter"),
             ((900, 2150), "Market"), ((2150, 2200), "University"), ((1500, 640), "North Gate")]
    for (cx, cy), name in names:
        draw.text((cx, cy), name, font=font, fill=(60, 60, 70), anchor="mm",
                  stroke_width=5, stroke_fill=(255, 255, 255))
    draw.text((SIZE // 2, 120), "FLICKD DEMO TOWN", font=ImageFont.load_default(size=110),
              fill=(40, 60, 90), anchor="mm", stroke_width=6, stroke_fill=(255, 255, 255))
    # A scale bar and a north arrow, where a real map has them.
    draw.rectangle([150, SIZE - 190, 650, SIZE - 170], fill=(40, 40, 40))
    draw.text((400, SIZE - 120), "500 m", font=small, fill=(40, 40, 40), anchor="mm")
    draw.polygon([(SIZE - 250, SIZE - 330), (SIZE - 300, SIZE - 180), (SIZE - 200, SIZE - 180)], fill=(40, 40, 40))
    draw.text((SIZE - 250, SIZE - 120), "N", font=font, fill=(40, 40, 40), anchor="mm")
    draw.rectangle([0, 0, SIZE - 1, SIZE - 1], outline=(40, 60, 90), width=12)
    image.save(path, quality=82, optimize=True, progressive=False)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "demo/map.jpg")
