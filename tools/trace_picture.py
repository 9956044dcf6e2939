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
block size, launch, block and implementation (--compare: the reference's beside the lab's),
and, under the step, the blocks' meeting where a launch's blocks meet (each block's loads,
stores and atomics on __device__ variables and its atomics on global memory, in the order the
blocks ran, with the values they left; a stale or early read red, at its line);
or, with --svg, one static SVG of one block from its start to its end (the block's drawing,
below: loads and their sectors, the tree in shared memory with its arrows and banks, the warps'
shuffles lane to lane, the blocks' meeting, what went wrong, the counters). The docs' stage
pages show it for the reference solutions (docs/tools/docs_assets.py), with --no-source and,
where a stage replaces one idea with another, --beside the previous stage's trace.

Usage: trace_picture.py TRACE.json -o OUT.html
       trace_picture.py TRACE.json --svg OUT.svg [--impl labs] [--threads 64] [--launch 0] [--block K]
                        [--no-source] [--beside OTHER.json]
Standard library only: the student edition ships this file.
"""
import argparse
import base64
import gzip
import html
import json
import re
import struct
import sys

VERSION = 2

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


def is_device_scalar(arrays, aid, nbytes=None):
    """A __device__ variable that is one word, not an array: named without an index."""
    a = arrays[aid] if aid is not None and 0 <= aid < len(arrays) else None
    return a is not None and a["space"] == "device" and a["bytes"] <= 16 and (nbytes is None or nbytes == a["bytes"])


def value_text(arrays, aid, value, nbytes=None):
    """A value as the access moved it; a __device__ variable's 8- or 16-byte word in hexadecimal."""
    if isinstance(value, list) and is_device_scalar(arrays, aid):
        return word_text(value, nbytes or 4 * len(value))
    return full(value)


def element(arrays, aid, offset, nbytes):
    a = arrays[aid] if 0 <= aid < len(arrays) else None
    size = 4 if nbytes <= 4 else nbytes
    if a is None:
        return "memory[%d]" % offset
    if is_device_scalar(arrays, aid, nbytes) and offset == 0:
        return a["name"]
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
                                                  element(arrays, aid, offset, nbytes),
                                                  value_text(arrays, aid, value, nbytes), nbytes)
                if op == "atom":
                    what += ", now %s" % value_text(arrays, aid, ev[8], nbytes)
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
            if a is None or a["space"] == "shared":
                continue
            entry = summary.setdefault((a["name"], ev[2], ev[5]), [set(), None, None])
            entry[0].add(ev[0])
            index = ev[4] // (4 if ev[5] <= 4 else ev[5])
            entry[1] = index if entry[1] is None else min(entry[1], index)
            entry[2] = index if entry[2] is None else max(entry[2], index)
        device = dict((a["name"], a) for a in arrays if a["space"] == "device")
        for (name, op, nbytes), (who, lo, hi) in sorted(summary.items()):
            verb = {"ld": "loaded", "st": "stored", "atom": "made atomics on"}[op]
            unit = {1: "byte", 2: "short", 4: "int", 8: "8-byte pair", 16: "int4"}.get(nbytes, "%d bytes" % nbytes)
            if name in device and device[name]["bytes"] == nbytes:  # a __device__ variable of one word
                f.global_text.append("%d thread%s %s the __device__ variable %s (%d bytes, declared at %s)" % (
                    len(who), "" if len(who) == 1 else "s", verb, name, nbytes, describe_line(device[name]["line"], None)))
                continue
            f.global_text.append("%d thread%s %s %s %s[%s] (%s%s)" % (
                len(who), "" if len(who) == 1 else "s", verb, "" if op == "atom" else "",
                name, lo if lo == hi else "%d..%d" % (lo, hi), unit, "" if nbytes == 4 else ", %d bytes each" % nbytes))
    return frames, shared_words, threads


def err_element(arrays, err):
    """The word an error between blocks is about, as its access moved it."""
    value = err["accesses"][0]["value"]
    return element(arrays, err["array"], err["offset"], 4 * len(value) if isinstance(value, list) else 4)


def block_name(trace, launch_index, block_index):
    """Block `block_index` of a launch (the order it ran in) by its blockIdx."""
    blocks = trace["launches"][launch_index]["blocks"]
    if block_index is None or not 0 <= block_index < len(blocks):
        return "?"
    index = blocks[block_index]["index"]
    return str(index[0]) if index[1:] == [0, 0] else ",".join(str(x) for x in index)


def between_blocks_text(trace, launch_index, err, arrays, source):
    """What a stale or early read between blocks was, in words; and the thread that read."""
    if err["kind"] == "stale_read":
        store, load = err["accesses"]
        published = any(e[2] == "atom" for b in trace["launches"][launch_index]["blocks"] for e in b["events"])
        mine = trace["launches"][launch_index]["blocks"][err["block"]]["events"]
        if any(e[2] == "st" and e[0] == load["thread"] and e[3] == err["array"] and e[4] == err["offset"] for e in mine):
            # the block writes the word back: a read-modify-write, which a fence would not mend
            text = ("lost update of %s: thread %d loaded %s (%s) and stored a new value back, but block %s had "
                    "stored %s there (%s): blocks that read a word, change it and store it back overwrite each "
                    "other's work; a read-modify-write of a word other blocks also write must be one atomic "
                    "(atomicAdd returns the value before its add)" % (
                        err_element(arrays, err), load["thread"], value_text(arrays, err["array"], load["value"]),
                        describe_line(load["line"], source), block_name(trace, launch_index, err["stored_by_block"]),
                        value_text(arrays, err["array"], store["value"]), describe_line(store["line"], source)))
            return text, load["thread"]
        text = ("stale read of %s: thread %d loaded %s (%s), but block %s had stored %s there (%s)%s" % (
            err_element(arrays, err), load["thread"], value_text(arrays, err["array"], load["value"]),
            describe_line(load["line"], source), block_name(trace, launch_index, err["stored_by_block"]),
            value_text(arrays, err["array"], store["value"]), describe_line(store["line"], source),
            ", and no __threadfence() between that store and the block's atomic published it"
            if published or store["op"] != "st" else
            ": a plain store is not seen by the other blocks until the kernel ends, unless an atomic or a "
            "__threadfence() publishes it"))
        return text, load["thread"]
    load, later = err["accesses"]
    text = ("early read of %s: thread %d loaded %s (%s). Block %s ran after this block and %s it, leaving %s "
            "(%s): a GPU runs the blocks in any order, so what this block read depends on which ran first" % (
                err_element(arrays, err), load["thread"], value_text(arrays, err["array"], load["value"]),
                describe_line(load["line"], source), block_name(trace, launch_index, err["written_by_block"]),
                "then made its atomic on" if later["op"] == "atom" else "then stored to",
                value_text(arrays, err["array"], later["value"]), describe_line(later["line"], source)))
    return text, load["thread"]


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
        elif kind in ("stale_read", "early_read"):
            text, thread = between_blocks_text(trace, launch_index, err, arrays, source)
            f.errors.append((kind, text, [thread]))
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
    for kind, text, _ in frame.errors[:3]:   # the rest: the folded list above the drawing
        for part in wrap(text, WIDTH - 40):
            y += TEXT_LINE
            svg.text(8, y, part, FONT, "error", weight="bold")
    if len(frame.errors) > 3:
        y += TEXT_LINE
        svg.text(8, y, "... and %d more errors in this step (the list above the drawing has them all)"
                 % (len(frame.errors) - 3), FONT, "error")
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
#errors details summary { cursor: pointer; color: #b00000; margin: 2px 0; }
p.why-no-counters { max-width: 420px; color: #555; }
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
<div id="main"><div id="frame"></div><div id="meeting"></div>
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
  const meeting = (D.meetings || []).find(m => m.impl === S.impl && m.run === S.run && m.launch === S.launch);
  $('meeting').innerHTML = meeting ? meeting.svg : '';
  $('stepno').textContent = 'step ' + (S.step + 1) + ' of ' + v.frames.length;
  $('stepno').dataset.steps = v.frames.length;
  const run = D.impls[S.impl].runs[S.run];
  const res = $('result');
  res.textContent = run.status === 'OK' ? 'right answer: ' + run.got
      : 'wrong: expected ' + run.expected + (run.got ? ', got ' + run.got : '') + '. ' + run.message;
  res.className = run.status === 'OK' ? '' : 'bad';
  /* The errors: the first few, and the rest folded under a count (31 race lines of one missing
     barrier pushed the drawing 870 px down, and the frame said them all again). */
  const errs = $('errors'); errs.innerHTML = '';
  const items = [];
  D.views.filter(w => w.impl === S.impl && w.run === S.run).forEach(w => w.frames.forEach((fr, s) => fr.errors.forEach(e => {
    const li = document.createElement('li');
    li.className = 'error ' + e[0];
    li.textContent = 'launch ' + (w.launch + 1) + ', block ' + D.impls[S.impl].runs[S.run].blocks[w.launch][w.block] +
      ', step ' + (s + 1) + ': ' + e[1];
    li.onclick = (ev) => { ev.stopPropagation(); S.launch = w.launch; S.block = w.block; S.step = s;
      if (e[2].length) S.thread = e[2][0]; show(); };
    items.push(li);
  })));
  const FIRST = 3;
  items.slice(0, FIRST).forEach(li => errs.appendChild(li));
  if (items.length > FIRST) {
    const rest = document.createElement('details');
    rest.id = 'more-errors';
    if (S.openErrors) rest.open = true;
    rest.ontoggle = () => { S.openErrors = rest.open; };
    const sum = document.createElement('summary');
    const kinds = [...new Set(items.slice(FIRST).map(li => li.className.replace('error ', '')))];
    sum.textContent = (items.length - FIRST) + ' more error' + (items.length - FIRST === 1 ? '' : 's') +
      ' (' + kinds.join(', ') + '): click to show them';
    rest.appendChild(sum);
    const ul = document.createElement('ul');
    items.slice(FIRST).forEach(li => ul.appendChild(li));
    rest.appendChild(ul);
    errs.appendChild(rest);
  }
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
    /* a column of '-': say why (the emulator counts a run of its own only where the run went right) */
    D.impls.forEach((m, i) => {
      const run = m.runs[S.run];
      if (rows[i] || !run) return;
      const p = document.createElement('p');
      p.className = 'why-no-counters';
      p.textContent = '- in the ' + m.impl + ' column: no counters, because this run went wrong (' +
        (run.status === 'OK' ? 'not counted' : run.status.toLowerCase() + ', as the line above the errors says') +
        '); the emulator counts pass 1 only of a run that gives the right answer. Fix what the errors above ' +
        'say and run --picture again to see its counters.';
      c.appendChild(p);
    });
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


def meets(trace, launch_index):
    """Whether the blocks of a launch meet: two blocks or more, and a __device__ variable, an
    atomic on global memory or a read that went wrong between them."""
    launch = trace["launches"][launch_index]
    if len(launch["blocks"]) < 2:
        return False
    arrays = trace["arrays"]
    for b in launch["blocks"]:
        for ev in b["events"]:
            if ev[2] in ("ld", "st", "atom") and 0 <= ev[3] < len(arrays):
                space = arrays[ev[3]]["space"]
                if space == "device" or (ev[2] == "atom" and space != "shared"):
                    return True
    return any(e.get("launch") == launch_index and e["kind"] in ("stale_read", "early_read")
               for e in trace.get("errors", []))


def meetings(doc, max_launches=3):
    """The blocks' meeting of every launch whose blocks meet (meets()), as SVG, for the page:
    [{"impl", "run", "launch", "svg"}]."""
    out = []
    for ii, impl in enumerate(doc["impls"]):
        for ri, run in enumerate(impl["runs"]):
            trace = run["trace"]
            for li in range(min(len(trace["launches"]), max_launches)):
                if not meets(trace, li):
                    continue
                d = BlockDrawing(doc, ii, ri, li, 0, impl.get("source_lines"), tips=False)
                d.draw_meeting([li])
                height = int(d.y + 14)
                out.append({"impl": ii, "run": ri, "launch": li, "svg": (
                    '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
                    'font-family="DejaVu Sans Mono, monospace" class="meeting">'
                    '<rect x="0" y="0" width="%d" height="%d" fill="#fff"/>%s</svg>' % (
                        DOC_WIDTH, height, DOC_WIDTH, height, DOC_WIDTH, height, "".join(d.c.parts)))})
    return out


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
    raw = json.dumps({"impls": impls, "views": vs, "meetings": meetings(doc)}, separators=(",", ":")).encode()
    data = base64.b64encode(gzip.compress(raw, 9, mtime=0)).decode()
    return PAGE % {"title": esc(title), "data": data, "script": SCRIPT, "svgstyle": STYLE}


# ============================================================================= the block's drawing
#
# --svg: one block of one launch from its start to its end, as one static picture, in the order
# things happened. The docs' stage pages show it (docs/tools/docs_assets.py draws the reference
# solutions' traces); a student gets the same drawing of a lab. Each part is drawn from what the
# trace holds, never from what a stage is known to do, so that a changed kernel draws differently:
#
#   - global loads: one row per load instruction of warp 0 (the k-th load of each lane), its
#     32-byte sectors as boxes, the bytes the lanes asked for filled in, with each thread's loads
#     and their width in words;
#   - shared memory: after each step (the time between two barriers, or between two meetings of
#     a warp), the words the step touched as rows of 32, one column per bank (numbered), the value
#     each holds (with the ones pattern, how many inputs it sums); stored words green, loaded
#     words outlined blue, the words of a request with a bank conflict orange, raced words red;
#     an arrow from each word a thread read to the word it wrote (one arrow for a run of words);
#     under it the warps' lanes, at work or idle;
#   - warp shuffles: warp 0's registers before and after each shuffle, an arrow from the lane
#     that gives a value to the lane that takes it; a pale lane holds a value nobody uses;
#   - stores and atomics to global memory, and between the blocks: the blocks' meeting (the
#     atomics of a one-pass stage in the order the blocks ran, or the partial results the next
#     launch reads);
#   - what went wrong, where it happened (races, reads past the end, stale reads, faults);
#   - the emulator's counters of the run's first pass.
# The labels describe what happened in words and numbers, never with the kernel's code: the
# student edition's pages must not show an open stage's answer (--no-source also leaves out
# the source text of the lines a fault names).
#
# Geometry (tools/trace_geometry.py checks it): DOC_WIDTH px wide, no wider than the docs' text
# column in a 1280 px window, which shows it at its own size, every text 11 px or more, in a
# monospace font (0.6 em a character), none squeezed; a value fits its cell 2 px clear of its
# edges (a row of 4-character values gets wider cells); every mark 8 px wide or more; arrows run
# in gaps kept free of text.

DOC_WIDTH = 988    # doxygen's text column beside its tree view is 989 px at 1280 px with a scroll bar (1004 without)
COL0 = 70          # column 0's left edge: row labels to its left
PITCH = 28         # one column: a bank (memory), a lane (registers) or a 32-byte sector (loads)
BOX = 27           # a cell's width (4 characters at 11 px: 26.4 px)
FIT = BOX - 5      # the most a value takes in its cell: 3 characters fit; 4 need wider cells (none is squeezed)
MIN_MARK = 8       # a mark's narrow side: a sector's asked part or a lane's bar thinner than this did not read
BAR = 12           # a bar's height (a lane at work or idle): 8 and 10 px bars did not read
ROW = 18           # a cell's height
RIGHT = COL0 + 32 * PITCH   # the margin right of the columns holds the arrows between rows of words
TEXT_W = DOC_WIDTH - COL0 - 8
MONO = 0.6         # a character's advance, in em
POISON = 0x5A5A5A5A

C_TEXT, C_NOTE, C_BAD = "#222", "#555", "#b00000"
C_ST, C_ST_EDGE, C_LD = "#bfe8bf", "#6a9f6a", "#1f5fbf"
C_SOME = "#a9c1e6"   # a warp box of a warp with some of its lanes at work
C_CONFLICT, C_RACE = "#e07800", "#ff8c8c"
C_ON, C_OFF = "#37598a", "#e3e6ea"
C_REG, C_REG_EDGE, C_PALE = "#ffe6a8", "#c8a040", "#f7f2e6"
C_ARROW, C_SHFL = "#2f5f9f", "#a86e00"


def text_width(s, size):
    return len(s) * MONO * size


def i32(v):
    v = int(v) & 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def as_float(v):
    return struct.unpack("<f", struct.pack("<I", int(v) & 0xFFFFFFFF))[0]


def f32(x):
    """x rounded to a float, as a GPU's float add rounds."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


class Numbers:
    """How the problem's 32-bit words read: ints, or floats (a float travels as its bits)."""

    def __init__(self, problem):
        self.float = problem.get("type") == "float"
        self.op = problem.get("op", "sum")

    def value(self, word):
        return as_float(word) if self.float else i32(word)

    def cell(self, word):
        """A word as at most 4 characters (no text for shared memory nobody wrote)."""
        if word is None or i32(word) == POISON:
            return ""
        if self.float:
            v = as_float(word)
            if v != v:
                return "NaN"
            a = abs(v)
            if a == float("inf"):
                return "inf" if v > 0 else "-inf"
            if a < 0.005:
                return "0"
            # three characters where a sign leaves room: "8.74" filled its 27 px box edge to
            # edge, and neighbouring cells read as one number (a fresh reader, stage 9's page)
            if a < 10:
                return ("%.1f" if v >= 0 else "%.0f") % v
            if a < 100:
                return "%.0f" % v
            if a < (10000 if v >= 0 else 1000):
                return "%.0f" % v
            return short(int(v))
        v = i32(word)
        if v == 2147483647:
            return "MAX"    # INT_MAX: the identity of a minimum
        if v == -2147483648:
            return "MIN"
        return short(v)

    def combine(self, a, b):
        """What a shuffle's add, min or max makes of two words (None: the drawing cannot tell)."""
        if self.op == "sum":
            if self.float:
                return struct.unpack("<I", struct.pack("<f", f32(as_float(a) + as_float(b))))[0]
            return (int(a) + int(b)) & 0xFFFFFFFF
        if self.op in ("min", "max"):
            pick = min if self.op == "min" else max
            va, vb = self.value(a), self.value(b)
            return a if pick(va, vb) == va else b
        return None


class Canvas:
    """SVG elements with presentation attributes (the geometry check reads them)."""

    def __init__(self):
        self.parts = []

    def text(self, x, y, s, size=11, fill=C_TEXT, anchor="start", weight=None, cls=None, fit=None):
        """fit: the most px the text should take (unused: no text is ever squeezed, a textLength read
        badly; a caller whose values need more room draws wider cells, as draw_ladder_wide does)."""
        attrs = ' x="%.1f" y="%.1f" font-size="%d" fill="%s"' % (x, y, size, fill)
        if anchor != "start":
            attrs += ' text-anchor="%s"' % anchor
        if weight:
            attrs += ' font-weight="%s"' % weight
        if cls:
            attrs += ' class="%s"' % cls
        self.parts.append("<text%s>%s</text>" % (attrs, esc(s)))

    def rect(self, x, y, w, h, fill="#fff", stroke="#c8c8c8", sw=1, dash=None, cls=None):
        extra = ' stroke-dasharray="%s"' % dash if dash else ""
        if cls:
            extra += ' class="%s"' % cls
        self.parts.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="%s" '
                          'stroke-width="%s"%s/>' % (x, y, w, h, fill, stroke, sw, extra))

    def line(self, x1, y1, x2, y2, stroke=C_ARROW, sw=1.2, cls=None):
        extra = ' class="%s"' % cls if cls else ""
        self.parts.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%s"%s/>'
                          % (x1, y1, x2, y2, stroke, sw, extra))

    def curve(self, x1, y1, cx, cy, x2, y2, stroke=C_ARROW, sw=1.2, cls=None):
        extra = ' class="%s"' % cls if cls else ""
        self.parts.append('<path d="M %.1f %.1f Q %.1f %.1f %.1f %.1f" fill="none" stroke="%s" stroke-width="%s"%s/>'
                          % (x1, y1, cx, cy, x2, y2, stroke, sw, extra))

    def head(self, x, y, dx, dy, fill=C_ARROW, size=6):
        """An arrowhead with its tip at (x, y), pointing along (dx, dy)."""
        n = (dx * dx + dy * dy) ** 0.5 or 1.0
        ux, uy = dx / n, dy / n
        bx, by = x - size * ux, y - size * uy
        px, py = -uy * size * 0.55, ux * size * 0.55
        self.parts.append('<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f" fill="%s"/>'
                          % (x, y, bx + px, by + py, bx - px, by - py, fill))

    def paragraph(self, x, y, text, width, size=11, fill=C_TEXT, weight=None, cls=None):
        """Wrapped text from baseline y; returns the baseline of its last line."""
        lines = wrap(text, width, size)
        for k, part in enumerate(lines):
            self.text(x, y + k * (size + 4), part, size, fill, weight=weight, cls=cls)
        return y + (len(lines) - 1) * (size + 4)


