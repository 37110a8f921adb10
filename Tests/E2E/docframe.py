#!/usr/bin/python3
"""Tests/E2E/docframe.py — scenario 15's frame check (standard library only): is a frame grabbed
from vkms the PDF menu as poppler draws it, at the offset flickd reports?

    docframe.py --offset X,Y --screen 1024x768 --gap 16 --background '#203040'
                --points 504x376 FRAME.ppm PAGE1.ppm PAGE2.ppm ...

PAGEn.ppm is page n rendered by poppler (pdftocairo, cairo like flickd-render, but not its
code) at the size the layout gives it. The document is laid out as docs/documents.md says for
paging on in the horizontal direction: page i has the i-th screen-sized cell, its paper the page
fitted (aspect kept, whole px) into the cell inset by gap/2 on every side and centred (the odd
pixel after); the rest is the display's background. The expected screen at the offset is built
from that and compared pixel by pixel: a pixel is off when one of its channels differs by more
than OFF (antialiased edges where the helper's tiles meet may differ a little from one whole
page drawn at once). It passes when at most ALLOWED of the pixels are off and the mean
difference is under MEAN. It also says, for every other page put in its place, how much of
the screen would be off: the frame must be this page, not just something like it.
"""
import argparse
import sys

OFF, ALLOWED, MEAN = 24, 0.002, 1.5


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    fields, at = [], 0
    while len(fields) < 4:
        while data[at:at + 1].isspace():
            at += 1
        if data[at:at + 1] == b"#":
            at = data.index(b"\n", at)
            continue
        end = at
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[at:end])
        at = end
    if fields[0] != b"P6" or fields[3] != b"255":
        sys.exit(f"docframe.py: {path} is not an 8-bit binary PPM")
    width, height = int(fields[1]), int(fields[2])
    return width, height, data[at + 1:at + 1 + width * height * 3]


def fitted(cell, gap, points):
    """The paper's size in a cell, as DocumentLayout fits it (rounded half away from zero)."""
    inset = (max(1, cell[0] - gap), max(1, cell[1] - gap))
    scale = min(inset[0] / points[0], inset[1] / points[1])
    return tuple(max(1, int(points[k] * scale + 0.5)) for k in (0, 1))


def expected(screen, offset, cell, paper, pages, background):
    """The screen's rows as the layout puts the pages, PAGES[i] in cell i."""
    left, top = (cell[0] - paper[0]) // 2, (cell[1] - paper[1]) // 2
    rows = []
    for sy in range(screen[1]):
        cy = sy + offset[1]
        py = cy - top
        row = bytearray()
        sx = 0
        while sx < screen[0]:
            # The run of screen pixels inside cell i: background, paper, background.
            i = (sx + offset[0]) // cell[0]
            cell_end = min(screen[0], (i + 1) * cell[0] - offset[0])
            paper_start = paper_end = cell_end
            if 0 <= i < len(pages) and 0 <= py < paper[1]:
                x0 = i * cell[0] + left - offset[0]
                paper_start = min(cell_end, max(sx, x0))
                paper_end = max(paper_start, min(cell_end, x0 + paper[0]))
            row += background * (paper_start - sx)
            if paper_end > paper_start:
                at = (py * paper[0] + paper_start - x0) * 3
                row += pages[i][at:at + (paper_end - paper_start) * 3]
            row += background * (cell_end - paper_end)
            sx = cell_end
        rows.append(bytes(row))
    return rows


def compare(frame, rows, width, step=1):
    """(pixels off, mean difference, largest difference) over every step-th row and column."""
    off = total = largest = count = 0
    for y in range(0, len(rows), step):
        got = frame[y * width * 3:(y + 1) * width * 3]
        want = rows[y]
        for x in range(0, width * 3, 3 * step):
            d = max(abs(got[x] - want[x]), abs(got[x + 1] - want[x + 1]), abs(got[x + 2] - want[x + 2]))
            total += d
            count += 1
            if d > OFF:
                off += 1
            if d > largest:
                largest = d
    return off, total / count, largest, count


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--offset", required=True)
    parser.add_argument("--screen", default="1024x768")
    parser.add_argument("--gap", type=int, default=16)
    parser.add_argument("--background", default="#000000")
    parser.add_argument("--points", required=True)
    parser.add_argument("frame")
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args()
    offset = tuple(int(v) for v in args.offset.split(","))
    screen = tuple(int(v) for v in args.screen.split("x"))
    points = tuple(float(v) for v in args.points.split("x"))
    background = bytes.fromhex(args.background.lstrip("#"))
    width, height, frame = read_ppm(args.frame)
    if (width, height) != screen:
        sys.exit(f"docframe.py: the frame is {width}x{height}, not {screen[0]}x{screen[1]}")
    paper = fitted(screen, args.gap, points)
    pages = []
    for path in args.pages:
        w, h, data = read_ppm(path)
        if (w, h) != paper:
            sys.exit(f"docframe.py: {path} is {w}x{h}; the layout's paper is {paper[0]}x{paper[1]}")
        pages.append(data)
    index = (offset[0] + screen[0] // 2) // screen[0]
    if not 0 <= index < len(pages):
        sys.exit(f"docframe.py: offset {args.offset} is outside the {len(pages)} pages")
    off, mean, largest, count = compare(frame, expected(screen, offset, screen, paper, pages, background), width)
    verdict = off <= ALLOWED * count and mean < MEAN
    print(f"{args.frame}: page {index} at offset {args.offset}: {off} of {count} pixels off by more "
          f"than {OFF} (at most {int(ALLOWED * count)}), mean difference {mean:.3f} (under {MEAN}), "
          f"largest {largest}: {'the page as poppler draws it' if verdict else 'NOT the page'}")
    # Every other page in this one's place, on a sample (every 4th row and column): far off.
    for other in range(len(pages)):
        if other == index:
            continue
        swapped = pages[:]
        swapped[index] = pages[other]
        o, m, _, n = compare(frame, expected(screen, offset, screen, paper, swapped, background), width, 4)
        print(f"  page {other} in its place: {100 * o / n:.1f} % of the sampled pixels off, mean {m:.1f}")
        if o <= ALLOWED * n:
            verdict = False
            print(f"  page {other} matches too: the pages are not told apart here")
    sys.exit(0 if verdict else 1)


main()
