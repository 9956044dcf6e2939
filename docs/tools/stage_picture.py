#!/usr/bin/env python3
"""Draws one block of a reduction stage, step by step, by running the stage's own code.

The script reads a stage's .cu file, translates the body of its kernel (and the grid-size
lines of its launcher) into Python, and runs every thread of a small block on the host, with
__syncthreads() and warp shuffles as meeting points. It records every read of the input,
every read and write of shared memory and every shuffle, and draws them as an SVG: one row
per step, arrows from the values a thread adds to the slot it writes, the warps that work,
idle or diverge, and the shared-memory bank conflicts. Nothing in the picture is typed in by
hand: change an index formula in the stage file and the picture changes with it.

Usage: stage_picture.py STAGE_FILE --number K --title TITLE -o OUT.svg [--summary]
The translator understands the C subset the kit's kernels are written in (declarations,
if/else, for, while, compound assignments, the ternary operator, int4 loads, __syncthreads,
__syncwarp, __shfl_down_sync/__shfl_xor_sync). Anything else stops it with a message naming
the statement, so a picture is never drawn from code it did not understand.
"""
import argparse
import html
import math
import re
import sys


class StageCodeError(Exception):
    """The stage file has code the translator does not understand."""


class SimError(Exception):
    """Running the block went wrong (a read outside shared memory, a deadlock, ...)."""


# ----------------------------------------------------------------------------- parsing

def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    # '#pragma unroll' and friends do not change what a thread computes
    return re.sub(r"^[ \t]*#[ \t]*pragma[^\n]*", "", text, flags=re.M)


def matching(text, start, open_ch, close_ch):
    """Index of the bracket closing the one at text[start]."""
    depth = 0
    for k in range(start, len(text)):
        if text[k] == open_ch:
            depth += 1
        elif text[k] == close_ch:
            depth -= 1
            if depth == 0:
                return k
    raise StageCodeError("unbalanced %s%s" % (open_ch, close_ch))


def function_body(text, name):
    m = re.search(r"\b%s\s*\(" % re.escape(name), text)
    while m:
        close = matching(text, m.end() - 1, "(", ")")
        after = text[close + 1:].lstrip()
        if after.startswith("{"):
            brace = text.index("{", close)
            return text[brace + 1:matching(text, brace, "{", "}")]
        m = re.search(r"\b%s\s*\(" % re.escape(name), text[m.end():]) and \
            re.compile(r"\b%s\s*\(" % re.escape(name)).search(text, m.end())
    raise StageCodeError("no definition of %s found" % name)


def tokens(body):
    """Splits a function body into (text, terminator) pairs; terminator is ';', '{' or '}'."""
    out, cur, depth = [], [], 0
    for ch in body:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if depth == 0 and ch in ";{}":
            out.append((" ".join("".join(cur).split()), ch))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        raise StageCodeError("statement without ';': %s" % "".join(cur).strip())
    return out


def split_header(text, keyword):
    """'if (c) rest' -> ('c', 'rest')."""
    start = text.index("(", len(keyword))
    end = matching(text, start, "(", ")")
    return text[start + 1:end].strip(), text[end + 1:].strip()


def split_top(text, sep):
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


class Parser:
    def __init__(self, toks):
        self.toks, self.pos = toks, 0

    def block(self):
        stmts = []
        while self.pos < len(self.toks):
            text, term = self.toks[self.pos]
            if term == "}" and not text:
                self.pos += 1
                return stmts
            stmts.append(self.statement())
        return stmts

    def statement(self):
        text, term = self.toks[self.pos]
        self.pos += 1
        if term == "}":
            if text:
                raise StageCodeError("statement without ';' before '}': %s" % text)
            raise StageCodeError("unexpected '}'")
        return self.parse_text(text, term)

    def body_of(self, rest, term):
        if rest:
            return [self.parse_text(rest, term)]
        if term == "{":
            return self.block()
        raise StageCodeError("empty body")

    def parse_text(self, text, term):
        if not text and term == "{":
            return ("block", self.block())
        if not text and term == ";":
            return ("pass",)
        for kw in ("if", "while", "for"):
            if re.match(r"%s\s*\(" % kw, text):
                head, rest = split_header(text, kw)
                if kw == "for":
                    # 'for (a; b; c)' was cut at the ';'s by the tokenizer only outside
                    # parentheses, so the header is whole here.
                    parts = split_top(head, ";")
                    if len(parts) != 3:
                        raise StageCodeError("cannot read for header: %s" % head)
                    return ("for", parts[0], parts[1], parts[2], self.body_of(rest, term))
                node_body = self.body_of(rest, term)
                if kw == "while":
                    return ("while", head, node_body)
                orelse = []
                if self.pos < len(self.toks) and re.match(r"else\b", self.toks[self.pos][0]):
                    etext, eterm = self.toks[self.pos]
                    self.pos += 1
                    orelse = self.body_of(etext[4:].strip(), eterm)
                return ("if", head, node_body, orelse)
        if term != ";":
            raise StageCodeError("cannot read statement: %s %s" % (text, term))
        return ("simple", text)


