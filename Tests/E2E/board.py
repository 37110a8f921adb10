#!/usr/bin/env python3
"""Tests/E2E/board.py: checks frames grabbed from vkms against the departures board that
examples/provider/timetable.py draws (scenario 10 of scenarios.sh).

    board.py --timetable PATH [--rows N] --offset X,Y FRAME.ppm [LATER.ppm]

FRAME is a binary PPM from `flickd-e2e-grab frame --ppm`. The board a screen of the frame's size
shows at content offset (X, Y), zoom 1, is drawn with timetable.py's own drawing code and compared
with the frame pixel for pixel. The live clock (HH:MM:SS, 5x7 glyphs) is read from the frame
first, cell by cell, and the reference is drawn with the time read, so every pixel counts.

With LATER, a frame grabbed at least a second after FRAME at the same offset: both must be the
board, LATER's clock must be 1 to 60 s ahead of FRAME's, and every pixel that differs between the
two must lie inside the clock's glyphs, the rows under the clock row identical: the provider's
invalidation redrew the clock and nothing else moved.

Prints what it checked; exits 0 when it all holds, 1 when not, 2 on bad usage.
"""

import argparse
import importlib.util
import math
import sys
import time


def fail(message):
    print(f"  board: {message}")
    sys.exit(1)


def load_timetable(path):
    spec = importlib.util.spec_from_file_location("timetable", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_ppm(path):
    """(width, height, RGB bytes) of a binary PPM as flickd-e2e-grab writes it."""
    with open(path, "rb") as f:
        data = f.read()
    fields, at = [], 0
    while len(fields) < 4:   # magic, width, height, maxval; whitespace-separated
        while data[at:at + 1].isspace():
            at += 1
        end = at
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[at:end])
        at = end
    at += 1   # the single whitespace byte before the pixels
    if fields[0] != b"P6" or fields[3] != b"255":
        fail(f"{path} is not a binary 8-bit PPM")
    w, h = int(fields[1]), int(fields[2])
    pixels = data[at:at + w * h * 3]
    if len(pixels) != w * h * 3:
        fail(f"{path} is short: {len(pixels)} of {w * h * 3} bytes")
    return w, h, pixels


class Board:
    """The board as a screen of w x h shows it at content offset (ox, oy)."""

    def __init__(self, tt, rows, w, h, ox, oy):
        self.tt, self.w, self.h, self.ox, self.oy = tt, w, h, ox, oy
        self.departures = tt.make_departures(rows)
        self.clock_y = (tt.CLOCK_H - 7 * tt.BIG) // 2
        self.clock_w = (8 * 6 - 1) * tt.BIG
        # The clock's glyphs on screen: x0, y0, x1, y1 (exclusive), or None when off screen.
        x0, y0 = tt.CLOCK_X - ox, self.clock_y - oy
        x1, y1 = x0 + self.clock_w, y0 + 7 * tt.BIG
        if x0 >= 0 and y0 >= 0 and x1 <= w and y1 <= h:
            self.clock_box = (x0, y0, x1, y1)
        elif x1 <= 0 or y1 <= 0 or x0 >= w or y0 >= h:
            self.clock_box = None
        else:
            fail(f"the clock is only partly on screen at offset {ox},{oy}: pick another")

    def read_clock(self, rgb):
        """The time the frame's clock shows, read glyph by glyph from the centres of the font
        cells (amber: set, the clock row's background: clear), or None with why not."""
        tt = self.tt
        on, off = bytes(tt.C_AMBER), bytes(tt.C_CLOCK_BG)
        glyphs = {rows: ch for ch, rows in tt.FONT.items()}
        text = ""
        for k in range(8):
            rows = []
            for r in range(7):
                bits = 0
                for c in range(5):
                    x = tt.CLOCK_X + 6 * k * tt.BIG + c * tt.BIG + tt.BIG // 2 - self.ox
                    y = self.clock_y + r * tt.BIG + tt.BIG // 2 - self.oy
                    p = rgb[(y * self.w + x) * 3:(y * self.w + x) * 3 + 3]
                    if p == on:
                        bits |= 0x10 >> c
                    elif p != off:
                        return None, f"glyph {k + 1} cell ({c}, {r}) at screen ({x}, {y}) is #{p.hex()}"
                rows.append(bits)
            ch = glyphs.get(tuple(rows))
            if ch is None:
                return None, f"glyph {k + 1} is no character of the font: {[f'{b:05b}' for b in rows]}"
            text += ch
        if len(text) != 8 or text[2] != ":" or text[5] != ":" or not text.replace(":", "").isdigit():
            return None, f"the clock reads '{text}', not HH:MM:SS"
        return text, None

    def render(self, clock):
        """The reference frame as RGB bytes, the clock showing `clock`."""
        tt, w, h = self.tt, self.w, self.h
        pool = bytearray(w * h * 4)
        tile = {"offset": 0, "stride": w * 4, "pixelWidth": w, "pixelHeight": h, "scale": 1,
                "x": self.ox, "y": self.oy, "width": w, "height": h}

        class Clock:   # what draw() calls time.strftime for
            @staticmethod
            def strftime(_):
                return clock or "00:00:00"
        real, tt.time = tt.time, Clock
        try:
            tt.draw(tt.Tile(pool, tile), self.departures)
        finally:
            tt.time = real
        rgb = bytearray(w * h * 3)   # the pool is B, G, R, A
        rgb[0::3], rgb[1::3], rgb[2::3] = pool[2::4], pool[1::4], pool[0::4]
        return bytes(rgb)


