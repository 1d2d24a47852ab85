#!/usr/bin/env python3
"""Draws a Chrome trace written by torch::profiler::profile (or //tools:train
--profile) as a timeline picture, the way Perfetto lays it out: one track per
thread with its ranges stacked by nesting, the forward-to-backward flow arrows,
and the "CPU memory" counter below. It is for documentation and quick looks
where no browser is at hand; Perfetto (https://ui.perfetto.dev) remains the
tool to explore a trace.

  python3 tools/profiling/trace_timeline.py trace.json timeline.png \\
      [--window ProfilerStep#1] [--title TEXT]

--window names a range: only the time it covers is drawn (default: all).
Needs gnuplot with the pngcairo terminal (Debian's gnuplot-nox).
"""

import argparse
import json
import subprocess
import sys
import tempfile
import zlib

CATEGORY_COLORS = {
    "cpu_op": ["#4e79a7", "#6b9bd1", "#2f5f8a", "#86b0dc", "#3b6fa0"],
    "backward": ["#f28e2b", "#f5a55a", "#d9771a", "#f7bb82"],
    "user_annotation": ["#59a14f", "#7fbf73"],
    "backend": ["#b07aa1"],
}


def fail(message):
    sys.exit("trace_timeline: error: " + message)


def load(path):
    try:
        with open(path) as f:
            root = json.load(f)
    except (OSError, ValueError) as e:
        fail("cannot read the trace '%s': %s" % (path, e))
    events = root.get("traceEvents") if isinstance(root, dict) else None
    if not isinstance(events, list):
        fail("'%s' is not a Chrome trace (no traceEvents list)" % path)
    return events