# ----------------------------------------------------------------------------- translation

TYPE_RE = re.compile(r"^(?:static\s+)?(?:const\s+)?(unsigned\s+int|unsigned|int4|int|size_t)\b\s*")


def translate_expr(e):
    e = re.sub(r"\(\s*const\s+int4\s*\*\s*\)\s*(\w+)", r"_int4(\1)", e)
    e = re.sub(r"\(\s*(?:unsigned\s+int|unsigned|int|size_t)\s*\)", "", e)
    e = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", e)
    e = re.sub(r"__syncthreads\s*\(\s*\)", '(yield ("sync",))', e)
    e = re.sub(r"__syncwarp\s*\([^()]*\)", '(yield ("syncwarp",))', e)
    e = re.sub(r"__shfl_(down|xor)_sync\s*\(([^,()]+),([^,()]+),([^,()]+)\)",
               r'(yield ("shfl_\1", \3, \4))', e)
    if re.search(r"\+\+|--|->|#|\bsizeof\b|&(?!&)\s*\w+\s*\[|<<<|\bgoto\b|\bdo\b", e):
        raise StageCodeError("the picture generator does not understand: %s" % e)
    e = e.replace("&&", " and ").replace("||", " or ")
    e = re.sub(r"!(?!=)", " not ", e)
    e = re.sub(r"(?<![/])/(?![/=])", "//", e).replace("/=", "//=").replace("////", "//")
    e = re.sub(r"\bin\b", "in_", e)
    e = re.sub(r"\btrue\b", "True", e)
    e = re.sub(r"\bfalse\b", "False", e)
    return ternary(e)


def ternary(e):
    """C's 'a ? b : c' (top level, right-associative) to Python's '(b if a else c)'."""
    depth, q = 0, -1
    for k, ch in enumerate(e):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "?" and depth == 0:
            q = k
            break
    if q < 0:
        # look inside parentheses
        return re.sub(r"\(([^()]*\?[^()]*)\)", lambda m: "(" + ternary(m.group(1)) + ")", e)
    depth = 0
    for k in range(q + 1, len(e)):
        ch = e[k]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == ":" and depth == 0:
            cond, a, b = e[:q], e[q + 1:k], e[k + 1:]
            lhs = ""
            m = re.match(r"^(.*?(?:\+=|-=|\*=|(?<![=!<>])=(?!=)))(.*)$", cond)
            if m:
                lhs, cond = m.group(1), m.group(2)
            return "%s (%s if %s else %s)" % (lhs, ternary(a), cond, ternary(b))
    raise StageCodeError("cannot read ?: in %s" % e)


class Emitter:
    def __init__(self):
        self.lines = []
        self.unsigned = set()

    def emit(self, depth, line):
        self.lines.append("    " * depth + line)

    def simple(self, depth, text):
        if re.match(r"^(extern\s+)?__shared__\b", text):
            self.emit(depth, "pass")
            return
        if text == "return":
            self.emit(depth, "return")
            return
        m = TYPE_RE.match(text)
        if m:
            is_unsigned = m.group(1).startswith("unsigned") or m.group(1) == "size_t"
            for decl in split_top(text[m.end():], ","):
                dm = re.match(r"^\*?\s*(\w+)\s*(?:=(.*))?$", decl)
                if not dm:
                    raise StageCodeError("cannot read declaration: %s" % text)
                name, init = dm.group(1), (dm.group(2) or "0")
                if is_unsigned:
                    self.unsigned.add(name)
                self.assign(depth, name, "=", init.strip())
            return
        m = re.match(r"^(\w+)\s*(\+=|-=|\*=|/=|%=|>>=|<<=|&=|\|=|=)(?!=)\s*(.*)$", text)
        if m:
            self.assign(depth, m.group(1), m.group(2), m.group(3))
            return
        self.emit(depth, translate_expr(text))

    def assign(self, depth, name, op, expr):
        rhs = translate_expr(expr)
        op = "//=" if op == "/=" else op
        self.emit(depth, "%s %s %s" % (name, op, rhs))
        if name in self.unsigned:
            self.emit(depth, "%s = _u32(%s)" % (name, name))

    def block(self, depth, stmts):
        if not stmts:
            self.emit(depth, "pass")
        for st in stmts:
            self.stmt(depth, st)

    def stmt(self, depth, st):
        kind = st[0]
        if kind == "simple":
            self.simple(depth, st[1])
        elif kind == "pass":
            self.emit(depth, "pass")
        elif kind == "block":
            self.block(depth, st[1])
        elif kind == "if":
            self.emit(depth, "if %s:" % translate_expr(st[1]))
            self.block(depth + 1, st[2])
            if st[3]:
                self.emit(depth, "else:")
                self.block(depth + 1, st[3])
        elif kind == "while":
            self.emit(depth, "while %s:" % translate_expr(st[1]))
            self.block(depth + 1, st[2])
        elif kind == "for":
            init, cond, update, body = st[1:]
            if init:
                self.simple(depth, init)
            self.emit(depth, "while %s:" % (translate_expr(cond) if cond else "True"))
            self.block(depth + 1, body)
            if update:
                self.simple(depth + 1, update)