def first_diff(a, b):
    """The index of the first byte where a and b (equal lengths, not equal) differ."""
    lo, hi = 0, len(a)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def differences(a, b, w, h):
    """Where two frames differ: (rows, x0, y0, x1, y1) bounding box (exclusive), or None."""
    stride, rows, box = w * 3, 0, None
    for y in range(h):
        ra, rb = a[y * stride:(y + 1) * stride], b[y * stride:(y + 1) * stride]
        if ra == rb:
            continue
        rows += 1
        x0 = first_diff(ra, rb) // 3
        x1 = stride // 3 - first_diff(ra[::-1], rb[::-1]) // 3
        box = (x0, y, x1, y + 1) if box is None else (min(box[0], x0), box[1], max(box[2], x1), y + 1)
    return None if box is None else (rows, *box)


def check(board, rgb, name):
    """The frame is the board at the offset; returns the clock read (or None, off screen)."""
    clock = None
    if board.clock_box:
        clock, why = board.read_clock(rgb)
        if clock is None:
            fail(f"{name}: cannot read the clock: {why}")
    want = board.render(clock)
    diff = differences(want, rgb, board.w, board.h)
    if diff:
        rows, x0, y0, x1, y1 = diff
        at = (y0 * board.w + x0) * 3
        fail(f"{name} is not the board at offset {board.ox},{board.oy}: {rows} rows differ, in x {x0}..{x1 - 1} "
             f"y {y0}..{y1 - 1}; first at screen ({x0}, {y0}): #{rgb[at:at + 3].hex()}, "
             f"the board has #{want[at:at + 3].hex()} there")
    said = f"the clock reads {clock} at screen {board.clock_box[:2]}" if clock else "the clock is off screen"
    print(f"  board: {name}: every pixel of {board.w}x{board.h} is the board at offset "
          f"{board.ox},{board.oy}; {said}")
    return clock


def seconds(hms):
    h, m, s = (int(v) for v in hms.split(":"))
    return h * 3600 + m * 60 + s


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--timetable", required=True, help="examples/provider/timetable.py")
    p.add_argument("--rows", type=int, default=200, help="the provider's --rows (default %(default)s)")
    p.add_argument("--offset", required=True, help="X,Y: the content offset the frame shows (rounded)")
    p.add_argument("frames", nargs="+", metavar="FRAME.ppm")
    a = p.parse_args()
    if len(a.frames) > 2:
        p.error("one frame, or two")
    try:
        # Rounded as flickd rounds at zoom 1 (Swift's rounded(): halves away from zero).
        ox, oy = (int(math.copysign(math.floor(abs(float(v)) + 0.5), float(v))) for v in a.offset.split(","))
    except ValueError:
        p.error("--offset X,Y")
    tt = load_timetable(a.timetable)

    w, h, first = read_ppm(a.frames[0])
    board = Board(tt, a.rows, w, h, ox, oy)
    clock = check(board, first, a.frames[0].rsplit("/", 1)[-1])
    if clock:
        now = time.strftime("%H:%M:%S")   # the provider's clock: the same machine, the same zone
        lag = (seconds(now) - seconds(clock)) % 86400
        if lag > 60:
            fail(f"the clock reads {clock}, the time here is {now}: it is not the live clock")
    if len(a.frames) == 1:
        return

    w2, h2, later = read_ppm(a.frames[1])
    if (w2, h2) != (w, h):
        fail(f"the frames' sizes differ: {w}x{h}, {w2}x{h2}")
    name = a.frames[1].rsplit("/", 1)[-1]
    clock2 = check(board, later, name)
    if not clock:
        fail("the clock is off screen at this offset: nothing to see update")
    ahead = (seconds(clock2) - seconds(clock)) % 86400
    if not 1 <= ahead <= 60:
        fail(f"the clock went from {clock} to {clock2}: not a live clock ({ahead} s ahead)")
    diff = differences(first, later, w, h)
    if diff is None:
        fail("the two frames are identical")
    rows, x0, y0, x1, y1 = diff
    cx0, cy0, cx1, cy1 = board.clock_box
    if x0 < cx0 or y0 < cy0 or x1 > cx1 or y1 > cy1:
        fail(f"pixels changed outside the clock: x {x0}..{x1 - 1} y {y0}..{y1 - 1}, "
             f"the clock is x {cx0}..{cx1 - 1} y {cy0}..{cy1 - 1}")
    below = max(0, tt.CLOCK_H - oy)   # the first screen row under the clock row
    if first[below * w * 3:] != later[below * w * 3:]:
        fail("the rows under the clock row changed")
    print(f"  board: {clock} -> {clock2} ({ahead} s): the changed pixels (x {x0}..{x1 - 1}, y {y0}..{y1 - 1}, "
          f"{rows} rows) are all inside the clock (x {cx0}..{cx1 - 1}, y {cy0}..{cy1 - 1}); "
          f"rows {below}..{h - 1} are identical")


if __name__ == "__main__":
    main()