def ranges_of(events):
    """Per thread: (start, end, depth, name, category), from B/E pairs."""
    names, open_by_tid, ranges = {}, {}, {}
    for e in events:
        ph = e.get("ph")
        if ph == "M" and e.get("name") == "thread_name":
            names[e["tid"]] = e["args"]["name"]
        elif ph == "B":
            open_by_tid.setdefault(e["tid"], []).append(e)
        elif ph == "E":
            stack = open_by_tid.get(e["tid"])
            if not stack:
                fail("an end event without a begin on thread %s" % e["tid"])
            b = stack.pop()
            ranges.setdefault(e["tid"], []).append(
                (float(b["ts"]), float(e["ts"]), len(stack), b.get("name", ""),
                 b.get("cat", "")))
    return names, ranges


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace")
    parser.add_argument("png")
    parser.add_argument("--window", help="draw only the time this range covers")
    parser.add_argument("--title", default="")
    args = parser.parse_args()

    events = load(args.trace)
    names, ranges = ranges_of(events)
    if not ranges:
        fail("the trace has no ranges to draw")
    all_ranges = [r for rs in ranges.values() for r in rs]
    t0 = min(r[0] for r in all_ranges)
    t1 = max(r[1] for r in all_ranges)
    if args.window:
        chosen = [r for r in all_ranges if r[3] == args.window]
        if not chosen:
            fail("no range named '%s' in the trace" % args.window)
        t0, t1 = chosen[0][0], chosen[0][1]
    span = max(t1 - t0, 1e-3)

    def ms(ts):
        return (ts - t0) / 1000.0

    # Tracks from the top: each thread takes one row per nesting level.
    tids = sorted(t for t in ranges if any(r[1] >= t0 and r[0] <= t1 for r in ranges[t]))
    row_of, tics, y = {}, [], 0.0
    for tid in tids:
        depth = max(r[2] for r in ranges[tid] if r[1] >= t0 and r[0] <= t1) + 1
        row_of[tid] = y
        tics.append(('"%s"' % names.get(tid, "thread %s" % tid), y + depth / 2.0))
        y += depth + 0.6
    height = y

    def top(tid, depth):  # rows grow downwards
        return height - row_of[tid] - depth

    lines = []
    n = 0
    for tid in tids:
        for start, end, depth, name, cat in ranges[tid]:
            if end < t0 or start > t1:
                continue
            n += 1
            palette = CATEGORY_COLORS.get(cat, ["#9c9c9c"])
            color = palette[zlib.crc32(name.encode()) % len(palette)]
            x0, x1 = ms(max(start, t0)), ms(min(end, t1))
            ytop = top(tid, depth)
            lines.append('set object %d rect from %.6f,%.3f to %.6f,%.3f fc rgb "%s" '
                         'fs solid 1.0 border lc rgb "#303030" lw 0.5 front' %
                         (n, x0, ytop - 0.92, x1, ytop, color))
            # A label where the box has room for it (about 0.65% of the window
            # per character at this picture's width).
            label = name.replace("autograd::engine::evaluate_function: ", "")
            if (x1 - x0) > span / 1000.0 * 0.0065 * len(label):
                lines.append('set label "%s" at %.6f,%.3f center front font ",8" tc rgb "white"' %
                             (label.replace('"', "'"), (x0 + x1) / 2, ytop - 0.46))
    # Flow arrows: forward op -> backward Node, from the bottom of the op's
    # box to the top of the Node's (the deepest range that starts at the
    # flow's time on its thread).
    def box_at(tid, ts):
        deepest = None
        for start, end, depth, name, cat in ranges.get(tid, []):
            if start == ts and (deepest is None or depth > deepest):
                deepest = depth
        return deepest if deepest is not None else 0

    starts, finishes = {}, {}
    for e in events:
        if e.get("ph") == "s":
            starts[e["id"]] = e
        elif e.get("ph") == "f":
            finishes[e["id"]] = e
    for fid, s in starts.items():
        f = finishes.get(fid)
        if f is None or s["tid"] not in row_of or f["tid"] not in row_of:
            continue
        if not (t0 <= float(s["ts"]) <= t1 and t0 <= float(f["ts"]) <= t1):
            continue
        s_ts, f_ts = float(s["ts"]), float(f["ts"])
        lines.append('set arrow from %.6f,%.3f to %.6f,%.3f lc rgb "#c0392b" lw 1.2 '
                     'head filled size screen 0.008,20 front' %
                     (ms(s_ts), top(s["tid"], box_at(s["tid"], s_ts)) - 0.92,
                      ms(f_ts), top(f["tid"], box_at(f["tid"], f_ts))))
    memory = [(ms(float(e["ts"])), e["args"]["Allocated"] / (1024.0 * 1024.0))
              for e in events if e.get("ph") == "C" and t0 <= float(e["ts"]) <= t1]

    script = ["set terminal pngcairo noenhanced size 1400,%d font 'DejaVu Sans,9'" %
              (260 + 34 * height + (180 if memory else 0)),
              "set output '%s'" % args.png.replace("'", "''")]
    if memory:
        script += ["set multiplot layout 2,1 margins 0.14,0.98,0.08,0.93 spacing 0,0.08"]
    script += ["set title '%s'" % (args.title or args.trace).replace("'", "''"),
               "set xrange [0:%.6f]" % (span / 1000.0),
               "set yrange [0:%.3f]" % height,
               "set ytics (%s) scale 0" % ", ".join("%s %.3f" % (t, height - y_)
                                                    for t, y_ in tics),
               "set xlabel 'time (ms)'", "set grid x", "unset key"] + lines
    if memory:
        script.remove("set xlabel 'time (ms)'")
    script += ["plot -1 notitle", "unset xlabel"]
    if memory:
        data = "\n".join("%.6f %.6f" % m for m in memory)
        script += ["unset object", "unset label", "unset arrow", "set title 'CPU memory allocated (MiB)'",
                   "set autoscale y", "set ytics auto scale 1", "set grid y",
                   "set xlabel 'time (ms)'",
                   "$mem << EOD", data, "EOD",
                   "plot $mem using 1:2 with steps lw 2 lc rgb '#59a14f'",
                   "unset multiplot"]
    with tempfile.NamedTemporaryFile("w", suffix=".gp", delete=False) as f:
        f.write("\n".join(script) + "\n")
        gp = f.name
    try:
        subprocess.run(["gnuplot", gp], check=True)
    except FileNotFoundError:
        fail("gnuplot was not found on PATH; install Debian's gnuplot-nox")
    except subprocess.CalledProcessError as e:
        fail("gnuplot failed (exit %d) on %s" % (e.returncode, gp))
    print("timeline: %s (%d ranges, %d memory points, %.3f ms)" %
          (args.png, n, len(memory), span / 1000.0))


if __name__ == "__main__":
    main()