def translate_kernel(source):
    """Returns (python source of the kernel as a generator, kernel name, template param)."""
    text = strip_comments(source)
    m = re.search(r"KIT_REGISTER_STAGE\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)", text)
    if not m:
        raise StageCodeError("no KIT_REGISTER_STAGE(name, launcher) line")
    kernel, launcher = m.group(1), m.group(2)
    km = re.search(r"(template\s*<\s*unsigned(?:\s+int)?\s+(\w+)\s*>\s*)?(?:static\s+)?__global__\s+void\s+%s\s*\("
                   % re.escape(kernel), text)
    if not km:
        raise StageCodeError("no __global__ kernel named %s" % kernel)
    template = km.group(2)
    kbody = function_body(text[km.start():], kernel)
    em = Emitter()
    em.emit(0, "def kernel(in_, out, n, threadIdx, blockIdx, blockDim, gridDim, sdata, %s):"
            % (template or "_blockSize"))
    em.emit(1, "if False: yield None")
    em.block(1, Parser(tokens(kbody)).block())
    kernel_src = "\n".join(em.lines)

    # The launcher's grid size: its statements up to the first launch or switch.
    lbody = function_body(text, launcher)
    cut = re.search(r"<<<|\bswitch\b|\breturn\b", lbody)
    head = lbody[:cut.start()] if cut else lbody
    head = head[:head.rfind(";") + 1] if ";" in head else ""
    le = Emitter()
    le.emit(0, "def launcher(n, threads):")
    le.emit(1, "blocks = 0")
    le.block(1, Parser(tokens(head)).block())
    le.emit(1, "return blocks")
    defines = dict((k, int(v, 0)) for k, v in
                   re.findall(r"#define\s+(\w+)\s+(0[xX][0-9a-fA-F]+|\d+)[uU]?\s*$", text, re.M))
    return kernel_src, "\n".join(le.lines), defines, template


# ----------------------------------------------------------------------------- running

class V:
    """A value in the simulation: which input elements it sums, and where it came from."""
    __slots__ = ("leaves", "parents", "dup")

    def __init__(self, leaves, parents=(), dup=False):
        self.leaves, self.parents, self.dup = leaves, parents, dup

    def __add__(self, other):
        if isinstance(other, int):
            if other != 0:
                raise SimError("a value is added to a non-zero constant")
            return self
        return V(self.leaves | other.leaves, (self, other),
                 self.dup or other.dup or bool(self.leaves & other.leaves))

    __radd__ = __add__

    @property
    def count(self):
        return len(self.leaves)


class D3:
    def __init__(self, x):
        self.x = x


class Recorder:
    def __init__(self):
        self.phase = 0
        self.block = 0
        self.tid = 0
        self.events = []  # dicts

    def add(self, **kw):
        kw.update(phase=self.phase, block=self.block, tid=self.tid)
        self.events.append(kw)


class Shared:
    def __init__(self, size, rec):
        self.cells, self.rec, self.size = [0] * size, rec, size

    def check(self, k):
        if not isinstance(k, int) or k < 0 or k >= self.size:
            raise SimError("thread %d touches sdata[%s], outside the %d-slot array"
                           % (self.rec.tid, k, self.size))

    def __getitem__(self, k):
        self.check(k)
        self.rec.add(kind="sread", index=k)
        return self.cells[k]

    def __setitem__(self, k, v):
        self.check(k)
        self.rec.add(kind="swrite", index=k, value=v)
        self.cells[k] = v


class Input:
    def __init__(self, n, rec):
        self.n, self.rec = n, rec

    def __getitem__(self, k):
        self.rec.add(kind="load", index=k, width=1, bad=not (0 <= k < self.n))
        return V(frozenset([k])) if 0 <= k < self.n else V(frozenset())

    def int4(self):
        return Int4View(self)


