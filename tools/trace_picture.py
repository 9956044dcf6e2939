#!/usr/bin/env python3
"""Draws a kernel's launch from the CPU emulator's trace: what every thread did, step by step.

The trace (docs/trace_format.md) comes from `reduce_ladder --stage K --impl labs --trace F.json`
(or --picture, which runs this script itself). Each frame of the drawing is one step of one
block: the time between two of its barriers. A frame shows

  - shared memory as rows of 32 words, one column per bank (the banks are numbered on top):
    the value each word holds at the end of the step; words stored in the step are green,
    words loaded are outlined blue, words of a request with a bank conflict are outlined
    orange, words two threads raced on are red;
  - the block's threads as rows of 32 lanes (one row per warp): lanes that touched memory or
    met their warp in this step are dark, idle lanes light; at a fault, the lanes that waited
    at a barrier are orange and those that had exited are crossed;
  - what the step read and wrote in global memory, per array, with the width of the loads;
  - the source lines that ran in the step, and what went wrong in it (a race with both lines
    and values, a stale read with the store no fence published, a read past the end of the
    input, a fault and where every thread stood).

Output: a self-contained HTML page (inline CSS and JS, no network) where a reader steps
through the launch, clicks a lane to follow one thread (its accesses and lines), and picks the
block size, launch, block and implementation (--compare: the reference's beside the lab's);
or, with --svg, one static SVG of every step of one block, for the docs.

Usage: trace_picture.py TRACE.json -o OUT.html
       trace_picture.py TRACE.json --svg OUT.svg [--impl labs] [--threads 64] [--launch 0] [--block 0]
Standard library only: the student edition ships this file.
"""
import argparse
import base64
import gzip
import html
import json
import sys

VERSION = 1

# Geometry, in CSS pixels of a page 1280 px wide: every text is at least 11 px.
FONT = 12
SMALL = 11
CELL_W = 34
CELL_H = 22
LANE_H = 14
LEFT = 92          # the row labels' column
WIDTH = LEFT + 32 * CELL_W + 24
TEXT_LINE = 17


def esc(text):
    return html.escape(str(text), quote=True)


def short(value):
    """A value as it fits a 34 px cell at 11 px: 4 characters at most."""
    if isinstance(value, list):
        value = value[0]
    if value is None:
        return ""
    v = int(value)
    if v == 0x5A5A5A5A:
        return "?"          # the emulator's poison: shared memory no thread wrote
    if -999 <= v <= 9999:
        return str(v)
    for div, unit in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if abs(v) >= div:
            q = v / div
            text = ("%.0f" % q) + unit
            return text if len(text) <= 4 else ("-" if v < 0 else "") + ">" + unit
    return str(v)


def full(value):
    if isinstance(value, list):
        return "(" + ", ".join(str(v) for v in value) + ")"
    if value == 0x5A5A5A5A:
        return "%d (never written: the emulator's poison)" % value
    return str(value)


# ----------------------------------------------------------------------------- the model

class Frame:
    """One step of one block: everything a picture of it needs."""

    def __init__(self, step):
        self.step = step
        self.active = set()
        self.loads = {}      # word -> threads
        self.stores = {}     # word -> threads
        self.conflicts = set()
        self.conflict_requests = 0
        self.raced = set()
        self.lines = {}      # line -> threads
        self.by_thread = {}  # thread -> [text]
        self.global_text = []
        self.errors = []
        self.barrier_line = 0
        self.states = {}     # thread -> state at a fault
        self.memory = {}     # word -> value at the end of the step


def line_key(line):
    return line if isinstance(line, int) else str(line)


def describe_line(line, source):
    if isinstance(line, int) and line > 0:
        if source and 0 < line <= len(source):
            return "line %d: %s" % (line, source[line - 1].strip())
        return "line %d" % line
    return "line %s" % line if line else "(no line)"


def array_name(arrays, aid):
    if aid is None or aid < 0 or aid >= len(arrays):
        return "memory"
    return arrays[aid]["name"]


