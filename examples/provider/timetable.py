#!/usr/bin/env python3
"""A flickd content provider in pure Python: a departures board with a live clock.

flickd asks for tiles; this app draws each into its shared-memory pool and answers. The page is
a generated timetable (a clock row, a header, then `--rows` departures), drawn with a built-in
5x7 bitmap font as filled rectangles, so it needs nothing beyond the standard library. Every
second it invalidates the clock row, and flickd asks again for the tiles of it on screen.

    python3 examples/provider/timetable.py [--socket PATH] [--rows N] [--exit-after SECONDS]

See README.md beside this file, and "Content providers" in docs/protocol.md.
"""

import argparse
import fcntl
import json
import math
import mmap
import os
import random
import selectors
import socket
import sys
import time
from collections import OrderedDict, deque

PROTOCOL_VERSION = 2  # the control protocol this app was written for

# --- The page (unscaled content pixels) ------------------------------------------------------

WIDTH = 1920
CLOCK_H = 112          # row 0: title and live clock; invalidated every second
HEADER_H = 64          # column titles
ROW_H = 96             # one departure
ROWS_TOP = CLOCK_H + HEADER_H
BIG, TEXT, SMALL = 8, 6, 4   # content pixels per font cell: a glyph is 5x7 cells, advance 6
COLUMNS = (("TIME", 60), ("DESTINATION", 360), ("PLATFORM", 1260), ("STATUS", 1500))
CLOCK_X = WIDTH - 60 - (8 * 6 - 1) * BIG   # "HH:MM:SS" right-aligned, 60 px margin

BACKGROUND = "#101820"                     # flickd's background until a tile is drawn
C_CLOCK_BG, C_HEADER_BG = (0x10, 0x18, 0x20), (0x22, 0x2c, 0x38)
C_ROW_BG = ((0x18, 0x22, 0x2e), (0x1e, 0x2a, 0x38))
C_TEXT, C_DIM, C_AMBER = (0xf2, 0xf2, 0xea), (0x8a, 0x9a, 0xaa), (0xff, 0xb3, 0x1a)
C_GREEN, C_RED = (0x5c, 0xd6, 0x6a), (0xff, 0x5a, 0x4f)

DESTINATIONS = ("AMSTERDAM CENTRAAL", "BRUSSELS MIDI", "LONDON ST PANCRAS", "PARIS NORD",
                "KOELN HBF", "FRANKFURT MAIN HBF", "ZURICH HB", "MILANO CENTRALE", "WIEN HBF",
                "PRAHA HL N", "BERLIN HBF", "HAMBURG HBF", "BASEL SBB", "LYON PART-DIEU")

# 5x7 glyphs: seven rows, top first, each five bits (0x10 = leftmost column).
FONT = {
    " ": (0, 0, 0, 0, 0, 0, 0), ":": (0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0),
    "-": (0, 0, 0, 0x1F, 0, 0, 0), ".": (0, 0, 0, 0, 0, 0x0C, 0x0C),
    "0": (0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E), "1": (0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E),
    "2": (0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F), "3": (0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E),
    "4": (0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02), "5": (0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E),
    "6": (0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E), "7": (0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08),
    "8": (0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E), "9": (0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C),
    "A": (0x0E, 0x11, 0x11, 0x11, 0x1F, 0x11, 0x11), "B": (0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E),
    "C": (0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E), "D": (0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C),
    "E": (0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F), "F": (0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10),
    "G": (0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F), "H": (0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11),
    "I": (0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E), "J": (0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C),
    "K": (0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11), "L": (0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F),
    "M": (0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11), "N": (0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11),
    "O": (0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E), "P": (0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10),
    "Q": (0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D), "R": (0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11),
    "S": (0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E), "T": (0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04),
    "U": (0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E), "V": (0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04),
    "W": (0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A), "X": (0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11),
    "Y": (0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04), "Z": (0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F),
}


def glyph_runs(rows):
    """A glyph as horizontal runs (row, first column, end column): one fill per run, not per cell."""
    runs = []
    for r, bits in enumerate(rows):
        c = 0
        while c < 5:
            if bits & (0x10 >> c):
                start = c
                while c < 5 and bits & (0x10 >> c):
                    c += 1
                runs.append((r, start, c))
            else:
                c += 1
    return runs


RUNS = {ch: glyph_runs(rows) for ch, rows in FONT.items()}