class Int4:
    def __init__(self, vals):
        self.x, self.y, self.z, self.w = vals


class Int4View:
    def __init__(self, inp):
        self.inp = inp

    def __getitem__(self, k):
        base = 4 * k
        bad = not (0 <= base and base + 3 < self.inp.n)
        self.inp.rec.add(kind="load", index=base, width=4, bad=bad)
        return Int4([V(frozenset([base + j])) if 0 <= base + j < self.inp.n else V(frozenset())
                     for j in range(4)])


class Output:
    def __init__(self, rec):
        self.rec, self.values = rec, {}

    def __setitem__(self, k, v):
        self.rec.add(kind="out", index=k, value=v)
        self.values[k] = v


def u32(x):
    return x & 0xFFFFFFFF


def run_block(kernel_fn, n, threads, block, grid, warp, rec, template):
    sdata = Shared(threads, rec)
    inp, out = Input(n, rec), Output(rec)
    rec.block = block
    gens = []
    for t in range(threads):
        g = kernel_fn(inp, out, n, D3(t), D3(block), D3(threads), D3(grid), sdata, threads)
        gens.append(g)
    state = {t: ("start", None) for t in range(threads)}   # waiting on what
    send = {t: None for t in range(threads)}
    alive = set(range(threads))
    rec.phase = 0
    guard = 0
    while alive:
        guard += 1
        if guard > 100000:
            raise SimError("the block does not finish (endless loop?)")
        # run every runnable thread to its next meeting point
        for t in sorted(alive):
            if state[t][0] in ("start", "run"):
                rec.tid = t
                try:
                    y = gens[t].send(send[t]) if state[t][0] == "run" else next(gens[t])
                except StopIteration:
                    alive.discard(t)
                    state[t] = ("done", None)
                    continue
                except (TypeError, AttributeError, ZeroDivisionError, NameError) as exc:
                    raise SimError("thread %d: %s" % (t, exc))
                state[t] = (y[0], y)
                if y[0].startswith("shfl"):
                    rec.add(kind="reg", index=t, value=y[1])
        if not alive:
            break
        kinds = set(state[t][0] for t in alive)
        shfl = [t for t in alive if state[t][0].startswith("shfl") or state[t][0] == "syncwarp"]
        if shfl:
            rec.phase += 1
            for w in sorted(set(t // warp for t in shfl)):
                lanes = [t for t in shfl if t // warp == w]
                vals = {t: state[t][1] for t in lanes}
                for t in lanes:
                    y = vals[t]
                    if y[0] == "syncwarp":
                        send[t] = None
                    else:
                        lane = t % warp
                        k = y[2]
                        src_lane = lane + k if y[0] == "shfl_down" else lane ^ k
                        src = w * warp + src_lane
                        rec.tid = t
                        if 0 <= src_lane < warp and src in vals and vals[src][0] == y[0]:
                            send[t] = vals[src][1]
                            rec.add(kind="shfl", index=t, src=src, offset=k, value=vals[src][1])
                        else:  # no such lane: the shuffle hands back the lane's own value
                            send[t] = y[1]
                            rec.add(kind="shfl", index=t, src=None, offset=k, value=None)
                    state[t] = ("run", None)
            rec.phase += 1
            continue
        if kinds == {"sync"}:
            for t in alive:
                state[t] = ("run", None)
                send[t] = None
            rec.phase += 1
            continue
        raise SimError("threads wait at different barriers: %s" % sorted(kinds))
    return out.values.get(block)


def simulate(kernel_src, launcher_src, defines, template, threads, warp, n_limit=3000):
    env = {"_u32": u32, "_int4": Int4View}
    env.update(defines)
    exec(launcher_src, env)
    exec(kernel_src, env)
    launcher, kernel_fn = env["launcher"], env["kernel"]
    env["resident_blocks"] = lambda t: 2   # a pretend GPU that holds two blocks at once
    # n for the picture: the largest n (<= n_limit) whose launch has two blocks, minus 3, so
    # that the last block has a ragged end.
    best = None
    for n in range(1, n_limit + 1):
        if launcher(n, threads) == 2:
            best = n
    if best is None:
        raise SimError("the launcher never gives two blocks of %d threads for n <= %d" % (threads, n_limit))
    n = best - 3 if best > 3 and launcher(best - 3, threads) == 2 else best
    grid = launcher(n, threads)
    recs, outs = [], []
    for b in range(grid):
        rec = Recorder()
        outs.append(run_block(kernel_fn, n, threads, b, grid, warp, rec, template))
        recs.append(rec)
    return n, grid, recs, outs


# ----------------------------------------------------------------------------- analysis

def ancestors(v):
    seen, todo = set(), [v]
    while todo:
        x = todo.pop()
        if isinstance(x, V) and id(x) not in seen:
            seen.add(id(x))
            todo.extend(x.parents)
    return seen


def cell_count(v):
    return v.count if isinstance(v, V) else 0


def steps_of(rec, threads, warp, banks, final):
    """The rows of the picture for one block: load, tree steps, shuffles, the write."""
    useful = ancestors(final) if final is not None else set()
    phases = sorted(set(e["phase"] for e in rec.events))
    cells = [0] * threads
    regs = {}
    rows = []
    for p in phases:
        evs = [e for e in rec.events if e["phase"] == p]
        ops, reads_by_tid, active = [], {}, set()
        new_cells = list(cells)
        kind = "tree"
        for e in evs:
            t = e["tid"]
            if e["kind"] == "sread":
                reads_by_tid.setdefault(t, []).append(e["index"])
            elif e["kind"] == "load":
                reads_by_tid.setdefault(t, [])
                kind = "load"
            elif e["kind"] == "swrite":
                srcs = [("s", k) for k in reads_by_tid.get(t, []) if k != e["index"]]
                ops.append(dict(tid=t, dst=("s", e["index"]), srcs=srcs, value=e["value"],
                                useful=id(e["value"]) in useful))
                new_cells[e["index"]] = e["value"]
                reads_by_tid[t] = []
                active.add(t)
            elif e["kind"] == "shfl":
                kind = "shfl"
                ops.append(dict(tid=t, dst=("r", t), srcs=[("r", e["src"])] if e["src"] is not None else [],
                                value=e["value"], offset=e["offset"],
                                useful=e["value"] is not None and id(e["value"]) in useful))
                active.add(t)
            elif e["kind"] == "out":
                kind = "out"
                ops.append(dict(tid=t, dst=("r", t), srcs=[("s", k) for k in reads_by_tid.get(t, [])],
                                value=e["value"], useful=True))
                reads_by_tid[t] = []
                active.add(t)
        # threads that read shared memory and kept the result in a register
        leftover = dict((t, ks) for t, ks in reads_by_tid.items() if ks)
        if leftover:
            for t, ks in sorted(leftover.items()):
                ops.append(dict(tid=t, dst=("r", t), srcs=[("s", k) for k in ks], value=None,
                                useful=True))
                active.add(t)
            kind = "register" if kind not in ("load", "out") else kind
        regvals = dict((e["tid"], e["value"]) for e in evs if e["kind"] == "reg")
        for o in ops:
            if o["value"] is None and o["dst"][0] == "r" and o["tid"] in regvals and kind == "register":
                o["value"] = regvals[o["tid"]]
        if not ops:
            # only the sums the lanes carry into their next shuffle: show them in the shuffle row
            if regvals and rows and rows[-1]["kind"] == "shfl":
                rows[-1]["shown"] = regvals
            continue
        if kind == "out" and rows and rows[-1]["kind"] == "shfl":
            rows[-1].setdefault("shown", {})
            for o in ops:
                rows[-1]["shown"][o["tid"]] = o["value"]
        # bank conflicts: per warp, the k-th shared access of each lane is one instruction
        worst, conflict_cells = 1, set()
        seq = {}
        for e in evs:
            if e["kind"] in ("sread", "swrite"):
                seq.setdefault(e["tid"], []).append((e["kind"], e["index"]))
        for w in range(threads // warp):
            lanes = [t for t in range(w * warp, (w + 1) * warp) if t in seq]
            depth = max((len(seq[t]) for t in lanes), default=0)
            for k in range(depth):
                for access in ("sread", "swrite"):
                    words = set(seq[t][k][1] for t in lanes
                                if len(seq[t]) > k and seq[t][k][0] == access)
                    per_bank = {}
                    for wd in words:
                        per_bank.setdefault(wd % banks, set()).add(wd)
                    for b, ws in per_bank.items():
                        if len(ws) > 1:
                            worst = max(worst, len(ws))
                            conflict_cells |= ws
        warps = []
        for w in range(threads // warp):
            a = sum(1 for t in range(w * warp, (w + 1) * warp) if t in active)
            warps.append(a)
        offsets = sorted(set((o["srcs"][-1][1] - o["dst"][1]) for o in ops
                             if o["srcs"] and o["dst"][0] == "s"))
        rows.append(dict(kind=kind, ops=ops, before=cells, after=new_cells, warps=warps,
                         conflict=worst, conflict_cells=conflict_cells, offsets=offsets,
                         active=len(active)))
        cells = new_cells
    return rows


# ----------------------------------------------------------------------------- drawing

BLOCK_HUES = ["#3b6fb6", "#e08a1e", "#4c9a4c", "#9b59b6"]
ROW_H = 96


def shade(hex_color, amount):
    """Mixes a colour with white: amount 0 keeps it, 1 gives white."""
    r, g, b = (int(hex_color[k:k + 2], 16) for k in (1, 3, 5))
    mix = lambda c: int(c + (255 - c) * amount)
    return "#%02x%02x%02x" % (mix(r), mix(g), mix(b))


# The picture's second line, where it comes from (docs_assets.py gives the student edition its own).
SOURCE_NOTE = "Generated by docs/tools/stage_picture.py from the kernel in the stage's solution file."


def draw(number, title, threads, warp, banks, n, grid, recs, outs, scaled, note=SOURCE_NOTE):
    cell_w = 36 if threads <= 16 else 14
    gap = 4 if threads <= 16 else 1
    left, top = 150, 96
    arr_w = threads * (cell_w + gap)
    width = left + max(arr_w, 600) + 330
    svg = []
    y = top

    def text(x, yy, s, size=12, anchor="start", color="#222", weight="normal", cls=""):
        svg.append('<text x="%.1f" y="%.1f" font-size="%s" text-anchor="%s" fill="%s" font-weight="%s"%s>%s</text>'
                   % (x, yy, size, anchor, color, weight, (' class="%s"' % cls) if cls else "", html.escape(s)))

    # --- input panel
    loads = [e for r in recs for e in r.events if e["kind"] == "load"]
    unit = 4 if any(e["width"] == 4 for e in loads) else 1
    n_cells = (n + unit - 1) // unit
    total_cells = max(n_cells, max(((e["index"] + e["width"] - 1) // unit + 1 for e in loads), default=0))
    row_len = 32 if total_cells <= 32 else 64 if total_cells <= 64 else 128
    in_w = (max(arr_w, 600)) / row_len
    owner = {}
    ordinal = {}
    for e in loads:
        key = (e["block"], e["tid"])
        ordinal[key] = ordinal.get(key, -1) + 1
        c = e["index"] // unit
        owner.setdefault(c, []).append((e["block"], e["tid"], ordinal[key], e["bad"], e["width"]))
    text(left, y - 30, "Input: %d ints%s, %d blocks of %d threads (colour = block, lighter = a later load "
         "of the same thread)" % (n, " read as 16-byte int4s (one cell = 4 ints)" if unit == 4 else "",
                                   grid, threads), 12)
    rows_in = (total_cells + row_len - 1) // row_len
    for c in range(rows_in * row_len):
        cx = left + (c % row_len) * in_w
        cy = y + (c // row_len) * 24 - 16
        if c in owner:
            b, t, k, bad, wd = owner[c][0]
            fill = "#d62728" if bad or len(owner[c]) > 1 else shade(BLOCK_HUES[b % 4], min(0.75, 0.22 * k))
            svg.append('<rect x="%.1f" y="%.1f" width="%.1f" height="18" fill="%s" stroke="#fff" stroke-width="0.5"/>'
                       % (cx, cy, in_w, fill))
            if in_w >= 14:
                text(cx + in_w / 2, cy + 13, str(t), 9, "middle", "#fff")
        elif c < n_cells:
            svg.append('<rect x="%.1f" y="%.1f" width="%.1f" height="18" fill="#fff" stroke="#d62728" stroke-width="1.5"/>'
                       % (cx, cy, in_w))
        else:
            svg.append('<rect x="%.1f" y="%.1f" width="%.1f" height="18" fill="#eee" stroke="#fff" stroke-width="0.5"/>'
                       % (cx, cy, in_w))
    text(left - 10, y - 3, "in[ ]", 12, "end", "#555")
    legend_y = y + rows_in * 24 - 8
    problems = []
    never = [c for c in range(n_cells) if c not in owner]
    twice = [c for c in owner if len(owner[c]) > 1]
    past = sorted(set(e["index"] for e in loads if e["bad"]))
    if never:
        problems.append("%d input cells are never read (white with a red border)" % len(never))
    if twice:
        problems.append("%d input cells are read twice (red)" % len(twice))
    if past:
        problems.append("reads past the end of the input at index %d" % past[0])
    text(left, legend_y, "Cells past n = %d are grey: no thread reads them." % n, 11, color="#555")
    y = legend_y + 40

    # --- block 0, step by step
    rows = steps_of(recs[0], threads, warp, banks, outs[0])
    text(left, y - 22, "Block 0, step by step. Each row is the block's memory after one step; a number is "
         "how many inputs that slot has summed.", 12)
    xs = lambda col: left + col * (cell_w + gap)
    step_no = 0
    for r_i, row in enumerate(rows):
        if r_i > 0:
            y += ROW_H
        # label
        if row["kind"] == "load":
            label, detail = "load", "each thread stores what it read"
        elif row["kind"] == "shfl":
            offs = sorted(set(o["offset"] for o in row["ops"]))
            label, detail = "shuffle", "sum += lane t + %s's sum" % ", ".join(map(str, offs))
        elif row["kind"] == "out":
            label, detail = "write", "out[blockIdx.x] = the sum"
        elif row["kind"] == "register":
            o0 = row["ops"][0]
            terms = ["sdata[t%s]" % ("" if k == o0["tid"] else " + %d" % (k - o0["tid"])) for _, k in o0["srcs"]]
            label, detail = "registers", "sum = " + " + ".join(terms)
        else:
            step_no += 1
            label = "step %d" % step_no
            detail = ("sdata[d] += sdata[d + %s]" % ", ".join(map(str, row["offsets"]))) if row["offsets"] else ""
        text(left - 12, y + 16, label, 13, "end", weight="bold")
        lines, cur = [], ""
        for word in detail.split():
            if cur and len(cur) + len(word) > 24:
                lines.append(cur)
                cur = word
            else:
                cur = (cur + " " + word).strip()
        lines.append(cur)
        for k, ln in enumerate(lines[:3]):
            text(left - 12, y + 32 + 12 * k, ln, 9.5, "end", "#555")
        # array after the step
        is_reg = row["kind"] in ("shfl", "register", "out")
        written = {}
        for o in row["ops"]:
            written[o["dst"][1]] = o
        for col in range(threads):
            x = xs(col)
            if is_reg:
                o = written.get(col)
                if o is None:
                    fill, val, stroke = "#f4f4f4", "", "#ddd"
                else:
                    useful = o.get("useful", True)
                    fill = "#ffd27f" if useful else "#fbeed2"
                    val, stroke = "", "#c9a04c"
                    shown = row.get("shown", {}).get(col, o["value"])
                    if row["kind"] == "shfl" and col not in row.get("shown", {}):
                        shown = None
                    if shown is not None and useful:
                        val = str(cell_count(shown))
                svg.append('<rect x="%.1f" y="%.1f" width="%d" height="22" rx="3" fill="%s" stroke="%s"/>'
                           % (x, y, cell_w, fill, stroke))
            else:
                v = row["after"][col]
                o = written.get(col)
                if o is not None:
                    fill = "#7fb2e5" if o.get("useful", True) else "#cfe0f2"
                else:
                    fill = "#f4f4f4"
                stroke = "#d62728" if col in row["conflict_cells"] else "#999"
                sw = 2.2 if col in row["conflict_cells"] else 0.8
                svg.append('<rect x="%.1f" y="%.1f" width="%d" height="22" fill="%s" stroke="%s" stroke-width="%s"/>'
                           % (x, y, cell_w, fill, stroke, sw))
                val = str(cell_count(v))
                if isinstance(v, V) and v.dup:
                    val += "!"
            if val and (cell_w >= 20 or len(val) <= 3):
                text(x + cell_w / 2, y + 15, val, 11 if cell_w >= 20 else (7.5 if len(val) <= 2 else 6), "middle")
            o = written.get(col)
            if o is not None and cell_w >= 20:
                text(x + cell_w / 2, y + 34, "t%d" % o["tid"], 9, "middle", "#3b6fb6")
        # arrows from the row above
        if r_i > 0:
            y0 = y - ROW_H + 22
            for o in row["ops"]:
                if not o.get("useful", True) and row["kind"] == "shfl":
                    continue
                dx = xs(o["dst"][1]) + cell_w / 2
                for s in o["srcs"]:
                    sx = xs(s[1]) + cell_w / 2
                    color = "#2b5d9b" if row["kind"] != "shfl" else "#b07a10"
                    svg.append('<path d="M%.1f %.1f C%.1f %.1f %.1f %.1f %.1f %.1f" fill="none" stroke="%s" '
                               'stroke-width="1.1" marker-end="url(#arrow)" opacity="0.85"/>'
                               % (sx, y0 + 2, sx, y0 + 40, dx, y - 30, dx, y - 3, color))
                if row["kind"] not in ("shfl", "register") and cell_w < 20:
                    pass
        # right panel: warps and bank conflicts
        px = left + max(arr_w, 600) + 24
        wbox = min(36, 260 / max(1, len(row["warps"])))
        for w, a in enumerate(row["warps"]):
            if a == warp:
                fill, t = "#4c9a4c", "all"
            elif a == 0:
                fill, t = "#dddddd", "idle"
            else:
                fill, t = "#e8a33d", "%d/%d" % (a, warp)
            svg.append('<rect x="%.1f" y="%.1f" width="%.1f" height="22" fill="%s" stroke="#fff"/>'
                       % (px + w * wbox, y, wbox, fill))
            text(px + w * wbox + wbox / 2, y + 15, t, 9 if wbox >= 30 else 7, "middle",
                 "#fff" if a else "#777")
        divergent = sum(1 for a in row["warps"] if 0 < a < warp)
        busy = sum(1 for a in row["warps"] if a)
        summary = "%d of %d threads work; %d of %d warps busy" % (row["active"], threads, busy, len(row["warps"]))
        text(px, y + 36, summary, 10.5, color="#333")
        line2 = []
        if divergent:
            line2.append("%d divergent" % divergent)
        if row["kind"] not in ("shfl", "out"):
            line2.append("bank conflicts: %s" % ("%d-way" % row["conflict"] if row["conflict"] > 1 else "none"))
        text(px, y + 50, "; ".join(line2), 10.5, "#d62728" if (divergent or row["conflict"] > 1) else "#333")
        row["summary"] = "%s | %s | %s" % (label, summary, "; ".join(line2))
    y += 70
    final = outs[0]
    text(left, y, "Thread 0 writes out[0] = the sum of %d inputs." % cell_count(final), 12, weight="bold")
    cover = set()
    dup = False
    for v in outs:
        if isinstance(v, V):
            dup = dup or v.dup or bool(cover & v.leaves)
            cover |= v.leaves
    missing = n - len(cover & set(range(n)))
    if missing:
        problems.append("%d inputs are in no block's sum" % missing)
    if dup:
        problems.append("some inputs are counted twice ('!' in a cell)")
    y += 20
    if problems:
        text(left, y, "Wrong: " + "; ".join(problems) + ".", 12, color="#d62728", weight="bold")
    else:
        text(left, y, "Check: the %d block sums together cover in[0..%d) exactly once." % (grid, n), 12, color="#2c7a2c")
    y += 24
    model = ("Scaled-down model: a warp of %d lanes and %d shared-memory banks (a real GPU has 32 and 32), "
             "so that 16 threads show several warps." % (warp, banks)) if scaled else \
            "Real model: a warp is 32 lanes, shared memory has 32 banks of 4-byte words."
    text(left, y, model, 11, color="#555")
    y += 16
    text(left, y, "Right: one box per warp (green: all lanes work, orange: divergent, grey: idle). "
         "Red borders: slots hit by a bank conflict. Light fill: computed but never used.", 11, color="#555")
    height = y + 20
    head = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" '
            'font-family="DejaVu Sans, Arial, sans-serif">' % (width, height, width, height),
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
            'orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#2b5d9b"/></marker></defs>',
            '<rect width="100%" height="100%" fill="#fff"/>']
    head.append('<text x="20" y="30" font-size="17" font-weight="bold" fill="#222">%s</text>'
                % html.escape("Stage %d: %s, one block of %d threads" % (number, title, threads)))
    head.append('<text x="20" y="50" font-size="11" fill="#555">%s</text>'
                % html.escape(note))
    return "\n".join(head + svg + ["</svg>"]) + "\n", rows, problems


def picture(path, number, title, threads=None, note=SOURCE_NOTE):
    with open(path, encoding="utf-8") as f:
        source = f.read()
    kernel_src, launcher_src, defines, template = translate_kernel(source)
    tries = [threads] if threads else [16, 64]
    errors = []
    for b in tries:
        warp = banks = 4 if b == 16 else 32
        try:
            n, grid, recs, outs = simulate(kernel_src, launcher_src, defines, template, b, warp)
        except SimError as exc:
            errors.append("with %d threads: %s" % (b, exc))
            continue
        return draw(number, title, b, warp, banks, n, grid, recs, outs, scaled=(b == 16), note=note)
    raise SimError("; ".join(errors))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("stage_file")
    ap.add_argument("--number", type=int, required=True)
    ap.add_argument("--title", required=True)
    ap.add_argument("--threads", type=int, choices=[16, 64])
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--summary", action="store_true", help="also print one line per step")
    args = ap.parse_args(argv)
    try:
        svg, rows, problems = picture(args.stage_file, args.number, args.title, args.threads)
    except (OSError, StageCodeError, SimError, SyntaxError) as exc:
        print("stage_picture.py: %s: %s" % (args.stage_file, exc), file=sys.stderr)
        return 1
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(svg)
    if args.summary:
        for r in rows:
            print(r["summary"])
        for p in problems:
            print("problem:", p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