def element(arrays, aid, offset, nbytes):
    a = arrays[aid] if 0 <= aid < len(arrays) else None
    size = 4 if nbytes <= 4 else nbytes
    if a is None:
        return "memory[%d]" % offset
    return "%s[%d]" % (a["name"], offset // size) if offset >= 0 else "%s[%d]" % (a["name"], -((-offset) // size))


def build_block(trace, launch_index, block_index, source, problem):
    """The frames of one block, and its launch's threads."""
    launch = trace["launches"][launch_index]
    block = launch["blocks"][block_index]
    arrays = trace["arrays"]
    threads = launch["block"][0] * launch["block"][1] * launch["block"][2]
    steps = block["steps"]
    frames = [Frame(s) for s in range(len(steps))]
    for s, info in enumerate(steps):
        frames[s].barrier_line = info.get("barrier_line", 0)
        mask = info.get("active", "")
        for k, ch in enumerate(mask):
            nibble = int(ch, 16)
            for j in range(4):
                if nibble >> j & 1:
                    frames[s].active.add(4 * k + j)
    memory = {}
    shared_words = 0
    # per (step, warp, k): the words the k-th shared access of each lane asked for
    requests = {}
    nth = {}
    for ev in block["events"]:
        t, s, op = ev[0], ev[1], ev[2]
        if s >= len(frames):
            continue
        f = frames[s]
        if op in ("ld", "st", "atom"):
            aid, offset, nbytes, value, line = ev[3], ev[4], ev[5], ev[6], ev[7]
            a = arrays[aid] if 0 <= aid < len(arrays) else {"space": "global", "name": "memory"}
            f.lines.setdefault(line_key(line), set()).add(t)
            if a["space"] == "shared":
                base = a.get("offset", 0)
                word = (base + offset) // 4
                words = [word + k for k in range(max(1, (nbytes + 3) // 4))]
                values = value if isinstance(value, list) else [value]
                for k, w in enumerate(words):
                    (f.stores if op != "ld" else f.loads).setdefault(w, set()).add(t)
                    if op != "ld":
                        memory[w] = values[k] if k < len(values) else values[-1]
                    elif w not in memory:
                        memory[w] = values[k] if k < len(values) else values[-1]
                    shared_words = max(shared_words, w + 1)
                key = (s, t)
                k = nth.get(key, 0)
                nth[key] = k + 1
                requests.setdefault((s, t // 32, k), []).extend(words)
                what = "%s %s = %s" % ("loads" if op == "ld" else "stores" if op == "st" else "atomic on",
                                       element(arrays, aid, offset, nbytes), full(value))
            else:
                what = "%s %s = %s (%d bytes)" % ("loads" if op == "ld" else "stores" if op == "st" else "atomic on",
                                                  element(arrays, aid, offset, nbytes), full(value), nbytes)
                if op == "atom":
                    what += ", now %s" % full(ev[8])
            f.by_thread.setdefault(t, []).append("%s (%s)" % (what, describe_line(line, source)))
        elif op == "bar":
            f.by_thread.setdefault(t, []).append("waits at %s (%s)" % (ev[4], describe_line(ev[3], source)))
        elif op == "warp":
            name, mask, value, result = ev[4], ev[5], ev[6], ev[7]
            f.lines.setdefault(line_key(ev[3]), set()).add(t)
            f.by_thread.setdefault(t, []).append("%s(0x%08x, %s) gets %s (%s)" % (
                name, mask & 0xFFFFFFFF, value, result, describe_line(ev[3], source)))
        elif op == "fence":
            f.lines.setdefault(line_key(ev[3]), set()).add(t)
            f.by_thread.setdefault(t, []).append("__threadfence() (%s)" % describe_line(ev[3], source))
        f.memory = dict(memory)
    # carry memory forward into steps where nothing changed
    last = {}
    for f in frames:
        if not f.memory:
            f.memory = dict(last)
        last = f.memory
    for (s, warp, k), words in requests.items():
        banks = {}
        for w in set(words):
            banks.setdefault(w % 32, set()).add(w)
        worst = max(len(v) for v in banks.values())
        if worst > 1:
            frames[s].conflict_requests += 1
            for v in banks.values():
                if len(v) > 1:
                    frames[s].conflicts.update(v)
    # global memory: per array and operation, how many threads, which elements, how wide
    for f, s in zip(frames, range(len(frames))):
        summary = {}
        for ev in block["events"]:
            if ev[1] != s or ev[2] not in ("ld", "st", "atom"):
                continue
            aid = ev[3]
            a = arrays[aid] if 0 <= aid < len(arrays) else None
            if a is None or a["space"] != "global":
                continue
            entry = summary.setdefault((a["name"], ev[2], ev[5]), [set(), None, None])
            entry[0].add(ev[0])
            index = ev[4] // (4 if ev[5] <= 4 else ev[5])
            entry[1] = index if entry[1] is None else min(entry[1], index)
            entry[2] = index if entry[2] is None else max(entry[2], index)
        for (name, op, nbytes), (who, lo, hi) in sorted(summary.items()):
            verb = {"ld": "loaded", "st": "stored", "atom": "made atomics on"}[op]
            unit = {1: "byte", 2: "short", 4: "int", 8: "8-byte pair", 16: "int4"}.get(nbytes, "%d bytes" % nbytes)
            f.global_text.append("%d thread%s %s %s %s[%s] (%s%s)" % (
                len(who), "" if len(who) == 1 else "s", verb, "" if op == "atom" else "",
                name, lo if lo == hi else "%d..%d" % (lo, hi), unit, "" if nbytes == 4 else ", %d bytes each" % nbytes))
    return frames, shared_words, threads


def attach_errors(trace, launch_index, block_index, frames, arrays, source, problem):
    """Puts each error of this block into the frame of its step; returns the list."""
    found = []
    for err in trace.get("errors", []):
        if err.get("launch") != launch_index or err.get("block") != block_index:
            continue
        step = err.get("step")
        if step is None or step >= len(frames):
            step = len(frames) - 1
        f = frames[step]
        kind = err["kind"]
        if kind == "race":
            first, second = err["accesses"]
            a = arrays[err["array"]] if 0 <= err["array"] < len(arrays) else None
            if a is not None and a["space"] == "shared":
                f.raced.add((a.get("offset", 0) + err["offset"]) // 4)
            text = ("race on %s: thread %d %s %s (%s) and thread %d %s %s (%s) in the same step, with no "
                    "barrier between them" % (
                        element(arrays, err["array"], err["offset"], 4), first["thread"],
                        "stored" if first["op"] == "st" else "loaded", full(first["value"]),
                        describe_line(first["line"], source), second["thread"],
                        "stored" if second["op"] == "st" else "loaded", full(second["value"]),
                        describe_line(second["line"], source)))
            f.errors.append(("race", text, [first["thread"], second["thread"]]))
        elif kind == "stale_read":
            store, load = err["accesses"]
            text = ("stale read of %s: thread %d loaded %s (%s), but block %d had stored %s there (%s) and no "
                    "__threadfence() published it before its atomic" % (
                        element(arrays, err["array"], err["offset"], 4), load["thread"], full(load["value"]),
                        describe_line(load["line"], source), err["stored_by_block"], full(store["value"]),
                        describe_line(store["line"], source)))
            f.errors.append(("stale_read", text, [load["thread"]]))
        elif kind == "past_the_end":
            acc = err["accesses"][0]
            a = arrays[err["array"]]
            n = a.get("valid_bytes", 0) // 4
            text = ("thread %d %s %s, past the end of %s (%d elements: 0..%d) (%s)" % (
                acc["thread"], "loaded" if acc["op"] == "ld" else "stored",
                element(arrays, err["array"], err["offset"], 4), a["name"], n, n - 1,
                describe_line(acc["line"], source)))
            f.errors.append(("past_the_end", text, [acc["thread"]]))
        elif kind == "races_not_listed":
            f.errors.append(("race", "and %d more racing words" % err["count"], []))
        else:
            for run in err.get("threads", []):
                for t in range(run["first"], run["last"] + 1):
                    f.states[t] = (run["state"], run["line"])
            waiting = [r for r in err.get("threads", []) if r["state"] == "barrier"]
            where = describe_line(err.get("line") or (waiting[0]["line"] if waiting else 0), source)
            text = "%s: %s (%s)" % (kind.replace("_", " "), err.get("message", ""), where)
            threads = [err["thread"]] if err.get("thread") is not None else []
            f.errors.append((kind, text, threads))
        found.append(err)
    if problem.get("op") == "argmin":
        lost_ties(trace, launch_index, block_index, frames, source)
    return found


def lost_ties(trace, launch_index, block_index, frames, source):
    """Argmin: a thread that met two equal values and kept the larger index lost a tie."""
    block = trace["launches"][launch_index]["blocks"][block_index]
    seen = {}
    for ev in block["events"]:
        t, s, op = ev[0], ev[1], ev[2]
        if op != "warp" or not ev[4].startswith("__shfl"):
            continue
        seen.setdefault((t, s), []).append(ev)
    for (t, s), evs in seen.items():
        # shuffles come in pairs: a value, then its index (the kit's argmin kernels shuffle both)
        for k in range(0, len(evs) - 1, 2):
            mine_v, other_v = evs[k][6], evs[k][7]
            mine_i, other_i = evs[k + 1][6], evs[k + 1][7]
            if mine_v == other_v and mine_i != other_i and evs[k][4] == evs[k + 1][4]:
                nxt = evs[k + 2] if k + 2 < len(evs) else None
                kept = nxt[6] if nxt is not None and k + 3 < len(evs) else None
                kept_i = evs[k + 3][6] if k + 3 < len(evs) else None
                if kept_i is not None and kept_i == max(mine_i, other_i) and kept_i != min(mine_i, other_i):
                    f = frames[s]
                    f.errors.append(("lost_tie", "lost tie: thread %d held value %d at index %d and was shown the same "
                                     "value at index %d; it kept index %d, but ties go to the smallest index (%s)" % (
                                         t, mine_v, mine_i, other_i, kept_i, describe_line(evs[k][3], source)), [t]))
                    return


# ----------------------------------------------------------------------------- SVG

class Svg:
    def __init__(self):
        self.parts = []
        self.y = 0

    def text(self, x, y, s, size=FONT, cls="", anchor="start", weight=None, title=None):
        attrs = ' x="%d" y="%d" font-size="%d"' % (x, y, size)
        if anchor != "start":
            attrs += ' text-anchor="%s"' % anchor
        if cls:
            attrs += ' class="%s"' % cls
        if weight:
            attrs += ' font-weight="%s"' % weight
        inner = esc(s)
        if title:
            inner = "<title>%s</title>%s" % (esc(title), inner)
        self.parts.append("<text%s>%s</text>" % (attrs, inner))

    def rect(self, x, y, w, h, cls, title=None, extra=""):
        inner = "<title>%s</title>" % esc(title) if title else ""
        self.parts.append('<rect x="%d" y="%d" width="%d" height="%d" class="%s"%s>%s</rect>' % (
            x, y, w, h, cls, extra, inner))


def wrap(text, width_px, size=FONT):
    per_line = max(20, int(width_px / (size * 0.6)))
    words, lines, line = text.split(" "), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > per_line:
            lines.append(line)
            line = w
        else:
            line = (line + " " + w) if line else w
    if line:
        lines.append(line)
    return lines


def draw_frame(svg, frame, frames_total, shared_words, threads, source, title, y0, tips=True):
    """One step, from y0 down; returns the y below it."""
    y = y0 + 18
    end = describe_line(frame.barrier_line, source) if frame.barrier_line else "the end of the block"
    svg.text(8, y, "%s, step %d of %d (ends at %s)" % (title, frame.step + 1, frames_total, end), FONT, "head",
             weight="bold")
    y += 8
    words = max(32, (shared_words + 31) // 32 * 32)
    if shared_words:
        y += 16
        svg.text(8, y, "bank", SMALL, "label")
        for b in range(32):
            svg.text(LEFT + b * CELL_W + CELL_W // 2, y, str(b), SMALL, "bank", anchor="middle")
        y += 6
        for row in range(words // 32):
            svg.text(8, y + 15, "word %d" % (row * 32), SMALL, "label")
            for b in range(32):
                w = row * 32 + b
                cls = ["cell"]
                who = set()
                if w in frame.stores:
                    cls.append("st")
                    who |= frame.stores[w]
                if w in frame.loads:
                    cls.append("ld")
                    who |= frame.loads[w]
                if w in frame.conflicts:
                    cls.append("conflict")
                if w in frame.raced:
                    cls.append("race")
                cls.extend("t%d" % t for t in sorted(who))
                value = frame.memory.get(w)
                tip = "word %d (bank %d) = %s" % (w, b, full(value) if value is not None else "untouched")
                if who:
                    tip += "; threads " + ", ".join(str(t) for t in sorted(who)[:8]) + (" ..." if len(who) > 8 else "")
                svg.rect(LEFT + b * CELL_W, y, CELL_W - 2, CELL_H - 2, " ".join(cls), tip if tips else None)
                if value is not None:
                    svg.text(LEFT + b * CELL_W + CELL_W // 2 - 1, y + 15, short(value), SMALL, "value", anchor="middle")
            y += CELL_H
    y += 10
    # the warps' lanes
    warps = (threads + 31) // 32
    y += 4
    for warp in range(warps):
        svg.text(8, y + 11, "warp %d" % warp, SMALL, "label")
        for lane in range(min(32, threads - 32 * warp)):
            t = 32 * warp + lane
            cls = "lane on" if t in frame.active else "lane off"
            state = frame.states.get(t)
            tip = "thread %d" % t
            if state:
                cls += " " + ("waiting" if state[0] == "barrier" else "exited" if state[0] == "exited" else "stuck")
                tip += ": %s at %s" % ("waits at a barrier" if state[0] == "barrier" else state[0],
                                       describe_line(state[1], source))
            svg.rect(LEFT + lane * CELL_W, y, CELL_W - 2, LANE_H - 2, cls + " t%d" % t, tip if tips or state else None,
                     ' data-thread="%d"' % t)
        y += LANE_H
    y += 6
    active = len(frame.active)
    stats = "%d of %d threads active" % (active, threads)
    if frame.conflict_requests:
        stats += "; %d shared-memory request%s with bank conflicts (orange)" % (
            frame.conflict_requests, "" if frame.conflict_requests == 1 else "s")
    y += TEXT_LINE
    svg.text(8, y, stats, FONT, "note")
    for text in frame.global_text:
        y += TEXT_LINE
        svg.text(8, y, "global: " + text, FONT, "note")
    lines = sorted(frame.lines.items(), key=lambda kv: (not isinstance(kv[0], int), str(kv[0]) if not isinstance(kv[0], int) else "%08d" % kv[0]))
    for line, who in lines[:8]:
        for part in wrap("%s  (%d thread%s)" % (describe_line(line, source), len(who), "" if len(who) == 1 else "s"),
                         WIDTH - 40):
            y += TEXT_LINE
            svg.text(8, y, part, FONT, "src")
    for kind, text, _ in frame.errors:
        for part in wrap(text, WIDTH - 40):
            y += TEXT_LINE
            svg.text(8, y, part, FONT, "error", weight="bold")
    return y + 12


STYLE = """
text { font-family: 'DejaVu Sans Mono', monospace; fill: #222; }
text.head { fill: #000; } text.bank { fill: #555; } text.label { fill: #444; }
text.error { fill: #b00000; } text.src { fill: #123; } text.value { pointer-events: none; }
rect.cell { fill: #fff; stroke: #bbb; stroke-width: 1; }
rect.cell.ld { stroke: #1f5fbf; stroke-width: 2; } rect.cell.st { fill: #bfe8bf; }
rect.cell.conflict { stroke: #e07800; stroke-width: 3; } rect.cell.race { fill: #ff8c8c; stroke: #b00000; stroke-width: 3; }
rect.lane.on { fill: #37598a; } rect.lane.off { fill: #e3e6ea; }
rect.lane.waiting { fill: #f0a030; } rect.lane.exited { fill: #c8c8c8; stroke: #700; stroke-dasharray: 3 2; }
rect.sel { stroke: #d000d0 !important; stroke-width: 3 !important; }
"""


def svg_document(body, height, style=True):
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">'
            '%s<rect x="0" y="0" width="%d" height="%d" fill="#fff"/>%s</svg>' % (
                WIDTH, height, WIDTH, height, "<style>%s</style>" % STYLE if style else "", WIDTH, height, body))


# ----------------------------------------------------------------------------- views

def load(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("format") != "kit-emulator-trace":
        raise SystemExit("%s is not a trace of the kit's emulator (format %r)" % (path, doc.get("format")))
    if doc.get("version") != VERSION:
        raise SystemExit("%s is a trace of version %s; this script draws version %d" % (
            path, doc.get("version"), VERSION))
    return doc


def views(doc, max_launches=3, max_blocks=3):
    """Every (impl, run, launch, block) the trace holds, with its frames drawn as SVG."""
    out = []
    problem = doc.get("problem", {})
    for ii, impl in enumerate(doc["impls"]):
        source = impl.get("source_lines")
        for ri, run in enumerate(impl["runs"]):
            trace = run["trace"]
            arrays = trace["arrays"]
            for li, launch in enumerate(trace["launches"][:max_launches]):
                for bi, block in enumerate(launch["blocks"][:max_blocks]):
                    frames, shared_words, threads = build_block(trace, li, bi, source, problem)
                    attach_errors(trace, li, bi, frames, arrays, source, problem)
                    title = "%s, %d threads, launch %d (%s), block %s" % (
                        impl["impl"], run["threads"], li + 1, launch["kernel"],
                        ",".join(str(x) for x in block["index"]) if block["index"][1:] != [0, 0] else block["index"][0])
                    rendered = []
                    for f in frames:
                        svg = Svg()
                        y = draw_frame(svg, f, len(frames), shared_words, threads, source, title, 0, tips=False)
                        rendered.append({
                            "svg": svg_document("".join(svg.parts), y, style=False),
                            "lines": [k for k in f.lines.keys() if isinstance(k, int)],
                            "threads": {str(t): v for t, v in f.by_thread.items()},
                            "errors": [[k, text, who] for k, text, who in f.errors],
                        })
                    out.append({"impl": ii, "run": ri, "launch": li, "block": bi, "frames": rendered,
                                "blocks_run": launch["blocks_run"]})
    return out


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%(title)s</title>
<style>
body { font-family: 'DejaVu Sans', sans-serif; font-size: 14px; margin: 12px; color: #222; max-width: 1400px; }
h1 { font-size: 20px; margin: 4px 0 8px; }
#controls { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin-bottom: 8px; }
#controls label { font-size: 14px; }
button, select { font-size: 14px; padding: 3px 8px; }
#result { margin: 6px 0; font-size: 14px; } #result.bad { color: #b00000; font-weight: bold; }
#errors { margin: 6px 0; } #errors li { color: #b00000; cursor: pointer; margin: 2px 0; }
#main { display: flex; flex-direction: column; gap: 10px; }
#frame { flex: none; } #side { display: flex; gap: 14px; align-items: flex-start; font-size: 13px; }
#side > div { flex: 1; min-width: 240px; }
#source { font-family: 'DejaVu Sans Mono', monospace; font-size: 12px; white-space: pre; border: 1px solid #ccc;
          max-height: 420px; overflow: auto; padding: 4px; }
#source div.hit { background: #fff2a8; } #source div.mine { background: #f7c6f7; }
#thread { margin-top: 8px; } #thread li { margin: 2px 0; }
table.counters { border-collapse: collapse; margin-top: 8px; font-size: 13px; }
table.counters td, table.counters th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
%(svgstyle)s
</style></head><body>
<h1>%(title)s</h1>
<div id="controls">
 <label>implementation <select id="impl"></select></label>
 <label>block size <select id="run"></select></label>
 <label>launch <select id="launch"></select></label>
 <label>block <select id="block"></select></label>
 <button id="prev">&larr; step</button>
 <span id="stepno"></span>
 <button id="next">step &rarr;</button>
 <label>thread <input id="pick" type="number" min="0" style="width: 70px"></label>
</div>
<div id="result"></div>
<ul id="errors"></ul>
<div id="main"><div id="frame"></div>
<div id="side"><div id="thread"></div><div id="source"></div><div id="counters"></div></div></div>
<script id="data" type="application/octet-stream">%(data)s</script>
<script>
%(script)s
</script>
</body></html>
"""

SCRIPT = r"""
let D = null;
const S = {impl: 0, run: 0, launch: 0, block: 0, step: 0, thread: null};
const $ = (id) => document.getElementById(id);
function view() {
  return D.views.find(v => v.impl === S.impl && v.run === S.run && v.launch === S.launch && v.block === S.block);
}
function fill(select, items, value) {
  select.innerHTML = '';
  items.forEach(([v, text]) => { const o = document.createElement('option'); o.value = v; o.textContent = text;
    select.appendChild(o); });
  select.value = value;
}
function options() {
  fill($('impl'), D.impls.map((m, i) => [i, m.impl]), S.impl);
  const runs = D.impls[S.impl].runs;
  if (S.run >= runs.length) S.run = 0;
  fill($('run'), runs.map((r, i) => [i, r.threads + ' threads, n = ' + r.n]), S.run);
  const launches = [...new Set(D.views.filter(v => v.impl === S.impl && v.run === S.run).map(v => v.launch))];
  if (!launches.includes(S.launch)) S.launch = launches[0];
  fill($('launch'), launches.map(l => [l, 'launch ' + (l + 1) + ': ' + D.impls[S.impl].runs[S.run].launches[l]]), S.launch);
  const blocks = D.views.filter(v => v.impl === S.impl && v.run === S.run && v.launch === S.launch).map(v => v.block);
  if (!blocks.includes(S.block)) S.block = blocks[0];
  fill($('block'), blocks.map(b => [b, 'block ' + D.impls[S.impl].runs[S.run].blocks[S.launch][b] + ' (ran ' + (b + 1) + ')']), S.block);
}
function show() {
  options();
  const v = view();
  if (S.step >= v.frames.length) S.step = v.frames.length - 1;
  if (S.step < 0) S.step = 0;
  const f = v.frames[S.step];
  $('frame').innerHTML = f.svg;
  $('stepno').textContent = 'step ' + (S.step + 1) + ' of ' + v.frames.length;
  $('stepno').dataset.steps = v.frames.length;
  const run = D.impls[S.impl].runs[S.run];
  const res = $('result');
  res.textContent = run.status === 'OK' ? 'right answer: ' + run.got
      : 'wrong: expected ' + run.expected + (run.got ? ', got ' + run.got : '') + '. ' + run.message;
  res.className = run.status === 'OK' ? '' : 'bad';
  const errs = $('errors'); errs.innerHTML = '';
  D.views.filter(w => w.impl === S.impl && w.run === S.run).forEach(w => w.frames.forEach((fr, s) => fr.errors.forEach(e => {
    const li = document.createElement('li');
    li.className = 'error ' + e[0];
    li.textContent = 'launch ' + (w.launch + 1) + ', block ' + D.impls[S.impl].runs[S.run].blocks[w.launch][w.block] +
      ', step ' + (s + 1) + ': ' + e[1];
    li.onclick = () => { S.launch = w.launch; S.block = w.block; S.step = s; if (e[2].length) S.thread = e[2][0]; show(); };
    errs.appendChild(li);
  })));
  const src = D.impls[S.impl].source_lines;
  const box = $('source'); box.innerHTML = '';
  const mine = new Set();
  const tdiv = $('thread'); tdiv.innerHTML = '';
  if (S.thread !== null) {
    document.querySelectorAll('#frame .t' + S.thread).forEach(e => e.classList.add('sel'));
    const items = f.threads[String(S.thread)] || [];
    const h = document.createElement('div');
    h.textContent = 'thread ' + S.thread + (items.length ? ' in this step:' : ': nothing in this step');
    tdiv.appendChild(h);
    const ul = document.createElement('ul');
    items.forEach(t => { const li = document.createElement('li'); li.textContent = t; ul.appendChild(li);
      const m = /\bline (\d+)/.exec(t); if (m) mine.add(Number(m[1])); });
    tdiv.appendChild(ul);
  }
  if (src) {
    src.forEach((text, i) => { const d = document.createElement('div'); d.textContent = String(i + 1).padStart(4) + '  ' + text;
      if (mine.has(i + 1)) d.className = 'mine'; else if (f.lines.includes(i + 1)) d.className = 'hit';
      box.appendChild(d); });
    const hit = box.querySelector('div.mine') || box.querySelector('div.hit');
    if (hit) box.scrollTop = Math.max(0, hit.offsetTop - box.offsetTop - 60);
  } else {
    box.textContent = 'lines of this step: ' + (f.lines.join(', ') || 'none') + ' (the reference solution\'s source is not shown)';
  }
  const c = $('counters'); c.innerHTML = '';
  const rows = D.impls.map(m => m.runs[S.run] && m.runs[S.run].counters);
  if (rows.some(r => r)) {
    const keys = Object.keys(rows.find(r => r));
    let t = '<table class="counters"><tr><th>pass 1</th>' + D.impls.map(m => '<th>' + m.impl + '</th>').join('') + '</tr>';
    keys.forEach(k => { t += '<tr><td style="text-align:left">' + k.replace(/_/g, ' ') + '</td>' +
      rows.map(r => '<td>' + (r ? r[k] : '-') + '</td>').join('') + '</tr>'; });
    c.innerHTML = t + '</table>';
  }
}
$('impl').onchange = e => { S.impl = Number(e.target.value); S.step = 0; show(); };
$('run').onchange = e => { S.run = Number(e.target.value); S.step = 0; show(); };
$('launch').onchange = e => { S.launch = Number(e.target.value); S.block = 0; S.step = 0; show(); };
$('block').onchange = e => { S.block = Number(e.target.value); S.step = 0; show(); };
$('prev').onclick = () => { S.step--; show(); };
$('next').onclick = () => { S.step++; show(); };
$('pick').onchange = e => { S.thread = e.target.value === '' ? null : Number(e.target.value); show(); };
$('frame').onclick = e => { const t = e.target.closest('[data-thread]'); if (t) { S.thread = Number(t.dataset.thread);
  $('pick').value = S.thread; show(); } };
document.onkeydown = e => { if (e.key === 'ArrowRight') { S.step++; show(); } if (e.key === 'ArrowLeft') { S.step--; show(); } };
/* The frames are gzip'd in the page (a block of 256 threads draws 768 boxes a step): the
   browser's own DecompressionStream unpacks them, with no network. */
(async () => {
  const text = document.getElementById('data').textContent.trim();
  const bytes = Uint8Array.from(atob(text), c => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  D = JSON.parse(await new Response(stream).text());
  show();
  document.body.dataset.ready = '1';
})();
"""


def page(doc):
    vs = views(doc)
    impls = []
    for impl in doc["impls"]:
        runs = []
        for run in impl["runs"]:
            trace = run["trace"]
            runs.append({"threads": run["threads"], "n": run["n"], "status": run["status"],
                         "message": run["message"], "expected": run["expected"], "got": run["got"],
                         "counters": run.get("counters"),
                         "launches": ["%s<<<%d, %d>>>" % (l["kernel"], l["grid"][0], l["block"][0])
                                      for l in trace["launches"]],
                         "blocks": [[b["index"][0] for b in l["blocks"]] for l in trace["launches"]]})
        impls.append({"impl": impl["impl"], "runs": runs, "source_lines": impl.get("source_lines")})
    title = "Stage %d (%s): what every thread did" % (doc["stage"], doc["title"])
    raw = json.dumps({"impls": impls, "views": vs}, separators=(",", ":")).encode()
    data = base64.b64encode(gzip.compress(raw, 9, mtime=0)).decode()
    return PAGE % {"title": esc(title), "data": data, "script": SCRIPT, "svgstyle": STYLE}


def static_svg(doc, impl=None, threads=None, launch=0, block=0):
    """Every step of one block, one under the other."""
    ii = 0
    if impl is not None:
        names = [m["impl"] for m in doc["impls"]]
        if impl not in names:
            raise SystemExit("the trace has no implementation %r (it has %s)" % (impl, ", ".join(names)))
        ii = names.index(impl)
    runs = doc["impls"][ii]["runs"]
    ri = 0
    if threads is not None:
        sizes = [r["threads"] for r in runs]
        if threads not in sizes:
            raise SystemExit("the trace was made for %s threads, not %d" % (", ".join(map(str, sizes)), threads))
        ri = sizes.index(threads)
    trace = runs[ri]["trace"]
    if launch >= len(trace["launches"]) or block >= len(trace["launches"][launch]["blocks"]):
        raise SystemExit("the trace has no launch %d, block %d" % (launch, block))
    source = doc["impls"][ii].get("source_lines")
    problem = doc.get("problem", {})
    frames, shared_words, nthreads = build_block(trace, launch, block, source, problem)
    attach_errors(trace, launch, block, frames, trace["arrays"], source, problem)
    svg = Svg()
    y = 0
    title = "Stage %d, %d threads" % (doc["stage"], runs[ri]["threads"])
    for f in frames:
        y = draw_frame(svg, f, len(frames), shared_words, nthreads, source, title, y)
    return svg_document("".join(svg.parts), y)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trace")
    parser.add_argument("-o", "--output", help="the HTML page to write")
    parser.add_argument("--svg", help="write one block's steps as a static SVG instead")
    parser.add_argument("--impl")
    parser.add_argument("--threads", type=int)
    parser.add_argument("--launch", type=int, default=0)
    parser.add_argument("--block", type=int, default=0)
    args = parser.parse_args(argv)
    doc = load(args.trace)
    if args.svg:
        text = static_svg(doc, args.impl, args.threads, args.launch, args.block)
        out = args.svg
    elif args.output:
        text = page(doc)
        out = args.output
    else:
        parser.error("give -o OUT.html or --svg OUT.svg")
    with open(out, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