def col_x(c):
    return COL0 + c * PITCH


def number_list(nums, most=4):
    """0-15 | 0, 4, 8, ..., 60 | 3, 9 and 12."""
    nums = sorted(set(nums))
    if not nums:
        return "none"
    if len(nums) == 1:
        return str(nums[0])
    step = nums[1] - nums[0]
    if all(b - a == step for a, b in zip(nums, nums[1:])):
        if step == 1:
            return "%d-%d" % (nums[0], nums[-1])
        if len(nums) > most:
            return "%d, %d, %d, ..., %d" % (nums[0], nums[1], nums[2], nums[-1])
    if len(nums) <= most:
        return ", ".join(str(n) for n in nums[:-1]) + " and %d" % nums[-1]
    return "%d, %d, ..., %d (%d in all)" % (nums[0], nums[1], nums[-1], len(nums))


def affine(xs, ys):
    """(a, b) with y = a x + b for every pair, or None."""
    if not xs:
        return None
    if len(xs) == 1:
        return (0, ys[0])   # one thread: its word, as a number
    x0, y0 = xs[0], ys[0]
    x1, y1 = xs[1], ys[1]
    if x1 == x0 or (y1 - y0) % (x1 - x0):
        return None
    a = (y1 - y0) // (x1 - x0)
    b = y0 - a * x0
    return (a, b) if all(y == a * x + b for x, y in zip(xs, ys)) else None


def affine_text(a, b, var="t"):
    """4t+2, t, 32, 9l-1, t mod 2."""
    if " " in var and a not in (0, 1):
        var = "(%s)" % var
    head = "" if a == 0 else var if a == 1 else "%d%s" % (a, var)
    if not head:
        return str(b)
    return head if b == 0 else "%s%+d" % (head, b)


def offsets_text(var_a, base_b, offs, var="t"):
    """the words a thread reads, as '4t and 4t+2' or '9l, 9l+1, ..., 9l+8'."""
    items = [affine_text(var_a, base_b + o, var) for o in offs]
    if len(items) > 3 and all(b - a == 1 for a, b in zip(offs, offs[1:])):
        return "%s, %s, ..., %s" % (items[0], items[1], items[-1])
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# ----------------------------------------------------------------------------- what a block did

class Phase:
    """What the threads of a block did between two meeting points: a barrier, or a meeting of
    their warp (a shuffle, __syncwarp). Phase (step, k) holds what each thread did after its
    k-th warp meeting of barrier step `step`; its closing meeting is the k+1-th."""

    def __init__(self, step, meet):
        self.step, self.meet = step, meet
        self.shared = {}   # thread -> [(word, words, op, values, line)]
        self.glob = {}     # thread -> [(op, array, offset, bytes, value, line, after)]
        self.shfl = {}     # thread -> (name, mask, given, got, parameter, line)
        self.synced = set()  # threads whose warp met without a shuffle (__syncwarp, a vote)
        self.fences = {}
        self.events = []   # (thread, a glob entry or ("fence", line)): global accesses and fences in the trace's order
        self.reads = []    # (word, value) of each shared load, in order
        self.stores = []   # (word, value) of each shared store, in order
        self.mem = {}      # word -> value after the phase


def with_meetings(events):
    """(event, meet) for each of a block's events: meet counts the warp meetings (a shuffle,
    __syncwarp, a vote) its thread passed before it in the same barrier step."""
    where = {}
    for ev in events:
        t, s = ev[0], ev[1]
        step, meet = where.get(t, (s, 0))
        if step != s:
            meet = 0
        yield ev, meet
        where[t] = (s, meet + 1 if ev[2] == "warp" else meet)