def make_departures(count):
    """The timetable: (time, destination, platform, status, status colour), the same every run."""
    rnd = random.Random(2024)
    minutes, rows = 5 * 60, []
    for _ in range(count):
        minutes += rnd.randint(2, 9)
        delay = rnd.choice((0, 0, 0, 0, 0, 5, 10, -1))
        status = (("ON TIME", C_GREEN) if delay == 0 else ("CANCELLED", C_RED) if delay < 0
                  else (f"DELAYED {delay}", C_AMBER))
        rows.append((f"{minutes // 60 % 24:02d}:{minutes % 60:02d}", rnd.choice(DESTINATIONS),
                     str(rnd.randint(1, 18)), *status))
    return rows


# --- Drawing one tile ------------------------------------------------------------------------

def px(rgb):
    """An opaque pixel as flickd wants it: bytes B, G, R, then A (0xAARRGGBB little-endian)."""
    return bytes((rgb[2], rgb[1], rgb[0], 0xFF))


class Tile:
    """One tile's pixels in the pool, drawn in content coordinates.

    Pixel (i, j) shows the content point (x + (i + 1/2) / scale, y + (j + 1/2) / scale), so a
    content edge c falls on the level's pixel ceil(c * scale - 1/2): the first whose centre is
    past it. Every shape is snapped that way in *level* pixels, so neighbouring tiles of one
    level agree at their seam whatever they were drawn from.
    """

    def __init__(self, pool, t):
        self.mm, self.off, self.stride = pool, t["offset"], t["stride"]
        self.w, self.h, self.s = t["pixelWidth"], t["pixelHeight"], t["scale"]
        self.ox, self.oy = self.edge(t["x"]), self.edge(t["y"])   # the tile's origin, level px
        self.x0, self.y0 = t["x"], t["y"]
        self.x1, self.y1 = t["x"] + t["width"], t["y"] + t["height"]
        if not (self.s > 0 and 0 < self.w * 4 <= self.stride and self.h > 0 and self.off >= 0
                and self.off + (self.h - 1) * self.stride + self.w * 4 <= len(pool)):
            raise ValueError("the tile does not fit in the pool")

    def edge(self, c):
        return math.ceil(c * self.s - 0.5)

    def fill_px(self, i0, j0, i1, j1, pixel):
        """Fill level pixels [i0, i1) x [j0, j1), clipped to the tile: one slice per row."""
        i0, i1 = max(i0 - self.ox, 0), min(i1 - self.ox, self.w)
        j0, j1 = max(j0 - self.oy, 0), min(j1 - self.oy, self.h)
        if i0 >= i1 or j0 >= j1:
            return
        row, start = pixel * (i1 - i0), self.off + i0 * 4
        for j in range(j0, j1):
            a = start + j * self.stride
            self.mm[a:a + len(row)] = row

    def rect(self, x0, y0, x1, y1, rgb):
        """Fill a content rectangle; one that would vanish at this scale keeps one pixel."""
        i0, j0 = self.edge(x0), self.edge(y0)
        self.fill_px(i0, j0, max(self.edge(x1), i0 + 1), max(self.edge(y1), j0 + 1), px(rgb))

    def text(self, x, y, s, cell, rgb):
        """Blocky text, its top-left at content (x, y), `cell` content px per font cell.

        Zoomed out, the cells stay whole pixels (at least one): small text stays crisp text, not
        a blur. Much below a pixel a cell carries no shape any more; the line is drawn as a
        faint bar where the text is ("greeking"), as a page preview does.
        """
        if x >= self.x1 or y >= self.y1 or y + 7 * cell <= self.y0:
            return
        size = cell * self.s
        if size < 0.75:   # below, 1-px cells would overlap their neighbours: unreadable
            self.rect(x, y + 2 * cell, x + (6 * len(s) - 1) * cell, y + 5 * cell,
                      tuple((a + b) // 2 for a, b in zip(rgb, C_ROW_BG[0])))
            return
        c, pixel = max(1, int(size)), px(rgb)
        for k, ch in enumerate(s):
            gx = x + 6 * k * cell
            if gx >= self.x1:
                break
            if gx + 5 * cell <= self.x0:
                continue
            i, j = self.edge(gx), self.edge(y)
            for r, a, b in RUNS.get(ch, RUNS[" "]):
                self.fill_px(i + a * c, j + r * c, i + b * c, j + (r + 1) * c, pixel)


def draw(tile, departures):
    """Draw the part of the page the tile shows: only the rows it covers."""
    tile.rect(tile.x0, tile.y0, tile.x1, tile.y1, C_ROW_BG[0])   # also past the last row
    if tile.y0 < CLOCK_H:
        tile.rect(0, 0, WIDTH, CLOCK_H, C_CLOCK_BG)
        tile.text(60, (CLOCK_H - 7 * BIG) // 2, "DEPARTURES", BIG, C_TEXT)
        tile.text(CLOCK_X, (CLOCK_H - 7 * BIG) // 2, time.strftime("%H:%M:%S"), BIG, C_AMBER)
    if tile.y0 < ROWS_TOP and tile.y1 > CLOCK_H:
        tile.rect(0, CLOCK_H, WIDTH, ROWS_TOP, C_HEADER_BG)
        for title, x in COLUMNS:
            tile.text(x, CLOCK_H + (HEADER_H - 7 * SMALL) // 2, title, SMALL, C_DIM)
    first = max(0, int((tile.y0 - ROWS_TOP) // ROW_H))
    last = min(len(departures), int((tile.y1 - ROWS_TOP) // ROW_H) + 1)
    for n in range(first, last):
        y = ROWS_TOP + n * ROW_H
        tile.rect(0, y, WIDTH, y + ROW_H, C_ROW_BG[n % 2])
        ty = y + (ROW_H - 7 * TEXT) // 2
        when, where, platform, status, colour = departures[n]
        for (_, x), s, rgb in zip(COLUMNS, (when, where, platform, status),
                                  (C_AMBER, C_TEXT, C_TEXT, colour)):
            tile.text(x, ty, s, TEXT, rgb)


# --- The connection --------------------------------------------------------------------------

def die(message):
    print(f"timetable: {message}", file=sys.stderr)
    sys.exit(1)


class Connection:
    """JSON lines both ways; replies and events interleave, so reading is one dispatch loop."""

    MAX_LINE = 1 << 20   # flickd's lines are far shorter; more without a newline is garbage

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.connect(path)
        except OSError as e:
            die(f"cannot connect to flickd at {path}: {e.strerror} "
                "(is flickd running? set FLICKD_SOCKET or pass --socket PATH)")
        self.buffer, self.inbox, self.next_id, self.sent = b"", deque(), 1, {}

    def send(self, cmd, fds=(), **fields):
        """Send one request; returns its id. Each gets exactly one reply, matched by id."""
        rid, self.next_id = self.next_id, self.next_id + 1
        self.sent[rid] = cmd
        line = (json.dumps({"id": rid, "cmd": cmd, **fields}) + "\n").encode()
        try:
            if fds:
                # The pool must ride on the same sendmsg as its request line (SCM_RIGHTS).
                n = socket.send_fds(self.sock, [line], list(fds))
                line = line[n:]
            self.sock.sendall(line)
        except OSError as e:
            die(f"lost the connection to flickd: {e.strerror}")
        return rid

    def receive(self):
        """Read what has arrived (blocks until some bytes do) into the inbox; exits at the end."""
        try:
            data = self.sock.recv(65536)
        except OSError as e:
            die(f"lost the connection to flickd: {e.strerror}")
        if not data:
            die("flickd closed the connection")
        self.buffer += data
        *lines, self.buffer = self.buffer.split(b"\n")
        if len(self.buffer) > self.MAX_LINE:
            die("a line from flickd is too long")
        for line in lines:
            if line.strip():
                try:
                    self.inbox.append(json.loads(line))
                except ValueError:
                    print(f"timetable: ignoring a malformed line: {line[:80]!r}", file=sys.stderr)

    def wait_reply(self, rid, on_event):
        """Read until the reply to `rid`, handing every event that comes first to on_event.
        What came after the reply stays in the inbox for the main loop."""
        while True:
            while self.inbox:
                m = self.inbox.popleft()
                if "ok" in m and m.get("id") == rid:
                    self.sent.pop(rid, None)
                    return m
                self.dispatch(m, on_event)
            self.receive()

    def dispatch(self, m, on_event):
        if "type" in m:
            on_event(m)
        elif "ok" in m:
            cmd = self.sent.pop(m.get("id"), "?")
            if not m["ok"]:   # e.g. a late `tile` answer to a request flickd gave up: harmless
                print(f"timetable: '{cmd}' refused: {m.get('error')}", file=sys.stderr)


def make_pool(slots, tile_size):
    """The pool flickd maps read-only: a memfd of exactly slots x tileSize^2 x 4 bytes, sealed
    against shrinking (so flickd's mapping can never fault) and growing (it never needs to)."""
    size = slots * tile_size * tile_size * 4
    fd = os.memfd_create("flickd-timetable", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, size)
    # F_ADD_SEALS, F_SEAL_SHRINK and F_SEAL_GROW are in Python 3.9+'s fcntl module.
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
    return fd, mmap.mmap(fd, size)


def main():
    p = argparse.ArgumentParser(description="A departures board drawn for flickd, tile by tile.")
    p.add_argument("--socket", default=os.environ.get("FLICKD_SOCKET", "/run/flickd/control.sock"),
                   help="flickd's control socket (default: $FLICKD_SOCKET, else %(default)s)")
    p.add_argument("--rows", type=int, default=200, help="departures (default %(default)s)")
    p.add_argument("--slots", type=int, default=16, help="tiles drawn at once (1-64)")
    p.add_argument("--tile-size", type=int, default=256, help="tile side in pixels (64-1024)")
    p.add_argument("--name", default="timetable", help="provider name (flickd's provider:NAME)")
    p.add_argument("--exit-after", type=float, metavar="SECONDS", help="quit after this long")
    p.add_argument("--redraw-all", type=float, default=0, metavar="HZ",
                   help="also invalidate the whole board this many times a second (flickd asks for "
                        "its tiles on screen in turn, within content.provider_redraw_hz)")
    a = p.parse_args()
    if not (1 <= a.rows <= 100000 and 1 <= a.slots <= 64 and 64 <= a.tile_size <= 1024 and 0 <= a.redraw_all <= 1000):
        p.error("--rows 1-100000, --slots 1-64, --tile-size 64-1024, --redraw-all 0-1000")

    departures = make_departures(a.rows)
    height = ROWS_TOP + a.rows * ROW_H
    conn = Connection(a.socket)
    pending = OrderedDict()   # request id -> tile, not drawn yet, oldest first

    def on_event(e):
        kind = e["type"]
        if kind == "tileRequest":   # a malformed one fails in draw() and is answered undrawn
            pending[e.get("request")] = e.get("tile")
        elif kind == "tileCancel":
            # Not drawn yet: skip it. Already answered (the usual case, drawing is synchronous):
            # nothing to do; answering twice would be an error.
            if e.get("request") in pending:
                del pending[e["request"]]
                conn.send("tile", request=e["request"], drawn=False)
        elif kind == "tap":
            x, y = e.get("x", 0), e.get("y", 0)
            n = int((y - ROWS_TOP) // ROW_H)
            what = (f"row {n} ({departures[n][0]} {departures[n][1]})" if 0 <= n < len(departures)
                    else "the clock" if y < CLOCK_H else "the header" if y < ROWS_TOP else "nothing")
            print(f"tap at {x:g},{y:g} -> {what}", flush=True)
        # Other events (contentTouch*, doubleTap, longPress, newer ones) are not needed here.

    reply = conn.wait_reply(conn.send("status"), on_event)
    version = reply.get("status", {}).get("protocolVersion") if reply.get("ok") else None
    if version != PROTOCOL_VERSION:
        die(f"flickd speaks control protocol {version or 1}; this app needs {PROTOCOL_VERSION}")

    fd, pool = make_pool(a.slots, a.tile_size)
    rid = conn.send("provide", fds=[fd], width=WIDTH, height=height, tileSize=a.tile_size,
                    slots=a.slots, opaque=True, background=BACKGROUND, name=a.name)
    os.close(fd)   # flickd has its own copy now; ours lives on in the mapping
    reply = conn.wait_reply(rid, on_event)
    if not reply.get("ok"):
        die(f"flickd refused 'provide': {reply.get('error')}")
    print(json.dumps(reply.get("provider")), flush=True)

    sel = selectors.DefaultSelector()
    sel.register(conn.sock, selectors.EVENT_READ)
    deadline = time.monotonic() + a.exit_after if a.exit_after is not None else math.inf
    tick = math.floor(time.time()) + 1   # the next whole second: when the clock changes
    everything = time.monotonic() if a.redraw_all else math.inf   # when to invalidate it all next
    while time.monotonic() < deadline:
        while conn.inbox:   # what has been read, also what came along with a reply
            conn.dispatch(conn.inbox.popleft(), on_event)
        if pending:   # one tile per pass, reading in between: a cancel can still skip the rest
            request, t = pending.popitem(last=False)
            try:
                draw(Tile(pool, t), departures)
                conn.send("tile", request=request)
            except (KeyError, TypeError, ValueError, IndexError) as e:   # a tile it cannot draw
                print(f"timetable: tile {request} not drawn: {e!r}", file=sys.stderr)
                conn.send("tile", request=request, drawn=False)
        if time.time() >= tick:
            conn.send("invalidate", x=0, y=0, width=WIDTH, height=CLOCK_H)
            tick = math.floor(time.time()) + 1
        if time.monotonic() >= everything:
            conn.send("invalidate", x=0, y=0, width=WIDTH, height=height)
            everything = max(everything + 1 / a.redraw_all, time.monotonic())
        wait = 0 if pending else max(0.0, min(tick - time.time(), everything - time.monotonic(), deadline - time.monotonic()))
        if sel.select(wait):
            conn.receive()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
