#!/usr/bin/env python3
"""A fake flickd, just enough to try a content provider without a panel (standard library only).

It listens on a Unix socket, takes one client and plays the provider exchange of
docs/protocol.md: it checks the `provide` request and its pool (a memfd sealed against
shrinking, exactly slots x tileSize^2 x 4 bytes), asks for tiles at scale 1 and 1/4 (edge tiles
included), cancels one before it can be drawn and one after it was, sends a `tap` and an event
type the app cannot know, and checks that every request is answered exactly once, within the
1 s provider timeout, and that each tile answered drawn has more than one colour in it. With
--expect-invalidate it also waits (2.5 s at most) for an `invalidate` and asks again for the
planned tiles it covers; with --refuse it refuses `provide` and expects the app to leave. It
answers every request line. Exit 0: all good; 1: the reason.

    python3 mock_flickd.py --socket /tmp/p.sock [--expect-invalidate] [--dump DIR] &
    python3 timetable.py --socket /tmp/p.sock --exit-after 4

This is a development aid, not flickd: it does not scroll, time out requests or re-ask tiles.
"""

import argparse
import fcntl
import json
import math
import mmap
import os
import re
import selectors
import socket
import struct
import sys
import time
import zlib

MAX_LINE = 64 * 1024


class Fail(Exception):
    pass


def png(path, w, h, rows):
    """Write BGRX rows as an RGB PNG (to look at what was drawn)."""
    raw = b"".join(b"\0" + bytes(v for p in range(w) for v in (r[4*p+2], r[4*p+1], r[4*p])) for r in rows)
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


