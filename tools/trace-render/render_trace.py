#!/usr/bin/env python3
"""Draws a weft timeline trace (WEFT_TRACE=file.json) as an SVG picture.

One row per track, in the order the trace's sort indices give (each device's
streams, its host-function thread, its SM workers); complete events ("X") are
rectangles labelled with their names where they fit, instant events ("i") are
small triangles. For a picture in documentation, where a browser and
https://ui.perfetto.dev are not at hand; Standard-library Python only.

    render_trace.py trace.json -o trace.svg [--width 1600] [--from-ms A] [--to-ms B] [--title TEXT]
"""

import argparse
import colorsys
import hashlib
import json
import math
import sys
from xml.sax.saxutils import escape

ROW = 26  # pixels per track
LABEL = 200  # width of the track-name column
TOP = 56  # title and time axis
CHAR = 6.6  # average width of a character at font-size 11


def colour(name):
    """The same name always gets the same colour, so one kernel reads as one colour across tracks."""
    h = int(hashlib.md5(name.encode()).hexdigest()[:6], 16) / 0xFFFFFF
    r, g, b = colorsys.hls_to_rgb(h, 0.72, 0.55)
    return "#%02x%02x%02x" % (int(r * 255), int(g * 255), int(b * 255))


def fitted(text, width):
    """The label cut to what fits in `width` pixels, or '' when nothing useful fits."""
    room = int((width - 6) / CHAR)
    if room >= len(text):
        return text
    return text[: room - 1] + "\u2026" if room >= 4 else ""


def load(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    processes, threads, order = {}, {}, {}
    for e in events:
        if e.get("ph") != "M":
            continue
        if e["name"] == "process_name":
            processes[e["pid"]] = e["args"]["name"]
        elif e["name"] == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e["name"] == "thread_sort_index":
            order[(e["pid"], e["tid"])] = e["args"]["sort_index"]
    slices = [e for e in events if e.get("ph") in ("X", "i")]
    tracks = sorted({(e["pid"], e["tid"]) for e in slices} | set(threads), key=lambda t: (t[0], order.get(t, t[1])))
    names = {t: "%s / %s" % (processes.get(t[0], "pid %s" % t[0]), threads.get(t, "tid %s" % t[1])) for t in tracks}
    return slices, tracks, names


def tick_step(span_ms, width):
    """A round step in milliseconds (1, 2 or 5 times a power of ten) giving ticks at least 100 pixels apart."""
    target = span_ms * 100 / max(width, 1)
    power = 10 ** math.floor(math.log10(target))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= target)


def render(slices, tracks, names, width, begin_ms, end_ms, title):
    plot = width - LABEL - 10
    span = max(end_ms - begin_ms, 1e-6)

    def x(ms):
        return LABEL + (ms - begin_ms) / span * plot

    row = {t: i for i, t in enumerate(tracks)}
    height = TOP + ROW * len(tracks) + 10
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="DejaVu Sans, sans-serif" '
        'font-size="11">' % (width, height),
        '<rect width="100%" height="100%" fill="white"/>',
        '<text x="8" y="18" font-size="14" font-weight="bold">%s</text>' % escape(title),
    ]
    for i, t in enumerate(tracks):
        y = TOP + i * ROW
        if i % 2:
            out.append('<rect x="0" y="%d" width="%d" height="%d" fill="#f3f3f3"/>' % (y, width, ROW))
        out.append('<text x="8" y="%d">%s</text>' % (y + ROW * 0.65, escape(names[t])))
    step = tick_step(span, plot)
    k = int(begin_ms / step)
    while k * step <= end_ms:
        ms = k * step
        if ms >= begin_ms:
            out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#cccccc"/>' % (x(ms), TOP - 6, x(ms), height))
            out.append(
                '<text x="%.1f" y="%d" text-anchor="middle" fill="#555555">%g ms</text>' % (x(ms), TOP - 10, round(ms, 6))
            )
        k += 1
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888888"/>' % (LABEL, TOP, LABEL, height - 10))
    # A graph launch's span is drawn first, as an outline around its nodes' slices.
    def is_span(e):
        return e["ph"] == "X" and e.get("args", {}).get("span") == "graph launch"

    for e in sorted(slices, key=lambda e: not is_span(e)):
        t = (e["pid"], e["tid"])
        y = TOP + row[t] * ROW
        start = e["ts"] / 1000
        if e["ph"] == "X":
            stop = start + e["dur"] / 1000
            if stop < begin_ms or start > end_ms:
                continue
            x0, x1 = max(x(start), LABEL), min(x(stop), width - 10)
            w = max(x1 - x0, 1)
            tip = "%s (%.3f ms) %s" % (e["name"], e["dur"] / 1000, json.dumps(e.get("args", {})))
            if is_span(e):
                out.append(
                    '<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="none" stroke="#1f4e9c" '
                    'stroke-dasharray="4 2"><title>%s</title></rect>' % (x0, y + 1, w, ROW - 2, escape(tip))
                )
                continue
            out.append(
                '<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" stroke="#555555" stroke-width="0.5">'
                "<title>%s</title></rect>" % (x0, y + 3, w, ROW - 6, colour(e["name"]), escape(tip))
            )
            label = fitted(e["name"], w)
            if label:
                out.append('<text x="%.1f" y="%d">%s</text>' % (x0 + 3, y + ROW * 0.65, escape(label)))
        elif begin_ms <= start <= end_ms:
            xi = x(start)
            out.append(
                '<path d="M %.1f %d l -5 -8 h 10 z" fill="#d62728"><title>%s</title></path>'
                % (xi, y + ROW - 4, escape(e["name"]))
            )
            # Near the right edge the label goes to the marker's left.
            left = xi + 6 + len(e["name"]) * CHAR > width
            out.append(
                '<text x="%.1f" y="%d" fill="#d62728" text-anchor="%s">%s</text>'
                % (xi - 6 if left else xi + 6, y + 11, "end" if left else "start", escape(e["name"]))
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--from-ms", type=float)
    parser.add_argument("--to-ms", type=float)
    parser.add_argument("--title", default="")
    a = parser.parse_args()
    slices, tracks, names = load(a.trace)
    if not slices:
        sys.exit("render_trace.py: %s has no events" % a.trace)
    begin = a.from_ms if a.from_ms is not None else min(e["ts"] for e in slices) / 1000
    end = a.to_ms if a.to_ms is not None else max(e["ts"] + e.get("dur", 0) for e in slices) / 1000
    with open(a.output, "w") as f:
        f.write(render(slices, tracks, names, a.width, begin, end, a.title or a.trace))


if __name__ == "__main__":
    main()