def block_phases(trace, launch_index, block_index):
    block = trace["launches"][launch_index]["blocks"][block_index]
    arrays = trace["arrays"]
    phases = {}
    for ev, meet in with_meetings(block["events"]):
        t, s, op = ev[0], ev[1], ev[2]
        ph = phases.get((s, meet))
        if ph is None:
            ph = phases[(s, meet)] = Phase(s, meet)
        if op in ("ld", "st", "atom"):
            aid, off, nbytes, value, line = ev[3], ev[4], ev[5], ev[6], ev[7]
            a = arrays[aid] if 0 <= aid < len(arrays) else None
            if a is not None and a["space"] == "shared":
                word = (a.get("offset", 0) + off) // 4
                values = value if isinstance(value, list) else [value]
                count = max(1, nbytes // 4)
                ph.shared.setdefault(t, []).append((word, count, op, values, line))
                for k in range(count):
                    v = values[k] if k < len(values) else values[-1]
                    (ph.reads if op == "ld" else ph.stores).append((word + k, v))
            else:
                entry = (op, aid, off, nbytes, value, line, ev[8] if op == "atom" else None)
                ph.glob.setdefault(t, []).append(entry)
                ph.events.append((t, entry))
        elif op == "warp":
            name = ev[4]
            if name.startswith("__shfl"):
                ph.shfl[t] = (name, ev[5], ev[6], ev[7], ev[8], ev[3])
            else:
                ph.synced.add(t)
        elif op == "fence":
            ph.fences[t] = ev[3]
            ph.events.append((t, ("fence", ev[3])))
    ordered = [phases[k] for k in sorted(phases)]
    mem = {}
    for ph in ordered:
        for w, v in ph.reads:
            mem.setdefault(w, v)
        for w, v in ph.stores:
            mem[w] = v
        ph.mem = dict(mem)
    return ordered


def warp_meetings(block):
    """{(step, name): (meetings, lines)}: a block's warp meetings (a shuffle, __syncwarp, a vote:
    the lanes of one warp at their k-th meeting of a barrier step), by step and kind."""
    found = {}
    for ev, meet in with_meetings(block["events"]):
        if ev[2] == "warp":
            entry = found.setdefault((ev[1], ev[4]), [set(), set()])
            entry[0].add((ev[0] // 32, meet))
            entry[1].add(ev[3])
    return dict((k, (len(v[0]), sorted(x for x in v[1] if isinstance(x, int)))) for k, v in found.items())


def meetings_text(trace, counters):
    """'139 warp meetings (135 shuffles, 4 at __syncwarp)' where the traced blocks are the whole
    first launch and add up to the count; else '139 warp meetings'."""
    n = counters["warp_meetings"]
    launch = trace["launches"][0]
    kinds = {}
    for b in launch["blocks"]:
        for (_s, name), (count, _lines) in warp_meetings(b).items():
            kind = "shuffles" if name.startswith("__shfl") else "at %s" % name
            kinds[kind] = kinds.get(kind, 0) + count
    whole = len(launch["blocks"]) == launch["grid"][0] * launch["grid"][1] * launch["grid"][2]
    if not whole or sum(kinds.values()) != n or len(kinds) < 2:
        return "%d warp meetings" % n
    return "%d warp meetings (%s)" % (n, ", ".join("%d %s" % (v, k) for k, v in
                                                   sorted(kinds.items(), key=lambda kv: (kv[0] != "shuffles", kv[0]))))


def warps_text(active, threads):
    """'warp 0: all 32 lanes, warp 1: idle' or, for many warps, a count of each kind."""
    nwarps = (threads + 31) // 32
    kinds = []
    for w in range(nwarps):
        lanes = min(32, threads - 32 * w)
        n = sum(1 for t in active if t // 32 == w)
        kinds.append("idle" if n == 0 else "all %d lanes" % lanes if n == lanes else "%d of %d lanes" % (n, lanes))
    if nwarps <= 2:
        return ", ".join("warp %d: %s" % (w, k) for w, k in enumerate(kinds))
    full = sum(1 for k in kinds if k.startswith("all"))
    idle = sum(1 for k in kinds if k == "idle")
    some = nwarps - full - idle
    parts = []
    if full:
        parts.append("%d warp%s with all lanes at work" % (full, "" if full == 1 else "s"))
    if some:
        parts.append("%d divergent (some lanes idle)" % some)
    if idle:
        parts.append("%d idle" % idle)
    return ", ".join(parts)


def shared_requests(ph):
    """Per request (warp, k): the words its lanes asked for; the worst bank conflict, and the
    words in conflict. As on a GPU, a request of 8-byte accesses is served a half-warp at a time
    and one of 16-byte accesses a quarter-warp at a time (128 bytes a pass): a conflict is two
    words of one bank in one pass. (The emulator's counters count the whole warp's words.)"""
    requests, widths = {}, {}
    for t, accs in ph.shared.items():
        for k, (word, count, _op, _v, _l) in enumerate(accs):
            requests.setdefault((t // 32, k), {}).setdefault(t % 32, []).extend(range(word, word + count))
            widths[(t // 32, k)] = max(widths.get((t // 32, k), 1), count)
    worst, conflicted = 1, set()
    for key, lanes in requests.items():
        group = 32 // min(4, max(1, widths[key]))   # lanes served in one pass
        passes = {}
        for lane, words in lanes.items():
            passes.setdefault(lane // group, []).extend(words)
        for words in passes.values():
            banks = {}
            for w in words:
                banks.setdefault(w % 32, set()).add(w)
            ways = max(len(v) for v in banks.values())
            worst = max(worst, ways)
            if ways > 1:
                for v in banks.values():
                    if len(v) > 1:
                        conflicted |= v
    return requests, worst, conflicted


def fit_threads(threads, words):
    """The words as a function of the thread: ('thread t', a, b), or per warp ('lane i of
    warp w', a, b, c) for word = a i + c w + b, or None."""
    fit = affine(threads, words)
    if fit:
        return ("t", fit[0], fit[1], 0)
    by_warp = {}
    for t, w in zip(threads, words):
        by_warp.setdefault(t // 32, ([], []))
        by_warp[t // 32][0].append(t % 32)
        by_warp[t // 32][1].append(w)
    fits = {w: affine(*xy) for w, xy in by_warp.items()}
    if len(fits) >= 2 and all(fits.values()) and len(set(f[0] for f in fits.values())) == 1:
        warps = sorted(fits)
        per_warp = affine(warps, [fits[w][1] for w in warps])
        if per_warp:
            return ("i", fits[warps[0]][0], per_warp[1], per_warp[0])
    for m in (2, 4, 8, 16, 32):   # some lanes read one word (a broadcast)
        fit = affine([t % m for t in threads], words)
        if fit and len(set(t % m for t in threads)) > 1:
            return ("t mod %d" % m, fit[0], fit[1], 0)
    return None


def fit_word(fit, t):
    """The word a fit of fit_threads() gives thread t."""
    var, a, b, c = fit
    if var == "i":
        return a * (t % 32) + c * (t // 32) + b
    if var.startswith("t mod "):
        return a * (t % int(var.split()[-1])) + b
    return a * t + b


def fit_var(fit, threads):
    """Who the formula speaks of: 'thread t', 'lane i of warp w', or one thread by its number (not
    'lane l': in a monospace font l reads as 1, '4l+288w' as '41+288w')."""
    if len(set(threads)) == 1:
        return "thread %d" % threads[0]
    if fit[0] == "i" and len(set(t % 32 for t in threads)) == 1:
        return "lane %d of warp w" % (threads[0] % 32)
    return "lane i of warp w" if fit[0] == "i" else "thread t"


def fit_text(fit, extra=0):
    var, a, b, c = fit
    text = affine_text(a, b + extra, var)
    if c:
        cw = "w" if c == 1 else "%dw" % c
        text = cw if text == "0" else "%s+%s" % (text, cw)
    return text


def describe_shared(ph, numbers):
    """(who, what, pairs): the threads at work, what each did in words, and (read, written)
    word pairs for the arrows (empty when the accesses follow no one rule)."""
    who, what, pairs = describe_shared_as(ph, numbers)
    if len(ph.shared) == 1:
        what = what.replace("thread %d " % next(iter(ph.shared)), "it ", 1)
    return who, what, pairs


def describe_shared_as(ph, numbers):
    workers = sorted(ph.shared)
    who = "thread %s" % workers[0] if len(workers) == 1 else "threads %s" % number_list(workers)
    stores = {t: [a for a in ph.shared[t] if a[2] != "ld"] for t in workers}
    loads = {t: [a for a in ph.shared[t] if a[2] == "ld"] for t in workers}
    storers = [t for t in workers if stores[t]]
    pairs = []
    if storers and all(len(stores[t]) == 1 for t in storers):
        dst = [stores[t][0][0] for t in storers]
        fit = fit_threads(storers, dst)
        other = {t: [a[0] for a in loads[t] if a[0] != stores[t][0][0]] for t in storers}
        if all(len(other[t]) == 1 for t in storers):
            pairs = [(other[t][0], stores[t][0][0]) for t in storers]
            offs = set(o - d for (o, d) in pairs)
            if fit and len(offs) == 1:
                d = offs.pop()
                var = fit_var(fit, storers)
                verb = {"sum": "adds word %s into word %s", "min": "keeps the smaller of words %s and %s",
                        "max": "keeps the larger of words %s and %s"}.get(numbers.op, "combines word %s into word %s")
                return who, "%s %s" % (var, verb % (fit_text(fit, d), fit_text(fit))), pairs
            return who, "each writes one word with another word it read", pairs
        if fit and not any(loads[t] for t in storers):
            var = fit_var(fit, storers)
            width = stores[storers[0]][0][1]
            return who, "%s stores %s in word %s" % (
                var, "a value" if width == 1 else "%d bytes" % (4 * width), fit_text(fit)), pairs
        return who, "each stores one word", pairs
    if storers:
        counts = set(len(stores[t]) for t in storers)
        ks = max(counts)
        parts = []
        fits = [fit_threads([t for t in storers if len(stores[t]) > k],
                            [stores[t][k][0] for t in storers if len(stores[t]) > k]) for k in range(ks)]
        if fits[0] and all(stores[t][k][0] == fit_word(fits[0], t) and stores[t][k][1] == 1
                           for t in storers for k in range(len(stores[t]))):
            # the same word again and again: a loop with no barrier between its passes
            groups = [number_list([t for t in storers if len(stores[t]) > k]) for k in range(ks)]
            return who, "%s stores word %s up to %d times (threads %s)" % (
                fit_var(fits[0], storers), fit_text(fits[0]), ks, ", then ".join(groups[:4]) +
                (", ..." if len(groups) > 4 else "")), pairs
        for k in range(ks):
            ts = [t for t in storers if len(stores[t]) > k]
            fit = fit_threads(ts, [stores[t][k][0] for t in ts])
            width = stores[ts[0]][k][1]
            if not fit:
                return who, "each stores %d times" % ks, pairs
            part = "word %s" % fit_text(fit) if width == 1 else "words %s to %s" % (fit_text(fit), fit_text(fit, width - 1))
            if len(ts) < len(storers):
                part += " (%s %s)" % ("thread" if len(ts) == 1 else "threads", number_list(
                    ts if fit[0] == "t" else sorted(set(t % 32 for t in ts))))
            parts.append(part)
        var = fit_var(fit, storers)
        return who, "%s stores %s" % (var, "; ".join(parts) if len(parts) > 2 else " and ".join(parts)), pairs
    # loads only
    counts = set(len(loads[t]) for t in workers)
    if len(counts) == 1:
        ks = counts.pop()
        fits = []
        for k in range(ks):
            fit = fit_threads(workers, [loads[t][k][0] for t in workers])
            if not fit:
                break
            fits.append(fit)
        if len(fits) == ks and len(set(f[:2] + (f[3],) for f in fits)) == 1:
            var = fit_var(fits[0], workers)
            base = fits[0][2]
            offs = [f[2] - base for f in fits]
            fit0 = fits[0]
            items = [fit_text(fit0, o) for o in offs]
            if len(items) > 3 and all(b - a == 1 for a, b in zip(offs, offs[1:])):
                words = "%s, %s, ..., %s" % (items[0], items[1], items[-1])
            else:
                words = items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
            return who, "%s reads word%s %s" % (var, "" if ks == 1 else "s", words), pairs
    return who, "each reads shared memory", pairs


# ----------------------------------------------------------------------------- the arrows of a step

def plan_arrows(pairs):
    """How the step's (read, written) pairs are drawn: arcs over a row of words (one per pair,
    or one per run of neighbouring words), vertical arrows between two rows (a word into the
    one right above or below it), and one bracket in the right margin (whole rows into whole
    rows). Returns (arcs, verticals, margin, left_out): arcs as (row, from column range, to
    column range, level); verticals as (column, from row, to row); margin as (from rows, to
    rows) or None; left_out: the pairs no arrow draws cleanly."""
    pairs = sorted(set(pairs), key=lambda p: p[1])
    runs = []
    for src, dst in pairs:
        if runs and dst == runs[-1][1][-1] + 1 and src == runs[-1][0][-1] + 1:
            runs[-1][0].append(src)
            runs[-1][1].append(dst)
        else:
            runs.append(([src], [dst]))
    arcs, verticals, margin, left = [], [], None, []
    whole = []
    for srcs, dsts in runs:
        s_rows, d_rows = set(w // 32 for w in srcs), set(w // 32 for w in dsts)
        offset = srcs[0] - dsts[0]
        if abs(offset) == 32:
            for s, d in zip(srcs, dsts):
                verticals.append((d % 32, s // 32, d // 32))
        elif len(s_rows) == 1 and s_rows == d_rows and len(srcs) >= 3:
            arcs.append([min(s_rows), (srcs[0] % 32, srcs[-1] % 32), (dsts[0] % 32, dsts[-1] % 32), 0])
        elif len(s_rows) == 1 and s_rows == d_rows:
            for s, d in zip(srcs, dsts):
                arcs.append([s // 32, (s % 32, s % 32), (d % 32, d % 32), 0])
        elif srcs[0] % 32 == 0 and dsts[0] % 32 == 0 and len(srcs) % 32 == 0:
            whole.append((srcs, dsts))
        else:
            left.extend(zip(srcs, dsts))
    if len(whole) == 1:
        srcs, dsts = whole[0]
        margin = ((srcs[0] // 32, srcs[-1] // 32), (dsts[0] // 32, dsts[-1] // 32))
    else:
        for srcs, dsts in whole:
            left.extend(zip(srcs, dsts))
    # levels: arcs over the same row may not overlap at one level (their ends touch no other arc)
    by_row = {}
    for arc in arcs:
        by_row.setdefault(arc[0], []).append(arc)
    for row, items in by_row.items():
        items.sort(key=lambda a: (max(a[1][1], a[2][1]) - min(a[1][0], a[2][0]), a[2][0]))
        taken = []
        for arc in items:
            lo, hi = min(arc[1][0], arc[2][0]), max(arc[1][1], arc[2][1])
            for level in (1, 2):
                if all(not (lo <= h and l <= hi) for (l, h, lv) in taken if lv == level):
                    arc[3] = level
                    taken.append((lo, hi, level))
                    break
    kept = [a for a in arcs if a[3]]
    for a in arcs:
        if not a[3]:
            left.append(("arc", a))
    return kept, verticals, margin, left


# ----------------------------------------------------------------------------- the drawing

class BlockDrawing:
    def __init__(self, doc, impl_index, run_index, launch_index, block_index, source, tips=True):
        self.doc = doc
        self.impl = doc["impls"][impl_index]
        self.run = self.impl["runs"][run_index]
        self.trace = self.run["trace"]
        self.arrays = self.trace["arrays"]
        self.launch_index, self.block_index = launch_index, block_index
        self.launch = self.trace["launches"][launch_index]
        self.block = self.launch["blocks"][block_index]
        self.threads = self.launch["block"][0] * self.launch["block"][1] * self.launch["block"][2]
        self.numbers = Numbers(doc.get("problem", {}))
        self.source = source
        self.phases = block_phases(self.trace, launch_index, block_index)
        frames, _words, _threads = build_block(self.trace, launch_index, block_index, source, doc.get("problem", {}))
        attach_errors(self.trace, launch_index, block_index, frames, self.arrays, source, doc.get("problem", {}))
        self.frames = frames
        self.c = Canvas()
        self.y = 0

    # --- small parts

    def label(self, y, text, bold=False, size=11):
        self.c.text(8, y, text, size, C_TEXT if bold else C_NOTE, weight="bold" if bold else None)

    def para(self, text, size=11, fill=C_TEXT, gap=4, x=COL0, width=TEXT_W, weight=None):
        self.y += size + gap
        self.y = self.c.paragraph(x, self.y, text, width, size, fill, weight)

    def heading(self, label, text, size=12):
        self.y += size + 10
        self.c.text(8, self.y, label, size, C_TEXT, weight="bold")
        self.y = self.c.paragraph(COL0, self.y, text, TEXT_W, size)

    def line_name(self, line):
        """'line 40', or with the source text where the drawing may show it."""
        return describe_line(line, self.source)

    # --- global loads of warp 0

    def draw_loads(self, ph):
        loads = {t: [g for g in accs if g[0] == "ld"] for t, accs in ph.glob.items()}
        loads = {t: v for t, v in loads.items() if v}
        if not loads:
            return
        # each thread's loads and their width
        kinds = {}
        for t, accs in loads.items():
            sig = {}
            for g in accs:
                sig[g[3]] = sig.get(g[3], 0) + 1
            kinds.setdefault(tuple(sorted(sig.items(), reverse=True)), []).append(t)
        parts = []
        for sig, ts in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
            what = " and ".join("%d load%s of %d bytes%s" % (n, "" if n == 1 else "s", b, {4: "", 8: " (2 words)", 16: " (an int4, 4 words)"}.get(b, "")) for b, n in sig)
            if len(ts) == self.threads:
                parts.append("every thread makes %s" % what)
            else:
                parts.append("%s %s" % ("thread %d makes" % ts[0] if len(ts) == 1 else "threads %s make" % number_list(ts), what))
        self.heading("loads", "Global loads: " + "; ".join(parts) + ".")
        lanes = {t: accs for t, accs in loads.items() if t < 32}
        count = max((len(v) for v in lanes.values()), default=0)
        if not count:
            return
        self.para("Warp 0's loads, one row per load instruction (the k-th load of each lane): each box is a "
                  "32-byte sector of %s, the bytes the lanes asked for filled in, or, where that would be "
                  "a sliver, their number (4: 4 of its 32 bytes). A sector moves whole, used or not."
                  % self.array_label(lanes[min(lanes)][0][1]), 11, C_NOTE)
        shown = min(count, 9)
        for k in range(shown):
            req = [(t % 32, accs[k]) for t, accs in sorted(lanes.items()) if len(accs) > k]
            self.draw_request(k, req)
        if count > shown:
            self.para("... and %d more load instructions like these (not drawn)." % (count - shown), 11, C_NOTE)

    def array_label(self, aid):
        if 0 <= aid < len(self.arrays):
            return "the array %s" % self.arrays[aid]["name"]
        return "device memory"

    def draw_request(self, k, req):
        spans = []
        for lane, (_op, aid, off, nbytes, _v, _line, _a) in req:
            spans.append((lane, off, nbytes, aid))
        aid = spans[0][3]
        arr = self.arrays[aid] if 0 <= aid < len(self.arrays) else {"name": "memory"}
        sectors = sorted(set(s for (_l, off, nb, _a) in spans for s in range(off // 32, (off + nb - 1) // 32 + 1)))
        asked = set()
        for (_l, off, nb, _a) in spans:
            asked.update(range(off, off + nb))
        used = len(asked)   # lanes that ask for the same bytes share them
        moved = 32 * len(sectors)
        lo, hi = sectors[0], sectors[-1]
        widths = set(nb for (_l, _o, nb, _a) in spans)
        width = widths.pop() if len(widths) == 1 else None
        first = min(off for (_l, off, _n, _a) in spans) // 4
        last = max(off + nb - 1 for (_l, off, nb, _a) in spans) // 4
        lanes = [l for (l, _o, _n, _a) in spans]
        gaps = sorted(set(b[1] - a[1] for a, b in zip(spans, spans[1:])))
        apart = "" if gaps in ([width], []) else ", %d bytes apart" % gaps[0] if len(gaps) == 1 else ""
        where = "%s[%s]" % (arr["name"], first if first == last else "%d..%d" % (first, last))
        if is_matrix(self.doc.get("problem", {})) and arr["name"] == "in":
            where = "int%s %s of %s" % ("" if first == last else "s", first if first == last else "%d..%d" % (first, last),
                                        arr["name"])
        one = len(lanes) == 1
        shared = len(asked) < sum(nb for (_l, _o, nb, _a) in spans)
        text = "lane%s %s read%s %s bytes%s%s, %s%s%s: %d sector%s move%s %d bytes for %d asked (%d%%)" % (
            "" if one else "s", number_list(lanes), "s" if one else "", width if width else "several",
            "" if one else " each", apart, where, " as int4s" if width == 16 else "",
            " (lanes share some)" if shared else "", len(sectors), "" if len(sectors) == 1 else "s",
            "s" if len(sectors) == 1 else "", moved, used, round(100.0 * used / moved))
        self.y += 15
        self.label(self.y, "load %d" % (k + 1))
        self.y = self.c.paragraph(COL0, self.y, text, TEXT_W, 11)
        valid = arr.get("valid_bytes")
        span = hi - lo + 1
        per_row = 32
        rows = (span + per_row - 1) // per_row
        shown_rows = min(rows, 2)
        for r in range(shown_rows):
            top = self.y + 6 + r * 26
            for j in range(per_row):
                s = lo + r * per_row + j
                if s > hi:
                    break
                x = col_x(j)
                touched = s in sectors
                self.c.rect(x, top, BOX, 20, "#eef3fb" if touched else "#fff", "#7d93b8" if touched else "#d0d0d0",
                            1, None if touched else "3 2", cls="sector")
                # the bytes of this sector the lanes asked for, as runs (a bad one: past the array's end)
                state = [None] * 32
                for lane, off, nb, _a in spans:
                    bad = valid is not None and (off + nb > valid or off < 0)
                    for byte in range(max(off, 32 * s), min(off + nb, 32 * s + 32)):
                        state[byte - 32 * s] = "bad" if bad or state[byte - 32 * s] == "bad" else "ok"
                runs, start = [], None
                for i in range(33):
                    cur = state[i] if i < 32 else None
                    if start is not None and (cur != state[start]):
                        runs.append((start, i, state[start]))
                        start = None
                    if cur is not None and start is None:
                        start = i
                if not runs:
                    continue
                if all((b_ - a_) * BOX / 32.0 - 1 >= MIN_MARK for a_, b_, _st in runs):
                    for a_, b_, st in runs:
                        fill = C_BAD if st == "bad" else "#3b6fb6"
                        self.c.rect(x + (a_ * BOX / 32.0) + 0.5, top + 3, (b_ - a_) * BOX / 32.0 - 1, 14, fill, fill, 0,
                                    cls="asked")
                else:
                    # a sliver would not read: the bytes asked, as a number ("4": 4 of its 32 bytes)
                    asked_here = sum(b_ - a_ for a_, b_, _st in runs)
                    bad = any(st == "bad" for _a, _b, st in runs)
                    self.c.text(x + BOX / 2.0, top + 14, str(asked_here), 11, C_BAD if bad else "#1f4f96",
                                anchor="middle", weight="bold", cls="asked")
        self.y += 6 + shown_rows * 26 - 4
        if rows > shown_rows:
            self.para("(%d more sectors of this load not drawn)" % (span - shown_rows * per_row), 11, C_NOTE)

    # --- shared memory

    def draw_shared(self, ph, label):
        numbers = self.numbers
        who, what, pairs = describe_shared(ph, numbers)
        requests, worst, conflicted = shared_requests(ph)
        active = set(ph.shared)
        words = set()
        for accs in ph.shared.values():
            for (w, n, _o, _v, _l) in accs:
                words.update(range(w, w + n))
        rows = sorted(set(w // 32 for w in words))
        note = ""
        if len(rows) > 9:
            mine = sorted(set(w // 32 for t, accs in ph.shared.items() if t < 32 for (w0, n, _o, _v, _l) in accs
                              for w in range(w0, w0 + n)))
            if mine and len(mine) <= 9:
                note = "Drawn: the words of warp 0 (rows %s); the other warps' words are rows %s." % (
                    number_list([32 * r for r in mine]) if False else "of words %d-%d" % (32 * mine[0], 32 * mine[-1] + 31),
                    "of words %d-%d" % (32 * min(r for r in rows if r not in mine), 32 * rows[-1] + 31))
                rows = mine
            else:
                note = "Drawn: the first 9 of %d rows of words." % len(rows)
                rows = rows[:9]
        stored = set(w for w, _v in ph.stores)
        loaded = set(w for w, _v in ph.reads)
        frame = self.frames[ph.step] if ph.step < len(self.frames) else None
        raced = frame.raced if frame is not None else set()
        wide = max((a[1] for accs in ph.shared.values() for a in accs), default=1)
        if wide > 1 and worst == 1:
            counted = phase_conflicts(ph)[0]
            conflict_text = "no bank conflict (%d-byte accesses: a GPU serves %d lanes a pass)%s" % (
                4 * wide, 32 // min(4, wide),
                "; the emulator counts %d here, the words one bank gets from the whole warp" % counted if counted else "")
        else:
            conflict_text = None
        conflict_text = conflict_text or "no bank conflict" if worst == 1 else \
            "%d-way bank conflicts: one request asks a bank for %d different words (outlined orange)" % (worst, worst)
        n = len(active)
        self.heading(label, "%s (%d of %d) at work: %s. %s; %s." % (
            who[0].upper() + who[1:], n, self.threads, what, warps_text(active, self.threads).capitalize(), conflict_text))
        if note:
            self.para(note, 11, C_NOTE)
        arcs, verticals, margin, left = plan_arrows(pairs)
        if left:
            arcs, verticals, margin = [], [], None
        shown_rows = set(rows)
        arcs = [a for a in arcs if a[0] in shown_rows]
        verticals = [v for v in verticals if v[1] in shown_rows and v[2] in shown_rows and abs(v[1] - v[2]) == 1]
        if margin and not (set(range(margin[0][0], margin[0][1] + 1)) | set(range(margin[1][0], margin[1][1] + 1))) <= shown_rows:
            margin = None
        # bank numbers
        self.y += 16
        self.label(self.y, "bank")
        for b in range(32):
            self.c.text(col_x(b) + BOX / 2.0, self.y, str(b), 11, C_NOTE, anchor="middle", cls="bank")
        self.y += 4
        tops = {}
        prev = None
        too_wide = []
        for r in rows:
            levels = max([a[3] for a in arcs if a[0] == r] or [0])
            gap = 3
            if levels:
                gap += 7 + 10 * levels
            if prev is not None and any(min(v[1], v[2]) == prev and max(v[1], v[2]) == r for v in verticals):
                gap = max(gap, 16)
            if prev is not None and r != prev + 1:
                gap += 8
            self.y += gap
            tops[r] = self.y
            self.label(self.y + 13, "word %d" % (32 * r))
            for b in range(32):
                w = 32 * r + b
                fill, stroke, sw = "#fff", "#c8c8c8", 1
                if w in stored:
                    fill, stroke = C_ST, C_ST_EDGE
                if w in loaded:
                    stroke, sw = C_LD, 2
                if w in conflicted:
                    stroke, sw = C_CONFLICT, 3
                if w in raced:
                    fill, stroke, sw = C_RACE, C_BAD, 3
                cls = "word" + (" conflict" if w in conflicted else "") + (" race" if w in raced else "")
                self.c.rect(col_x(b), self.y, BOX, ROW, fill, stroke, sw, cls=cls)
                value = numbers.cell(ph.mem.get(w))
                if value and text_width(value, 11) > FIT:
                    # too wide for its cell (none is squeezed): a mark, and the value said under the drawing
                    too_wide.append((w, value))
                    value = "*"
                if value:
                    self.c.text(col_x(b) + BOX / 2.0, self.y + 13, value, 11, C_TEXT, anchor="middle")
            self.y += ROW
            prev = r
        # arrows
        for row, src, dst, level in arcs:
            top = tops[row]
            if src[0] == src[1] and dst[0] == dst[1]:
                x1, x2 = col_x(src[0]) + BOX / 2.0, col_x(dst[0]) + BOX / 2.0
                ya = top - 1
            else:
                ya = top - 5
                for lo, hi in (src, dst):
                    xa, xb = col_x(lo) + 3, col_x(hi) + BOX - 3
                    self.c.line(xa, ya, xb, ya, C_ARROW, 1.5)
                    self.c.line(xa, ya, xa, top - 1, C_ARROW, 1.5)
                    self.c.line(xb, ya, xb, top - 1, C_ARROW, 1.5)
                x1 = (col_x(src[0]) + col_x(src[1]) + BOX) / 2.0
                x2 = (col_x(dst[0]) + col_x(dst[1]) + BOX) / 2.0
            h = 8 + 10 * (level - 1)
            self.c.curve(x1, ya, (x1 + x2) / 2.0, ya - 2 * h, x2, ya, C_ARROW, 1.2, cls="arrow")
            self.c.head(x2, ya, (x2 - x1) * 0.15, 2 * h * 0.9 or 1, C_ARROW)
        for b, src_row, dst_row in verticals:
            x = col_x(b) + BOX / 2.0
            if src_row > dst_row:
                y1, y2 = tops[src_row] - 1, tops[dst_row] + ROW + 1
            else:
                y1, y2 = tops[src_row] + ROW + 1, tops[dst_row] - 1
            self.c.line(x, y1, x, y2 + (6 if y2 < y1 else -6), C_ARROW, 1.2, cls="arrow")
            self.c.head(x, y2, 0, y2 - y1, C_ARROW, 5)
        if margin:
            (s0, s1), (d0, d1) = margin
            xb = RIGHT + 3
            ys = (tops[s0] + 1, tops[s1] + ROW - 1)
            yd = (tops[d0] + 1, tops[d1] + ROW - 1)
            for a, b in (ys, yd):
                self.c.line(xb, a, xb, b, C_ARROW, 1.5)
                self.c.line(xb - 2, a, xb, a, C_ARROW, 1.5)
                self.c.line(xb - 2, b, xb, b, C_ARROW, 1.5)
            ms, md = sum(ys) / 2.0, sum(yd) / 2.0
            xo = RIGHT + 16
            self.c.line(xb, ms, xo, ms, C_ARROW, 1.5, cls="arrow")
            self.c.line(xo, ms, xo, md, C_ARROW, 1.5, cls="arrow")
            self.c.line(xo, md, xb + 7, md, C_ARROW, 1.5, cls="arrow")
            self.c.head(xb + 1, md, -1, 0, C_ARROW)
        if left:
            self.para("(No arrows: the words read and written here follow no one pattern.)", 11, C_NOTE)
        if too_wide:
            said = ", ".join("word %d holds %s" % wv for wv in too_wide[:8])
            self.para("* a value too wide for its cell: %s%s." % (
                said, " and %d more" % (len(too_wide) - 8) if len(too_wide) > 8 else ""), 11, C_NOTE)
        self.draw_lanes(active)

    def draw_lanes(self, active, states=None):
        nwarps = (self.threads + 31) // 32
        self.y += 6
        if nwarps <= 2:
            for w in range(nwarps):
                self.y += 4
                self.label(self.y + 10, "warp %d" % w)
                for lane in range(min(32, self.threads - 32 * w)):
                    t = 32 * w + lane
                    on = t in active
                    fill = C_ON if on else C_OFF
                    stroke = fill
                    dash = None
                    if states and t in states:
                        fill = "#f0a030" if states[t][0] == "barrier" else "#c8c8c8"
                        stroke, dash = ("#700", "3 2") if states[t][0] == "exited" else (fill, None)
                    self.c.rect(col_x(lane), self.y, BOX, BAR, fill, stroke, 1, dash, cls="lane on" if on else "lane off")
                self.y += BAR
        else:
            per_row = 8
            for r0 in range(0, nwarps, per_row):
                self.y += 4
                for k, w in enumerate(range(r0, min(nwarps, r0 + per_row))):
                    n = sum(1 for t in active if t // 32 == w)
                    lanes = min(32, self.threads - 32 * w)
                    # the lanes' colours (the legend's), not green: green is a stored word
                    fill = C_ON if n == lanes else C_SOME if n else C_OFF
                    x = COL0 + k * 112
                    self.c.rect(x, self.y, 108, 17, fill, fill, 1, cls="warpbox")
                    self.c.text(x + 54, self.y + 12.5, "w%d: %s" % (w, "idle" if n == 0 else "%d/%d" % (n, lanes)),
                                11, "#fff" if n == lanes else C_TEXT if n else C_NOTE, anchor="middle")
                self.y += 17
            self.y += 0

    # --- warp shuffles

    def draw_ladder(self, rounds, label, others, repeats, users):
        """rounds: [(name, parameter, {lane: [(given, got), ...]})], channels per lane (a value,
        then its index: argmin shuffles both)."""
        name = rounds[0][0]
        kind = name.replace("__shfl_", "").replace("_sync", "") or "idx"
        how = {"down": "lane i takes the value of lane i+%s", "xor": "lanes i and i xor %s swap values",
               "up": "lane i takes the value of lane i-%s", "": "each lane takes the value of lane %s"}
        deltas = [r[1] for r in rounds]
        dtext = str(deltas[0]) + (" (then %s)" % ", ".join(str(x) for x in deltas[1:]) if len(deltas) > 1 else "")
        channels = max(len(v) for r in rounds for v in r[2].values())
        op = {"sum": "each adds what it takes to its own", "min": "each keeps the smaller",
              "max": "each keeps the larger",
              "argmin": "each keeps the pair that comes first (the smaller value, on a tie the smaller index)"}.get(
                  self.numbers.op, "each combines them")
        wide = self.ladder_values_wide(rounds)
        text = "Warp 0 shuffles %d time%s (%s): %s, and %s. Rows: warp 0's register in each lane before, " \
               "then after each shuffle%s." % (
                   len(rounds), "" if len(rounds) == 1 else "s", kind, how.get(kind, how[""]) % dtext, op,
                   "; some values need more room than 32 cells to a line give, so each row is two lines, lanes "
                   "0-15 over lanes 16-31, and an arrow that must pass a line of cells runs down the gap right of its column" if wide
                   else "; an arrow from the lane that gives a value to the lane that takes it")
        if channels > 1:
            text += " Each cell: the value, and under it its index."
        text += " A pale lane's value is never used."
        if others:
            text += " %s the same at the same time (not drawn)." % others
        self.heading(label, text)
        # which lanes matter: those whose values reach a lane that uses the result
        needed = [set(range(32))] * (len(rounds) + 1)
        if users and kind in ("down", "up"):
            need = set(users)
            needed = [None] * (len(rounds) + 1)
            needed[len(rounds)] = set(need)
            for r in range(len(rounds) - 1, -1, -1):
                nxt = set()
                for l in needed[r + 1]:
                    nxt.add(l)
                    src = self.source_lane(rounds[r][0], rounds[r][1], l)
                    if src is not None:
                        nxt.add(src)
                needed[r] = nxt
        # the rows: before round 1, after each round
        values = []
        first = rounds[0][2]
        values.append({l: [c[0] for c in first[l]] for l in first})
        for r, (nm, p, lanes) in enumerate(rounds):
            if r + 1 < len(rounds):
                nxt = rounds[r + 1][2]
                values.append({l: [c[0] for c in nxt[l]] for l in nxt})
            else:
                values.append(self.combined(lanes))
        cell_h = ROW if channels == 1 else 30
        if wide:
            # a value needs more than a 27 px cell: every row as two lines of 16 lanes, cells twice as wide
            # (no text squeezed); the lines of a row lie between those of the next, so no arrow is drawn
            self.draw_ladder_wide(rounds, values, needed, kind, channels, cell_h)
            if repeats:
                self.para(repeats, 11, C_NOTE)
            return
        self.y += 8
        self.label(self.y + 10, "lane")
        for l in range(32):
            self.c.text(col_x(l) + BOX / 2.0, self.y + 10, str(l), 11, C_NOTE, anchor="middle")
        self.y += 16
        tops = []
        for r, row in enumerate(values):
            if r:
                gap_top = self.y
                self.y += 30
                nm, p, lanes = rounds[r - 1]
                self.label(gap_top + 19, "%s %s" % (kind, p) if kind else "lane %s" % p)
                for l in sorted(lanes):
                    src = self.source_lane(nm, p, l)
                    if src is None or src == l or l not in needed[r]:
                        continue
                    x1, x2 = col_x(src) + BOX / 2.0, col_x(l) + BOX / 2.0
                    y1, y2 = gap_top + 1, self.y - 1
                    self.c.line(x1, y1, x2 - (x2 - x1) * 6.0 / ((y2 - y1) ** 2 + (x2 - x1) ** 2) ** 0.5,
                                y2 - 6.0 * (y2 - y1) / ((y2 - y1) ** 2 + (x2 - x1) ** 2) ** 0.5, C_SHFL, 1, cls="shfl")
                    self.c.head(x2, y2, x2 - x1, y2 - y1, C_SHFL, 6)
            else:
                self.label(self.y + 13, "before")
            tops.append(self.y)
            for l in range(32):
                vals = row.get(l) if row else None
                use = l in needed[r]
                self.c.rect(col_x(l), self.y, BOX, cell_h, C_REG if use else C_PALE, C_REG_EDGE if use else "#e0d6bf", 1,
                            cls="register")
                if vals and use:
                    self.c.text(col_x(l) + BOX / 2.0, self.y + 13, self.numbers.cell(vals[0]), 11, C_TEXT, anchor="middle",
                                fit=FIT)
                    if channels > 1 and len(vals) > 1:
                        self.c.text(col_x(l) + BOX / 2.0, self.y + 26, short(i32(vals[1])), 11, C_NOTE, anchor="middle",
                                    fit=FIT)
            self.y += cell_h
        if repeats:
            self.para(repeats, 11, C_NOTE)

    def ladder_values_wide(self, rounds):
        """Whether a value of the ladder (any lane, any row) needs more than a 27 px cell."""
        for _nm, _p, lanes in rounds:
            for chans in lanes.values():
                for c in chans:
                    for v in c:
                        if v is not None and (text_width(self.numbers.cell(v), 11) > FIT
                                              or text_width(short(i32(v)), 11) > FIT):
                            return True
        for v in self.combined(rounds[-1][2]).values():
            if v and any(text_width(self.numbers.cell(x), 11) > FIT for x in v[:1]):
                return True
        return False

    def draw_ladder_wide(self, rounds, values, needed, kind, channels, cell_h):
        """The ladder with its values too wide for 32 cells a line: each row as lanes 0-15 over lanes
        16-31 in cells 2 columns wide (no text squeezed); an arrow that must pass a line of cells runs
        down the gap right of its column."""
        wide = 2 * PITCH
        box = wide - 6
        inner = 14          # between a row's two lines: where an arrow turns into its gap
        self.y += 8
        self.label(self.y + 10, "lane")
        for l in range(16):
            self.c.text(COL0 + l * wide + box / 2.0, self.y + 10, "%d/%d" % (l, l + 16), 11, C_NOTE, anchor="middle")
        self.y += 10
        tops = []
        for r, row in enumerate(values):
            self.y += 34 if r else 6
            tops.append((self.y, self.y + cell_h + inner))
            for half in range(2):
                y = tops[r][half]
                self.label(y + 13, "16-31" if half else "before" if not r else "%s %s" % (kind or "lane", rounds[r - 1][1]))
                for i in range(16):
                    l = 16 * half + i
                    vals = row.get(l) if row else None
                    use = l in needed[r]
                    x = COL0 + i * wide
                    self.c.rect(x, y, box, cell_h, C_REG if use else C_PALE, C_REG_EDGE if use else "#e0d6bf", 1,
                                cls="register")
                    if vals and use:
                        self.c.text(x + box / 2.0, y + 13, self.numbers.cell(vals[0]), 11, C_TEXT, anchor="middle")
                        if channels > 1 and len(vals) > 1:
                            self.c.text(x + box / 2.0, y + 26, short(i32(vals[1])), 11, C_NOTE, anchor="middle")
            self.y = tops[r][1] + cell_h
            if not r:
                continue
            nm, p, lanes = rounds[r - 1]
            (a0, b0), (a1, b1) = tops[r - 1], tops[r]
            for l in sorted(lanes):
                src = self.source_lane(nm, p, l)
                if src is None or src == l or l not in needed[r]:
                    continue
                cx = lambda k: COL0 + (k % 16) * wide + box / 2.0
                ch = lambda k: COL0 + (k % 16) * wide + box + 3.0
                if src < 16:   # from the upper line: down the gap past the lower one
                    pts = [(cx(src), a0 + cell_h), (ch(src), a0 + cell_h + inner / 2.0), (ch(src), b0 + cell_h + 6)]
                else:
                    pts = [(cx(src), b0 + cell_h)]
                if l < 16:
                    pts.append((cx(l), a1))
                else:          # to the lower line: down the gap past the upper one
                    pts += [(ch(l), a1 - 6), (ch(l), a1 + cell_h + inner / 2.0), (cx(l), b1)]
                (x1, y1), (x2, y2) = pts[-2], pts[-1]
                n = ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5 or 1.0
                end = (x2 - (x2 - x1) * 6.0 / n, y2 - (y2 - y1) * 6.0 / n)
                self.c.parts.append('<path d="M %s" fill="none" stroke="%s" stroke-width="1" class="shfl"/>' % (
                    " L ".join("%.1f %.1f" % q for q in pts[:-1] + [end]), C_SHFL))
                self.c.head(x2, y2, x2 - x1, y2 - y1, C_SHFL, 6)

    @staticmethod
    def source_lane(name, param, lane):
        if "down" in name:
            src = lane + param
        elif "up" in name:
            src = lane - param
        elif "xor" in name:
            src = lane ^ param
        else:
            src = param
        return src if 0 <= src < 32 else None

    def combined(self, lanes):
        """Each lane's value after the last shuffle: its own and the one it took, combined."""
        out = {}
        for l, chans in lanes.items():
            if len(chans) == 1:
                v = self.numbers.combine(chans[0][0], chans[0][1])
                out[l] = [v] if v is not None else None
            elif len(chans) == 2 and self.numbers.op == "argmin":
                (mv, ov), (mi, oi) = chans
                a, b = (i32(mv), mi & 0xFFFFFFFF), (i32(ov), oi & 0xFFFFFFFF)
                out[l] = [ov, oi] if b < a else [mv, mi]
            else:
                out[l] = None
        return out

    # --- global stores and atomics

    def draw_writes(self, ph):
        """The block's global stores, atomics and fences, in the order they ran (the trace's): a
        thread's stores to one array in a row make one line."""
        lines = []
        runs = []    # [thread, kind, aid, [entries]]
        writers = set(t for t, e in ph.events if e[0] in ("st", "atom"))
        for t, e in ph.events:
            if e[0] == "ld" or (e[0] == "fence" and t not in writers and t not in ph.glob):
                continue
            if e[0] == "st" and runs and runs[-1][0] == t and runs[-1][1] == "st" and runs[-1][2] == e[1]:
                runs[-1][3].append(e)
            else:
                runs.append([t, e[0], e[1] if e[0] != "fence" else None, [e]])
        for t, kind, aid, entries in runs:
            if kind == "fence":
                lines.append("thread %d: a fence (its stores are seen by every block before what follows)" % t)
            elif kind == "atom":
                for (_op, aid, off, nb, before, _l, after) in entries:
                    lines.append("thread %d: an atomic on %s: %s becomes %s" % (
                        t, self.word_name(aid, nb), word_text(before, nb), word_text(after, nb)))
            else:
                items = [(off // max(4, nb), value) for (_op, _aid, off, nb, value, _l, _a) in entries]
                name = self.arrays[aid]["name"] if 0 <= aid < len(self.arrays) else "device memory"
                if len(items) == 1 and is_device_scalar(self.arrays, aid):  # a __device__ variable: no index
                    lines.append("thread %d stores %s = %s" % (t, name, self.meeting_value(aid, items[0][1], 0)))
                elif len(items) == 1:
                    lines.append("thread %d stores %s[%d] = %s" % (t, name, items[0][0], self.numbers.cell(items[0][1])
                                                                      if not isinstance(items[0][1], list) else full(items[0][1])))
                else:
                    lines.append("thread %d stores %s[%s] = %s" % (
                        t, name, number_list([i for i, _v in items]).replace("-", ".."),
                        ", ".join(self.numbers.cell(v) if not isinstance(v, list) else full(v) for _i, v in items[:9])))
        if len(lines) > 10:
            lines = lines[:9] + ["... and %d more" % (len(lines) - 9)]
        for text in lines:
            self.para(text, 11)

    def word_name(self, aid, nbytes):
        if 0 <= aid < len(self.arrays):
            return self.arrays[aid]["name"]
        return "the %d-byte __device__ word" % nbytes

    # --- the timeline of the block

    def draw_block(self):
        steps = self.block["steps"]
        by_step = {}
        for ph in self.phases:
            by_step.setdefault(ph.step, []).append(ph)
        for s in range(len(steps)):
            label = "step %d" % (s + 1)
            phases = by_step.get(s, [])
            pending = []      # the shuffle rounds of the ladder being drawn
            seen_ladders, seen_shared = {}, {}
            parts = len(set(shared_signature(ph) for ph in phases if ph.shared))
            skipped = [0, 0]
            for i, ph in enumerate(phases):
                warp0_memory = any(t < 32 for t in ph.shared) or any(t < 32 for t in ph.glob)
                if (ph.shared or ph.glob or ph.fences) and pending:
                    label = self.flush_ladder(pending, label, ph, seen_ladders, skipped)
                    pending = []
                if ph.glob:
                    self.draw_loads(ph)
                if ph.shared:
                    sig = shared_signature(ph)
                    if sig in seen_shared and not self.phase_errors(ph):
                        skipped[1] += 1
                    else:
                        seen_shared[sig] = True
                        if parts > 1:   # named as the side-by-side columns name them: step 1a, 1b, ...
                            label = "step %d%s" % (s + 1, "abcdefghij"[(len(seen_shared) - 1) % 10])
                        self.draw_shared(ph, label)
                        label = ""
                if ph.glob or ph.fences:
                    self.draw_writes(ph)
                rnd = self.round_of(ph)
                if rnd:
                    pending.append(rnd)
                del warp0_memory
            if pending:
                label = self.flush_ladder(pending, label, None, seen_ladders, skipped)
            if skipped[0] or skipped[1]:
                self.para("Then %s like these: not drawn." % " and ".join(
                    x for x in ("%d more shuffle ladder%s" % (skipped[0], "" if skipped[0] == 1 else "s") if skipped[0] else "",
                                "%d more step%s in shared memory" % (skipped[1], "" if skipped[1] == 1 else "s") if skipped[1] else "")
                    if x), 11, C_NOTE)
            met = warp_meetings(self.block)
            for (ms, name), (count, lines) in sorted(met.items()):
                if ms == s and not name.startswith("__shfl"):
                    self.para("The warps also meet at %s %d time%s in this step (%s), no value moving: each lane waits "
                              "there for the others of its warp; counted among the warp meetings." % (
                                  name, count, "" if count == 1 else "s",
                                  ", ".join(describe_line(l, self.source) for l in lines) or "line ?"), 11, C_NOTE)
            self.draw_errors(s)
            if steps[s].get("barrier_line"):
                self.barrier(steps[s])

    def phase_errors(self, ph):
        f = self.frames[ph.step] if ph.step < len(self.frames) else None
        return bool(f and f.errors)

    def round_of(self, ph):
        lanes = {t: v for t, v in ph.shfl.items() if t < 32}
        if not lanes:
            return None
        name = next(iter(lanes.values()))[0]
        param = next(iter(lanes.values()))[4]
        others = sorted(set(t // 32 for t in ph.shfl if t >= 32))
        return (name, param, {t: [(v[2], v[3])] for t, v in lanes.items()}, others, ph)

    def flush_ladder(self, pending, label, after, seen, skipped):
        # two shuffles in a row with the same lane distance move one pair (argmin: value, index)
        rounds = []
        for name, param, lanes, others, ph in pending:
            if rounds and rounds[-1][0] == name and rounds[-1][1] == param and self.numbers.op == "argmin" \
                    and len(next(iter(rounds[-1][2].values()))) == 1:
                for l, ch in lanes.items():
                    rounds[-1][2].setdefault(l, []).extend(ch)
            else:
                rounds.append((name, param, {l: list(ch) for l, ch in lanes.items()}, others))
        # a ladder: shuffles whose lane distance shrinks; a larger one starts the next ladder
        ladders = [[rounds[0]]]
        for r in rounds[1:]:
            prev = ladders[-1][-1]
            if r[0] == prev[0] and r[1] < prev[1]:
                ladders[-1].append(r)
            else:
                ladders.append([r])
        for lad in ladders:
            sig = tuple((r[0], r[1]) for r in lad)
            if sig in seen:
                skipped[0] += 1
                continue
            seen[sig] = True
            others = sorted(set(w for r in lad for w in r[3]))
            who = "" if not others else ("Warp %d does" % others[0] if len(others) == 1 else
                                        "Warps %s do" % number_list(others))
            users = self.users_after(after) if lad is ladders[-1] else None
            self.draw_ladder([(r[0], r[1], r[2]) for r in lad], label, who, "", users)
            label = ""
        return label

    def users_after(self, ph):
        """Lanes of warp 0 that touch memory right after a ladder (they use its result)."""
        if ph is None:
            return None
        lanes = set(t for t in ph.shared if t < 32) | set(t for t in ph.glob if t < 32)
        return lanes or None

    def barrier(self, step):
        self.y += 14
        text = "barrier: every thread waits here (%s)" % self.line_name(step["barrier_line"])
        self.c.text(8, self.y, text, 11, C_NOTE, cls="barrier")
        x = 8 + text_width(text, 11) + 8
        if x < DOC_WIDTH - 20:
            self.c.line(x, self.y - 4, DOC_WIDTH - 8, self.y - 4, "#9aa4b4", 1, cls="barrier")
        self.y += 2

    def draw_errors(self, step):
        f = self.frames[step] if step < len(self.frames) else None
        if not f:
            return
        errors = f.errors
        shown = errors[:4]   # the page (-o) lists every one
        for _kind, text, _who in shown:
            self.para(text, 11, C_BAD, weight="bold")
        if len(errors) > len(shown):
            kinds = sorted(set(e[0].replace("_", " ") for e in errors[len(shown):]))
            self.para("... and %d more (%s) in this step." % (len(errors) - len(shown), ", ".join(kinds)), 11, C_BAD,
                      weight="bold")
        if f.states:
            self.para("Where each thread stood: waiting at a barrier (orange), exited (dashed), running (dark).", 11, C_NOTE)
            self.draw_lanes(set(t for t, st in f.states.items() if st[0] not in ("barrier", "exited")), f.states)

    # --- between the blocks

    def draw_meeting(self, launch_indices=None):
        """The blocks' meeting: in a one-pass stage, what every block did to the memory the
        blocks share (global memory and __device__ variables: the atomics on the words they meet
        in, with the value each leaves, the loads and stores of __device__ variables), in the
        order the blocks ran; in a stage of many passes, the partial results each block stores
        and the next launch reads. A read that went wrong between the blocks (stale, early) is
        drawn red in its block's row, with its line, and said in words under the block."""
        launches = self.trace["launches"]
        if launch_indices is None:
            if len(launches) == 1 and len(launches[0]["blocks"]) == 1:
                return
            launch_indices = range(len(launches))
        wrong = any(e.get("launch") in launch_indices and e["kind"] in ("stale_read", "early_read")
                    for e in self.trace.get("errors", []))
        self.heading("blocks", "Between the blocks: what each block did to the memory all blocks share (global "
                               "memory and __device__ variables), in the order the emulator ran them (a GPU runs "
                               "them in any order).%s" % (" A red row is a read that went wrong." if wrong else ""))
        arrays = self.arrays
        for li in launch_indices:
            launch = launches[li]
            blocks = launch["blocks"]
            self.para("Launch %d: %d block%s of %d threads%s." % (
                li + 1, launch["grid"][0], "" if launch["grid"][0] == 1 else "s", launch["block"][0],
                "" if len(blocks) == 1 else ", run in the order " + ", ".join("block %d" % b["index"][0] for b in blocks)),
                11, C_NOTE)
            used = sorted(set(ev[3] for b in blocks for ev in b["events"] if ev[2] in ("ld", "st", "atom")
                              and 0 <= ev[3] < len(arrays) and arrays[ev[3]]["space"] == "device"))
            for aid in used:
                a = arrays[aid]
                self.para("%s: a __device__ %s of %d bytes (%s), one for the whole grid: every block reads and "
                          "writes the same one%s." % (
                              a["name"], "variable" if is_device_scalar(arrays, aid) else "array", a["bytes"],
                              "declared at " + describe_line(a.get("line", 0), None),
                              "; 8-byte words in hexadecimal, 4 digits a group" if a["bytes"] == 8 else ""),
                          11, C_NOTE)
            # the reads that went wrong between the blocks, by (block, thread, line, array, offset)
            bad = {}
            for err in self.trace.get("errors", []):
                if err.get("launch") != li or err["kind"] not in ("stale_read", "early_read"):
                    continue
                load = err["accesses"][1] if err["kind"] == "stale_read" else err["accesses"][0]
                bad.setdefault((err["block"], load["thread"], load["line"], err["array"], err["offset"]), err)
            first_seen = {}
            for rank, b in enumerate(blocks):
                rows = []   # (text before the box, box text, text after, error or None)
                reads = {}
                said = []   # this block's errors, in words
                writers = set(ev[0] for ev in b["events"] if ev[2] in ("st", "atom") and 0 <= ev[3] < len(arrays)
                              and arrays[ev[3]]["space"] != "shared")
                for ev in b["events"]:
                    if ev[2] == "fence" and ev[0] in writers:   # where it ran among the thread's accesses
                        rows.append(("thread %d: a fence (its stores are seen by every block before what follows)"
                                     % ev[0], None, "(%s)" % describe_line(ev[3], None), None))
                        continue
                    if ev[2] not in ("ld", "st", "atom"):
                        continue
                    aid = ev[3]
                    a = arrays[aid] if 0 <= aid < len(arrays) else None
                    if a is not None and a["space"] == "shared":
                        continue
                    where = "(%s)" % describe_line(ev[7], None)
                    err = bad.pop((rank, ev[0], ev[7], aid, ev[4]), None)
                    if err is not None:
                        said.append(between_blocks_text(self.trace, li, err, arrays, self.source)[0])
                    if ev[2] == "ld":
                        if err is None and (a is None or a["space"] != "device"):
                            if a is not None and a["name"] != "in":
                                reads.setdefault(a["name"], []).append(ev[4] // 4)
                            continue
                        rows.append(("thread %d loads %s =" % (ev[0], element(arrays, aid, ev[4], ev[5])),
                                     self.meeting_value(aid, ev[6], ev[5]), where, err))
                    elif ev[2] == "st":
                        name = element(arrays, aid, ev[4], ev[5]) if a else "device memory"
                        rows.append(("thread %d stores %s =" % (ev[0], name), self.meeting_value(aid, ev[6], ev[5]),
                                     where, None))
                    else:
                        key = (aid, ev[4], ev[5])
                        word = element(arrays, aid, ev[4], ev[5]) if a else self.word_name(aid, ev[5])
                        if key not in first_seen:
                            first_seen[key] = True
                            rows.append(("%s before the launch:" % word, self.meeting_value(aid, ev[6], ev[5]), "",
                                         None))
                        rows.append(("thread %d's atomic on %s leaves" % (ev[0], word),
                                     self.meeting_value(aid, ev[8], ev[5]), where, None))
                for name, idx in sorted(reads.items()):
                    rows.insert(0, ("reads %s[%s]" % (name, number_list(idx)), None, "", None))
                if not rows:
                    rows = [("leaves nothing in global memory", None, "", None)]
                if len(rows) > 8:  # the rows that went wrong are always kept
                    kept = [r for k, r in enumerate(rows) if k < 6 or r[3] is not None]
                    kept.append(("... and %d more" % (len(rows) - len(kept)), None, "", None))
                    rows = kept
                self.y += 8
                top = self.y
                wrong = any(r[3] is not None for r in rows)
                self.c.rect(COL0, top, 96, 18, "#f9d6d6" if wrong else "#dfe8f5", C_BAD if wrong else "#7d93b8", 1,
                            cls="block")
                self.c.text(COL0 + 48, top + 13, "block %d" % b["index"][0], 11, C_TEXT, anchor="middle")
                x_text = COL0 + 96 + 34
                self.c.line(COL0 + 97, top + 9, x_text - 10, top + 9, C_ARROW, 1.2, cls="arrow")
                self.c.head(x_text - 5, top + 9, 1, 0, C_ARROW)
                y = top
                for k, (before, box, after, err) in enumerate(rows):
                    if k:
                        y += 22
                    label = ("%s: " % ordinal(rank + 1) if k == 0 and len(blocks) > 1 else "") + before
                    self.c.text(x_text, y + 13, label, 11, C_BAD if err else C_TEXT, weight="bold" if err else None,
                                cls="bad" if err else None)
                    x = x_text + text_width(label, 11) + 8
                    if box is not None:
                        w = text_width(box, 11) + 10
                        self.c.rect(x, y, w, 18, C_RACE if err else C_REG, C_BAD if err else C_REG_EDGE, 2 if err else 1,
                                    cls="bad" if err else "word")
                        self.c.text(x + w / 2.0, y + 13, box, 11, C_TEXT, anchor="middle")
                        x += w + 8
                    if after:
                        self.c.text(x, y + 13, after, 11, C_BAD if err else C_NOTE, cls="bad" if err else None)
                self.y = y + 18
                for text in said:
                    self.para(text, 11, C_BAD, x=x_text, width=DOC_WIDTH - x_text - 8, weight="bold")

    def meeting_value(self, aid, value, nbytes):
        """A value in the blocks' meeting, whole (not cut to a cell's 4 characters)."""
        if isinstance(value, list):
            return value_text(self.arrays, aid, value, nbytes)
        if 0 <= aid < len(self.arrays) and self.arrays[aid]["space"] == "device":
            return str(i32(value))
        v = self.numbers.value(value)
        return ("%.6g" % v) if self.numbers.float else str(v)

    # --- the whole picture

    def counters_text(self):
        c = self.run.get("counters")
        if not c:
            return None
        parts = ["%d block barrier%s" % (c["block_barriers"], "" if c["block_barriers"] == 1 else "s"),
                 meetings_text(self.trace, c),
                 "%d shared-memory requests, %s" % (c["shared_requests"], conflicts_text(self.trace, c, True)),
                 "%d divergent requests" % c["divergent_shared_requests"],
                 "%d global loads of %g bytes on average, in %d requests moving %d sectors (%d needed)" % (
                     c["global_loads"], c["global_load_bytes"] / float(c["global_loads"] or 1),
                     c["global_load_requests"], c["global_load_sectors"], c["global_load_sectors_needed"])]
        return "Counted by the emulator in pass 1 (all %d block%s of the first launch): %s." % (
            c["blocks"], "" if c["blocks"] == 1 else "s", "; ".join(parts))


def conflict_counts(trace, launch_index=0):
    """(as the emulator counts them, as a GPU serves them, every block traced): the bank conflicts
    of a launch's shared-memory requests. The emulator counts, for each request, the most words
    one bank is asked for by the whole warp, less one (docs/emulator.md, "Wider accesses"); a GPU
    serves 8-byte accesses a half-warp and 16-byte ones a quarter-warp at a time, and a conflict
    is two words of one bank in one pass (what shared_requests draws)."""
    launch = trace["launches"][launch_index]
    emulator = gpu = 0
    for b in range(len(launch["blocks"])):
        for ph in block_phases(trace, launch_index, b):
            e, g = phase_conflicts(ph)
            emulator += e
            gpu += g
    return emulator, gpu, len(launch["blocks"]) == launch["grid"][0] * launch["grid"][1] * launch["grid"][2]


def phase_conflicts(ph):
    """(as the emulator counts them, as a GPU serves them): the bank conflicts of one phase's
    shared-memory requests (see conflict_counts)."""
    emulator = gpu = 0
    requests, widths = {}, {}
    for t, accs in ph.shared.items():
        for k, (word, count, _op, _v, _l) in enumerate(accs):
            requests.setdefault((t // 32, k), {}).setdefault(t % 32, []).extend(range(word, word + count))
            widths[(t // 32, k)] = max(widths.get((t // 32, k), 1), count)
    for key, lanes in requests.items():
        def ways(words):
            banks = {}
            for w in words:
                banks.setdefault(w % 32, set()).add(w)
            return max(len(v) for v in banks.values())
        emulator += ways([w for ws in lanes.values() for w in ws]) - 1
        group = 32 // min(4, max(1, widths[key]))
        passes = {}
        for lane, words in lanes.items():
            passes.setdefault(lane // group, []).extend(words)
        gpu += sum(ways(words) - 1 for words in passes.values())
    return emulator, gpu


def conflicts_text(trace, counters, long):
    """The counters' bank conflicts, and where a GPU would have fewer (8- and 16-byte accesses,
    which the emulator counts word by word), how many a GPU has: stage 15's picture said 'no bank
    conflict' in every step above a count of 12."""
    n = counters["shared_bank_conflicts"]
    emulator, gpu, whole = conflict_counts(trace)
    if not whole or emulator != n or gpu == n:
        return "%d bank conflict%s" % (n, "" if n == 1 else "s")
    if long:
        return ("%d bank conflicts as the emulator counts them, %d on a GPU (the emulator counts every word one bank "
                "is asked for by a warp's 8- or 16-byte accesses; a GPU serves those a half or a quarter of a warp "
                "at a time, each part without a conflict)" % (n, gpu))
    return "%d bank conflicts on a GPU (the emulator counts %d, in the steps that say so)" % (gpu, n)


def shared_signature(ph):
    """A step in shared memory, up to where: which threads, how many accesses of which kind.
    Two steps alike (the 9 components of a matrix, each stored alike) are drawn once."""
    return tuple(sorted((t, tuple((a[2], a[1]) for a in accs)) for t, accs in ph.shared.items()))


def ordinal(k):
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, "%dth" % k)


def word_text(value, nbytes):
    """An atomic's word: an int, or an 8-byte word in hexadecimal, in groups of 4 digits."""
    if isinstance(value, list):
        v = 0
        for k, w in enumerate(value):
            v |= (int(w) & 0xFFFFFFFF) << (32 * k)
        digits = "%0*x" % (2 * nbytes, v)
        return "0x" + "_".join(digits[k:k + 4] for k in range(0, len(digits), 4))
    return str(i32(value))


def is_matrix(problem):
    """The 3x3 matrices' problems (kit_type_name: '3x3 int matrix', '... (9 planes)')."""
    kind = problem.get("type", "")
    return "matri" in kind or kind.startswith("mat3")


def pattern_words(doc):
    problem = doc.get("problem", {})
    kind = "matrix" if is_matrix(problem) else problem.get("type")
    words = {("ones", "int"): "all ones: each number counts the inputs it sums",
             ("random", "int"): "random ints in [-8, 8]",
             ("random", "float"): "random floats in [0, 1)",
             ("random", "matrix"): "random ints in [-8, 8] in each component"}
    return words.get((doc.get("pattern"), kind), "input pattern %s" % doc.get("pattern"))


def block_svg(doc, impl_index=0, run_index=0, launch=0, block=None, no_source=False, beside=None, caption=None):
    """The static drawing of one block (default: block 0 of the first launch)."""
    impl = doc["impls"][impl_index]
    run = impl["runs"][run_index]
    trace = run["trace"]
    if launch >= len(trace["launches"]):
        raise SystemExit("the trace has no launch %d" % launch)
    blocks = trace["launches"][launch]["blocks"]
    if block is None:
        zero = [k for k, b in enumerate(blocks) if b["index"] == [0, 0, 0]]
        block = zero[0] if zero else 0
    elif block >= len(blocks):
        raise SystemExit("launch %d of the trace has no block %d" % (launch, block))
    source = None if no_source else impl.get("source_lines")
    d = BlockDrawing(doc, impl_index, run_index, launch, block, source)
    c = d.c
    problem = doc.get("problem", {})
    words = "%d %s" % (run["n"], "matrices" if is_matrix(problem) else "floats" if problem.get("type") == "float"
                       else "ints")
    d.y = 20
    c.text(8, d.y, "Stage %d, %s: block %d of %d threads" % (doc["stage"], doc["title"], d.block["index"][0], d.threads),
           14, "#000", weight="bold")
    pattern = pattern_words(doc)
    who = "the stage's reference kernel" if impl["impl"] == "solutions" else "%s (%s)" % (impl["impl"], impl["source"])
    d.para(caption or "n = %s (%s); drawn from the CPU emulator's trace of %s%s." % (
        words, pattern, who, "" if run["status"] == "OK" else ", which went wrong: %s" % (run["message"] or run["status"])),
        11, C_NOTE, x=8, width=DOC_WIDTH - 16)
    legend(d)
    if beside is not None:
        draw_beside(d, beside, doc)
    d.draw_block()
    d.draw_meeting()
    counted = d.counters_text()
    if counted:
        d.y += 6
        d.para(counted, 11, C_NOTE, x=8, width=DOC_WIDTH - 16)
    height = int(d.y + 14)
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
            'font-family="DejaVu Sans Mono, monospace">'
            '<rect x="0" y="0" width="%d" height="%d" fill="#fff"/>%s</svg>\n' % (
                DOC_WIDTH, height, DOC_WIDTH, height, DOC_WIDTH, height, "".join(c.parts)))


def legend(d):
    """One line of swatches: what the colours mean."""
    d.y += 10
    x = 8
    items = [("rect", C_ST, C_ST_EDGE, "stored"), ("rect", "#fff", C_LD, "loaded"),
             ("rect", "#fff", C_CONFLICT, "bank conflict"), ("rect", C_RACE, C_BAD, "race"),
             ("lane", C_ON, C_ON, "lane at work"), ("lane", C_OFF, C_OFF, "idle lane"),
             ("rect", C_REG, C_REG_EDGE, "register"), ("rect", C_PALE, "#e0d6bf", "unused")]
    for kind, fill, stroke, text in items:
        h = 12
        d.c.rect(x, d.y + (12 - h) / 2.0, 16, h, fill, stroke, 2 if stroke in (C_LD, C_CONFLICT) else 1)
        x += 20
        d.c.text(x, d.y + 10, text, 11, C_NOTE)
        x += text_width(text, 11) + 14
    d.y += 14
    # what only some drawings show: the warp boxes of a block of more than 2 warps; MAX and MIN
    extra = []
    if d.threads > 64:
        extra.append(("warp", C_ON, "#fff", "w0: 32/32", "a warp, its lanes at work of its lanes: all"))
        extra.append(("warp", C_SOME, C_TEXT, "w1: 16/32", "some"))
        extra.append(("warp", C_OFF, C_NOTE, "w2: idle", "none"))
    if d.numbers.op in ("min", "max", "argmin"):
        extra.append(("text", None, C_TEXT, "MAX", "INT_MAX, the start of a minimum;"))
        extra.append(("text", None, C_TEXT, "MIN", "INT_MIN, the start of a maximum"))
    if extra:
        d.y += 6
        x = 8
        for kind, fill, ink, sample, text in extra:
            w = 88 if kind == "warp" else 34
            if x + w + 6 + text_width(text, 11) > DOC_WIDTH - 8:
                d.y += 22
                x = 8
            if kind == "warp":
                d.c.rect(x, d.y - 2, w, 17, fill, fill, 1, cls="warpbox")
            else:
                d.c.rect(x, d.y - 2, w, 17, C_REG, C_REG_EDGE, 1)
            d.c.text(x + w / 2.0, d.y + 10.5, sample, 11, ink, anchor="middle")
            x += w + 6
            d.c.text(x, d.y + 10.5, text, 11, C_NOTE)
            x += text_width(text, 11) + 14
        d.y += 16


# ----------------------------------------------------------------------------- two stages side by side

def summary_rows(doc):
    """What a stage's block does, as rows to set beside another stage's: its loads, each step in
    shared memory, its shuffles, and the counters."""
    impl = doc["impls"][0]
    run = impl["runs"][0]
    trace = run["trace"]
    blocks = trace["launches"][0]["blocks"]
    zero = [k for k, b in enumerate(blocks) if b["index"] == [0, 0, 0]]
    d = BlockDrawing(doc, 0, 0, 0, zero[0] if zero else 0, None)
    rows = []
    loads = {}
    for ph in d.phases:
        for t, accs in ph.glob.items():
            for g in accs:
                if g[0] == "ld":
                    loads.setdefault(t, []).append(g)
    if loads:
        per = {}
        for t, accs in loads.items():
            for g in accs:
                per.setdefault(t, {}).setdefault(g[3], 0)
                per[t][g[3]] += 1
        common = {}
        for t, sig in per.items():
            key = tuple(sorted(sig.items(), reverse=True))
            common[key] = common.get(key, 0) + 1
        sig = max(common.items(), key=lambda kv: kv[1])[0]
        text = "Loads: %s per thread" % " and ".join("%d of %d bytes" % (n, b) for b, n in sig)
        w0 = {t: v for t, v in loads.items() if t < 32}
        if w0:
            count = max(len(v) for v in w0.values())
            effs = []
            for k in range(count):
                spans = [(v[k][2], v[k][3]) for t, v in sorted(w0.items()) if len(v) > k]
                sectors = set(s for off, nb in spans for s in range(off // 32, (off + nb - 1) // 32 + 1))
                asked = set()
                for off, nb in spans:
                    asked.update(range(off, off + nb))
                effs.append((len(sectors), len(asked)))
            if len(set(effs)) == 1:
                text += "; %s: %d sector%s for %d bytes asked (%d%%)" % (
                    "each of warp 0's %d loads" % count if count > 1 else "warp 0's load", effs[0][0],
                    "" if effs[0][0] == 1 else "s", effs[0][1], round(100.0 * effs[0][1] / (32 * effs[0][0])))
            else:
                runs = []   # alike loads in a row, said once with their count (a list cut with '...' hid some)
                for e in effs:
                    if runs and runs[-1][0] == e:
                        runs[-1][1] += 1
                    else:
                        runs.append([e, 1])
                text += "; warp 0's loads: %s" % ", ".join(
                    "%s%d sector%s for %d bytes" % ("%d x " % n if n > 1 else "", e[0], "" if e[0] == 1 else "s", e[1])
                    for e, n in runs)
        rows.append(("loads", text, None))
    k = 0
    lines_seen = set()
    previous = None
    for ph in d.phases:
        if not ph.shared:
            continue
        shape = (ph.step, tuple(sorted((t, tuple((a[2], a[1]) for a in accs)) for t, accs in ph.shared.items())))
        if shape == previous and rows and rows[-1][0].startswith("shared"):
            key, text, active, again = rows[-1]
            rows[-1] = (key, text, active, again + 1)   # the same step again (another component)
            continue
        previous = shape
        k += 1
        who, what, _pairs = describe_shared(ph, d.numbers)
        _r, worst, _c = shared_requests(ph)
        lines = sorted(set(a[4] for accs in ph.shared.values() for a in accs if isinstance(a[4], int)))
        again = lines and set(lines) <= lines_seen
        lines_seen.update(lines)
        counted = phase_conflicts(ph)[0]
        text = "Step %d: %s: %s; %s; line %s%s" % (
            ph.step + 1, who, what, ("no bank conflict on a GPU (the emulator counts %d)" % counted if counted
                                     else "no bank conflict") if worst == 1 else "%d-way bank conflicts" % worst,
            number_list(lines) if lines else "?", " again (a loop)" if again else "")
        rows.append(("shared %d" % k, text, set(ph.shared), 0))
    rows = [r if len(r) == 3 else (r[0], r[1] + ("" if not r[3] else "; then %d more time%s alike" % (
        r[3], "" if r[3] == 1 else "s")), r[2]) for r in rows]
    # several rows in one step (between two barriers): 1a, 1b, ... as the detailed drawing names them
    per_step = {}
    for r in rows:
        m = re.match(r"Step (\d+): ", r[1]) if r[0].startswith("shared") else None
        if m:
            per_step.setdefault(m.group(1), []).append(r)
    for step, rs in per_step.items():   # keyed by step and part: the columns set step 2 beside step 2
        for k, r in enumerate(rs):
            text = r[1] if len(rs) == 1 else r[1].replace("Step %s: " % step, "Step %s%s: " % (step, "abcdefghij"[k % 10]), 1)
            rows[rows.index(r)] = ("shared %s %d" % (step, k), text, r[2])
    shuffles = [ph for ph in d.phases if ph.shfl]
    if shuffles:
        kinds = sorted(set(v[0].replace("__shfl_", "").replace("_sync", "") for ph in shuffles for v in ph.shfl.values()))
        warps = sorted(set(t // 32 for ph in shuffles for t in ph.shfl))
        mine = [ph for ph in shuffles if any(t < 32 for t in ph.shfl)]
        deltas = [next(v for t, v in sorted(ph.shfl.items()) if t < 32)[4] for ph in mine]
        ladders = 1 + sum(1 for a, b in zip(deltas, deltas[1:]) if b > a)   # an argmin shuffles twice a rung
        in_steps = sorted(set(ph.step + 1 for ph in mine))
        rows.append(("shuffles", "Shuffles (%s) in step%s %s: warp 0 shuffles %d times, %s; warp%s %s shuffle" % (
            "/".join(kinds), "" if len(in_steps) == 1 else "s",
            ", ".join(str(x) for x in in_steps[:-1]) + " and %d" % in_steps[-1] if len(in_steps) > 1 else in_steps[0],
            len(mine), "in %d ladders of %s" % (ladders, ", ".join(str(x) for x in deltas[:5]))
            if ladders > 1 else "lane distances %s" % ", ".join(str(x) for x in deltas),
            "" if len(warps) == 1 else "s", number_list(warps)), None))
    else:
        rows.append(("shuffles", "No shuffle: every step goes through shared memory", None))
    meeting = blocks_row(trace)
    if meeting:
        rows.append(("blocks", meeting, None))
    counted = d.counters_text()
    c = run.get("counters")
    if c:
        rows.append(("counters", "Counted: %d barrier%s, %s, %d shared requests, %s, "
                                 "%d divergent requests, %d global loads, %d sectors" % (
                                     c["block_barriers"], "" if c["block_barriers"] == 1 else "s",
                                     meetings_text(trace, c), c["shared_requests"],
                                     conflicts_text(trace, c, False), c["divergent_shared_requests"], c["global_loads"],
                                     c["global_load_sectors"]), None))
    del counted
    return rows, d.threads


def blocks_row(trace):
    """How the blocks meet, in words: each launch's blocks and what they leave in global memory
    (stores, atomics) and in __device__ variables; None for one launch of one block."""
    launches = trace["launches"]
    if len(launches) == 1 and launches[0]["grid"][0] * launches[0]["grid"][1] == 1:
        return None
    arrays = trace["arrays"]
    parts = []
    for li, launch in enumerate(launches):
        made = {}
        for b in launch["blocks"]:
            for ev in b["events"]:
                if ev[2] not in ("st", "atom") or not 0 <= ev[3] < len(arrays):
                    continue
                a = arrays[ev[3]]
                if a["space"] == "shared":
                    continue
                key = ("atomic%s on %s" if ev[2] == "atom" else "store%s to %s", a["name"])
                made[key] = made.get(key, 0) + 1
        blocks = launch["grid"][0] * launch["grid"][1] * launch["grid"][2]
        traced = len(launch["blocks"])
        what = ", ".join("%d %s" % (n, form % ("" if n == 1 else "s", name))
                         for (form, name), n in sorted(made.items(), key=lambda kv: (-kv[1], kv[0])))
        parts.append("launch %d, %d block%s: %s%s" % (
            li + 1, blocks, "" if blocks == 1 else "s", what or "nothing stored",
            "" if traced == blocks else " (by the %d traced)" % traced))
    return "Between the blocks: %s" % "; ".join(parts)


def draw_beside(d, before, doc):
    """The previous stage's block beside this one's, row by row: what this stage changed."""
    left, threads = summary_rows(before)
    right, _ = summary_rows(doc)
    half = (DOC_WIDTH - 24) // 2
    xs = (8, 8 + half + 8)
    d.y += 26
    d.c.text(xs[0], d.y, "Stage %d (%s)" % (before["stage"], "the previous stage" if before["stage"] == doc["stage"] - 1
                                            else "the stage this one changes"), 12, "#000", weight="bold")
    d.c.text(xs[1], d.y, "Stage %d (this page)" % doc["stage"], 12, "#000", weight="bold")
    d.c.line(xs[1] - 8, d.y - 12, xs[1] - 8, d.y + 4, "#c0c6d0", 1)
    keys = []
    for k, _t, _a in left + right:
        if k not in keys:
            keys.append(k)
    order = {"loads": 0, "shuffles": 2, "blocks": 3, "counters": 4}
    keys.sort(key=lambda k: (order.get(k, 1), tuple(int(x) for x in k.split()[1:]) if k.startswith("shared") else ()))
    lmap = dict((k, (t, a)) for k, t, a in left)
    rmap = dict((k, (t, a)) for k, t, a in right)
    top_line = d.y + 4
    for key in keys:
        row_top = d.y + 6
        bottoms = []
        for side, m in ((0, lmap), (1, rmap)):
            y = row_top
            if key in m:
                text, active = m[key]
                y += 12
                y = d.c.paragraph(xs[side], y, text, half - 8, 11)   # 8 px clear of the divider
                if active is not None:
                    y += 6
                    y = mini_lanes(d.c, xs[side], y, active, threads)
            bottoms.append(y)
        d.y = max(bottoms) + 4
        d.c.line(8, d.y + 2, DOC_WIDTH - 8, d.y + 2, "#e3e6ea", 1)
        d.c.line(xs[1] - 8, row_top - 4, xs[1] - 8, d.y + 2, "#c0c6d0", 1)
    del top_line
    d.y += 6


def mini_lanes(c, x, y, active, threads):
    """The lanes of every warp as boxes (no numbers) BAR px tall and MIN_MARK px wide, a line for
    each run of warps whose lanes do alike, named at its left ("w0-3") (4 warps a line were 2.5 px
    wide, 2 a line 6 px, and 9 px tall bars did not read)."""
    nwarps = (threads + 31) // 32
    lane_w = MIN_MARK + 1
    groups = []
    for w in range(nwarps):
        pattern = tuple(32 * w + lane in active for lane in range(min(32, threads - 32 * w)))
        if groups and groups[-1][2] == pattern:
            groups[-1][1] = w
        else:
            groups.append([w, w, pattern])
    for k, (w0, w1, pattern) in enumerate(groups):
        if k:
            y += BAR + 3
        c.text(x, y + 10, "w%d" % w0 if w0 == w1 else "w%d-%d" % (w0, w1), 11, C_NOTE)
        for lane, on in enumerate(pattern):
            fill = C_ON if on else C_OFF
            c.rect(x + 48 + lane * lane_w, y, lane_w - 1, BAR, fill, fill, 0, cls="lane")
    return y + BAR


def static_svg(doc, impl=None, threads=None, launch=0, block=None, no_source=False, beside=None, caption=None):
    """One block of one run, as the static drawing (see the section's comment)."""
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
    return block_svg(doc, ii, ri, launch, block, no_source, beside, caption)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trace")
    parser.add_argument("-o", "--output", help="the HTML page to write")
    parser.add_argument("--svg", help="write one block from its start to its end as a static SVG instead")
    parser.add_argument("--impl", help="--svg: the implementation drawn (labs, solutions; default: the first)")
    parser.add_argument("--threads", type=int, help="--svg: the block size drawn (default: the trace's first)")
    parser.add_argument("--launch", type=int, default=0, help="--svg: the launch drawn (0: the first)")
    parser.add_argument("--block", type=int, help="--svg: the block drawn, its place in the order the emulator "
                                                   "ran them (default: blockIdx.x = 0)")
    parser.add_argument("--no-source", action="store_true",
                        help="--svg: no source text, even where the trace has it (line numbers only)")
    parser.add_argument("--beside", metavar="TRACE.json",
                        help="--svg: another stage's trace (same block size), drawn beside this one, row by row")
    args = parser.parse_args(argv)
    doc = load(args.trace)
    if args.svg:
        beside = load(args.beside) if args.beside else None
        text = static_svg(doc, args.impl, args.threads, args.launch, args.block, args.no_source, beside)
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