class Mock:
    def __init__(self, conn, args):
        self.conn, self.args = conn, args
        self.buffer, self.fds, self.out = b"", None, []   # fds: those that came with the line being read
        self.pool = None
        self.outstanding = {}   # request id -> (tile, sent at)
        self.answered = {}      # request id -> drawn
        self.cancelled_after = set()
        self.free_slots, self.queue, self.next_request = [], [], 1
        self.invalidations, self.planned = [], []
        self.cancel_after_answer, self.failures, self.latencies = set(), [], []
        self.refused = False

    # -- wire --
    def send(self, *objs):
        self.out += (json.dumps(o).encode() + b"\n" for o in objs)

    def flush(self):
        """All lines since the last read in one write, as a busy daemon would: a reply and the
        events after it, a request and its cancel, arrive together."""
        if self.out:
            self.conn.sendall(b"".join(self.out))
            self.out = []

    def read_lines(self):
        data, fds, _, _ = socket.recv_fds(self.conn, 65536, 8)
        if fds:
            if self.buffer:
                raise Fail("an fd came in the middle of a line, not with the start of its request")
            self.fds = fds
        if not data:
            return None
        self.buffer += data
        *lines, self.buffer = self.buffer.split(b"\n")
        if len(self.buffer) > MAX_LINE or any(len(l) > MAX_LINE for l in lines):
            raise Fail("a request line over 64 KiB")
        out = []
        for line in lines:
            if line.strip():
                out.append((line, self.fds))
                self.fds = None   # an fd belongs to the first line of its sendmsg only
        return out

    # -- requests --
    def handle(self, line, fds):
        try:
            req = json.loads(line)
        except ValueError:
            raise Fail(f"not JSON: {line[:100]!r}")
        if not isinstance(req, dict) or not isinstance(req.get("cmd"), str):
            raise Fail(f"not a request object with a 'cmd' string: {line[:100]!r}")
        rid, cmd = req.get("id"), req["cmd"]
        if rid is not None and not isinstance(rid, int):
            raise Fail(f"'id' is not an integer: {rid!r}")
        if fds and cmd != "provide":
            raise Fail(f"an fd came with '{cmd}'")
        reply = {"ok": True} if rid is None else {"id": rid, "ok": True}
        if cmd == "status":
            reply["status"] = {"protocolVersion": 2, "version": "mock", "offset": [0, 0], "zoomScale": 1}
        elif cmd == "provide" and self.args.refuse:   # to try the app's error path
            reply.update(ok=False, error=f"'provide': {self.args.refuse}")
            self.refused = True
        elif cmd == "provide":
            reply["provider"] = self.provide(req, fds)
        elif cmd == "tile":
            error = self.tile(req)
            if error:
                reply.update(ok=False, error=f"'tile': request: {error}")
        elif cmd == "invalidate":
            self.invalidate(req)
        else:
            reply.update(ok=False, error=f"cmd: unknown command '{cmd}' (mock)")
        self.send(reply)
        if cmd == "provide" and reply["ok"]:
            self.start_plan()

    def provide(self, req, fds):
        if self.pool is not None:
            raise Fail("a second 'provide'")
        if not fds or len(fds) != 1:
            raise Fail(f"'provide' came with {len(fds or [])} fds, not 1")
        fd = fds[0]
        for key, lo, hi in (("width", 1, 1 << 24), ("height", 1, 1 << 24), ("tileSize", 64, 1024), ("slots", 1, 64)):
            v = req.get(key)
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
                raise Fail(f"'provide': {key} = {v!r}, expected an integer in {lo}...{hi}")
        if "background" in req and not re.fullmatch(r"#[0-9A-Fa-f]{6}", str(req["background"])):
            raise Fail(f"'provide': background {req['background']!r} is not #RRGGBB")
        if "name" in req and not re.fullmatch(r"[A-Za-z0-9._-]{1,64}", str(req["name"])):
            raise Fail(f"'provide': name {req['name']!r}")
        try:
            seals = fcntl.fcntl(fd, fcntl.F_GET_SEALS)
        except OSError:
            raise Fail("the pool is not a memfd (it has no seals)")
        if not seals & fcntl.F_SEAL_SHRINK:
            raise Fail(f"the pool is not sealed with F_SEAL_SHRINK (seals {seals:#x})")
        ts, slots = req["tileSize"], req["slots"]
        size, want = os.fstat(fd).st_size, slots * ts * ts * 4
        if size != want:
            raise Fail(f"the pool is {size} bytes, not slots x tileSize^2 x 4 = {want}")
        self.pool = mmap.mmap(fd, size, prot=mmap.PROT_READ)   # read-only, as flickd maps it
        os.close(fd)
        self.ts, self.slots, self.w, self.h = ts, slots, req["width"], req["height"]
        self.free_slots = list(range(slots))
        self.levels = math.ceil(math.log2(max(self.w, self.h))) + 1
        print(f"mock: provide {self.w}x{self.h}, tileSize {ts}, {slots} slots, {self.levels} levels, "
              f"seals {seals:#x}, name {req.get('name')!r}", file=sys.stderr)
        return {"name": req.get("name", ""), "levels": self.levels, "slotBytes": ts * ts * 4, "stride": ts * 4}

    def tile(self, req):
        r = req.get("request")
        if r not in self.outstanding:
            self.failures.append(f"'tile' for request {r!r}, which is not outstanding"
                                 + (" (answered twice)" if r in self.answered else ""))
            return "not outstanding"
        t, sent = self.outstanding.pop(r)
        ms = (time.monotonic() - sent) * 1000
        self.latencies.append(ms)
        if ms > 1000:
            self.failures.append(f"request {r} answered after {ms:.0f} ms (flickd gives up at 1000)")
        drawn = req.get("drawn", True)
        if drawn not in (True, False):
            self.failures.append(f"request {r}: drawn = {drawn!r}")
        self.answered[r] = drawn
        if drawn:
            self.check_pixels(r, t)
        self.free_slots.append(t["slot"])
        self.pump()
        if r in self.cancel_after_answer:
            self.send(self.event("tileCancel", request=r))   # too late: must not be answered again
        return None

    def check_pixels(self, r, t):
        rows = [self.pool[t["offset"] + j * t["stride"]: t["offset"] + j * t["stride"] + t["pixelWidth"] * 4]
                for j in range(t["pixelHeight"])]
        colours = {row[i:i + 3] for row in rows for i in range(0, len(row), 4)}   # B, G, R
        label = f"level {t['level']} ({t['column']},{t['row']}) scale {t['scale']}"
        if len(colours) < 2:
            if self.ts < 256 and t["column"] == self.last_column(t["level"]):
                print(f"mock: note: {label} is one colour: a page margin at this tile size?", file=sys.stderr)
            else:
                self.failures.append(f"request {r}, {label}: one colour only, nothing drawn")
        print(f"mock: tile {r}, {label}, {t['pixelWidth']}x{t['pixelHeight']}: {len(colours)} colours, "
              f"answered after {self.latencies[-1]:.1f} ms",
              file=sys.stderr)
        if self.args.dump:
            png(os.path.join(self.args.dump, f"tile-{r}-L{t['level']}-{t['column']}-{t['row']}.png"),
                t["pixelWidth"], t["pixelHeight"], rows)

    def invalidate(self, req):
        rect = [req.get(k) for k in ("x", "y", "width", "height")]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in rect):
            raise Fail(f"'invalidate' without numeric x, y, width, height: {req}")
        if not self.invalidations:   # ask again for the planned tiles it covers, as flickd would
            x, y, w, h = rect
            for level, col, row in self.planned:
                t = self.tile_geometry(level, col, row)
                if t["x"] < x + w and x < t["x"] + t["width"] and t["y"] < y + h and y < t["y"] + t["height"]:
                    self.queue.append((level, col, row, False))
            self.pump()
        self.invalidations.append(rect)

    # -- the plan --
    def tile_geometry(self, level, col, row):
        lw, lh, scale = self.w, self.h, 1.0
        for _ in range(self.levels - 1 - level):   # Deep Zoom: half as wide and high, rounded up
            lw, lh, scale = math.ceil(lw / 2), math.ceil(lh / 2), scale / 2
        pw, ph = min(self.ts, lw - col * self.ts), min(self.ts, lh - row * self.ts)
        assert pw > 0 and ph > 0, (level, col, row)
        return {"level": level, "column": col, "row": row, "scale": scale,
                "x": col * self.ts / scale, "y": row * self.ts / scale, "width": pw / scale,
                "height": ph / scale, "pixelWidth": pw, "pixelHeight": ph}

    def last_column(self, level):
        lw = self.w
        for _ in range(self.levels - 1 - level):
            lw = math.ceil(lw / 2)
        return math.ceil(lw / self.ts) - 1

    def start_plan(self):
        top = self.levels - 1
        last_col, q_col = self.last_column(top), self.last_column(top - 2)   # edge tiles
        # Tiles named as 256-px tiles; smaller tiles are taken from the middle of those, so
        # they still show some text, not a blank margin.
        at = lambda c, r: (c, r) if self.ts >= 256 else ((c * 256 + 128) // self.ts, (r * 256 + 128) // self.ts)
        self.planned = [(top, *at(0, 0)), (top, *at(1, 0)), (top, last_col, 0), (top, *at(3, 2)),
                        (top, *at(0, 5)), (top - 2, *at(0, 0)), (top - 2, q_col, 0), (top - 2, *at(0, 3)),
                        (top - 5, *at(0, 0))]
        self.planned = [p for p in dict.fromkeys(self.planned) if self.fits(*p)]
        # (level, col, row, cancel at once): the cancelled one goes out with its request.
        self.queue = [(l, c, r, False) for l, c, r in self.planned]
        cancelled = next(p for p in ((top, *at(2, 1)), (top, *at(1, 1)), (top, 0, 0)) if self.fits(*p))
        self.queue.insert(2, (*cancelled, True))
        self.cancel_after_answer = {1}   # the first request: cancelled once it was answered
        self.send(self.event("contentTouchDown", x=10, y=10, contact=1),
                  self.event("aNewEventType", detail='apps ignore types they do not know: {"x": 1, "tile": [}',
                             nested={"request": 99, "list": [1.5e3, None, True, {"y": -2}]}))
        self.pump()
        self.send(self.event("tap", x=312, y=845))

    def fits(self, level, col, row):
        try:
            self.tile_geometry(level, col, row)
            return True
        except AssertionError:
            return False

    def pump(self):
        while self.queue and self.free_slots:
            level, col, row, cancel = self.queue.pop(0)
            t = self.tile_geometry(level, col, row)
            slot = self.free_slots.pop(0)
            t.update(slot=slot, offset=slot * self.ts * self.ts * 4, stride=self.ts * 4)
            r, self.next_request = self.next_request, self.next_request + 1
            self.outstanding[r] = (t, time.monotonic())
            lines = [self.event("tileRequest", request=r, tile=t)]
            if cancel:
                lines.append(self.event("tileCancel", request=r))
            self.send(*lines)

    def event(self, kind, **fields):
        """An event as flickd's carry them: `t` and the view's state too (see Events)."""
        state = {"offset": [0, 0], "zoomScale": 1, "tracking": False, "dragging": False,
                 "decelerating": False, "zooming": False, "zoomBouncing": False, "scrolling": False}
        return {"type": kind, "t": round(time.monotonic(), 4), **fields, **state}

    def done(self):
        return (self.pool is not None and not self.queue and not self.outstanding
                and (self.invalidations or not self.args.expect_invalidate))

    # -- the run --
    def run(self):
        sel = selectors.DefaultSelector()
        sel.register(self.conn, selectors.EVENT_READ)
        start, provided_at, finished_at = time.monotonic(), None, None
        while True:
            now = time.monotonic()
            if self.failures:
                raise Fail("; ".join(self.failures))
            if finished_at is None and self.done():
                finished_at = now
                print("mock: all checks passed; serving until the client leaves "
                      f"(at most {self.args.linger} s)", file=sys.stderr)
            if finished_at is not None and now - finished_at > self.args.linger:
                return
            if provided_at is None and self.pool is not None:
                provided_at = now
            if finished_at is None:
                if self.args.expect_invalidate and provided_at and not self.invalidations \
                        and now - provided_at > 2.5:
                    raise Fail("no 'invalidate' within 2.5 s of 'provide'")
                if now - start > self.args.timeout:
                    raise Fail(f"timed out: {len(self.outstanding)} requests unanswered, "
                               f"{len(self.queue)} not sent, provided: {self.pool is not None}")
            if not sel.select(0.1):
                continue
            lines = self.read_lines()
            if lines is None:
                if self.refused:
                    return   # the app left after its 'provide' was refused, as it should
                if finished_at is None:
                    raise Fail("the client left before the checks were done")
                return
            for line, fds in lines:
                self.handle(line, fds)
            self.flush()


def main():
    p = argparse.ArgumentParser(description="A fake flickd to try content providers against.")
    p.add_argument("--socket", required=True)
    p.add_argument("--expect-invalidate", action="store_true", help="require an 'invalidate'")
    p.add_argument("--timeout", type=float, default=15, help="seconds for the whole exchange")
    p.add_argument("--linger", type=float, default=10, help="seconds to wait for the client to leave")
    p.add_argument("--dump", metavar="DIR", help="write each drawn tile there as a PNG")
    p.add_argument("--refuse", metavar="REASON", help="refuse 'provide' (the app must then exit)")
    a = p.parse_args()
    if os.path.exists(a.socket):
        os.unlink(a.socket)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(a.socket)
    server.listen(1)
    server.settimeout(a.timeout)
    print(f"mock: listening on {a.socket}", file=sys.stderr)
    try:
        conn, _ = server.accept()
        conn.settimeout(None)
        mock = Mock(conn, a)
        mock.run()
    except (Fail, socket.timeout, OSError) as e:
        print(f"mock: FAIL: {e}", file=sys.stderr)
        sys.exit(1)
    finally:
        os.unlink(a.socket)
    ms = mock.latencies or [0]
    if mock.refused:
        print("mock: OK: 'provide' refused, the client left", file=sys.stderr)
        return
    print(f"mock: OK: {len(mock.answered)} requests answered once each "
          f"({sum(1 for d in mock.answered.values() if d)} drawn), {len(mock.invalidations)} "
          f"invalidations, latency mean {sum(ms) / len(ms):.1f} ms, max {max(ms):.1f} ms", file=sys.stderr)


if __name__ == "__main__":
    main()
