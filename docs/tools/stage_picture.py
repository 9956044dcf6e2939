#!/usr/bin/env python3
"""Draws one block of a reduction stage, step by step, by running the stage's own code.

The script reads a stage's .cu file, translates the body of its kernel (and the grid-size
lines of its launcher) into Python, and runs every thread of a small block on the host, with
__syncthreads() and warp shuffles as meeting points. It records every read of the input,
every read and write of shared memory and every shuffle, and draws them as an SVG: one row
per step, arrows from the values a thread adds to the slot it writes, the warps that work,
idle or diverge, and the shared-memory bank conflicts. Nothing in the picture is typed in by
hand: change an index formula in the stage file and the picture changes with it.

Usage: stage_picture.py STAGE_FILE --number K [--title TITLE] [-o OUT.svg] [--summary]
                        [--results DIR [--require-counters]] [--counters-json]
Each picture ends with the counters of one launch (the emulator's reduce_ladder_emu
--counters, same definitions; docs/pictures.md); --counters-json prints them. Stage 6's
picture starts with a panel comparing stages 5 and 6: loop tests from the model and the
GPU's instruction counters from the newest run per GPU in --results (docs/results).
The translator understands the C subset the kit's kernels are written in (declarations,
if/else, for, while, compound assignments, the ternary operator, int4 loads, __syncthreads,
__syncwarp, __shfl_down_sync/__shfl_xor_sync). Anything else stops it with a message naming
the statement, so a picture is never drawn from code it did not understand.
"""
import argparse
import glob
import html
import json
import math
import os
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

TYPE_RE = re.compile(r"^(?:static\s+)?(?:const\s+)?(unsigned\s+long\s+long|long\s+long|unsigned\s+int|unsigned|int4|int|"
                     r"size_t)\b\s*")
WIDE = re.compile(r"long\s+long$")   # 64-bit types: never wrapped to 32 bits (the model's sums are symbolic)
CAST = re.compile(r"\(\s*(?:unsigned\s+long\s+long|long\s+long|unsigned\s+int|unsigned|int|size_t)\s*\)")


def call_helpers(e, helpers):
    """A call of one of the file's __device__ functions runs it as a generator, so that its
    shuffles and barriers still meet the other threads: f(x) -> (yield from f(x))."""
    for name in helpers:
        start = 0
        while True:
            m = re.compile(r"\b%s\s*\(" % re.escape(name)).search(e, start)
            if not m:
                break
            close = matching(e, m.end() - 1, "(", ")")
            e = e[:m.start()] + "(yield from %s(%s))" % (name, e[m.end():close]) + e[close + 1:]
            start = m.start() + len("(yield from ")  + len(name)
    return e


INT_CAST = re.compile(r"\(\s*(unsigned\s+int|unsigned|int)\s*\)\s*")


def cast_operand_end(e, start):
    """Where the operand of a cast that starts at e[start] ends: another cast and its operand,
    a parenthesized expression, or a name or number with its .member and [index] suffixes."""
    m = INT_CAST.match(e, start) or CAST.match(e, start)
    if m:
        return cast_operand_end(e, m.end() + len(e[m.end():]) - len(e[m.end():].lstrip()))
    if start < len(e) and e[start] == "(":
        return matching(e, start, "(", ")") + 1
    m = re.compile(r"[\w.]+").match(e, start)
    if not m:
        raise StageCodeError("cannot read the operand of a cast in %s" % e)
    end = m.end()
    while end < len(e) and e[end] == "[":
        end = matching(e, end, "[", "]") + 1
    return end


def int_casts(e):
    """(int)x and (unsigned int)x -> _cast_i32(x) and _cast_u32(x): they decide how a 32-bit sum
    widens to 64 bits and take the low 32 bits of a 64-bit word. The other casts are dropped."""
    while True:
        m = INT_CAST.search(e)
        if not m:
            return e
        end = cast_operand_end(e, m.end())
        fn = "_cast_i32" if m.group(1) == "int" else "_cast_u32"
        e = e[:m.start()] + "%s(%s)" % (fn, e[m.end():end]) + e[end:]


def translate_expr(e, helpers=(), device_vars=()):
    e = call_helpers(e, helpers)
    # atomicAdd(&word, v) on a __device__ variable: the model adds at once (its blocks run one
    # after another, so they arrive in block order) and records the add
    e = re.sub(r"\batomicAdd\s*\(\s*&\s*(\w+)\s*,", lambda m: '_atomic_add("%s",' % m.group(1), e)
    for name in device_vars:
        e = re.sub(r"(?<![\w.\"])%s\b(?!\")" % re.escape(name), "_dev." + name, e)
    e = re.sub(r"\(\s*const\s+int4\s*\*\s*\)\s*(\w+)", r"_int4(\1)", e)
    e = int_casts(e)
    e = CAST.sub("", e)
    e = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", e)
    e = re.sub(r"__syncthreads\s*\(\s*\)", '(yield ("sync",))', e)
    e = re.sub(r"__syncwarp\s*\([^()]*\)", '(yield ("syncwarp",))', e)
    e = re.sub(r"__shfl_(down|xor)_sync\s*\(([^,()]+),([^,()]+),([^,()]+)\)",
               r'(yield ("shfl_\1", \3, \4))', e)
    if re.search(r"\+\+|--|->|#|\bsizeof\b|&(?!&)\s*\w+\s*\[|<<<|\bgoto\b|\bdo\b|\batomic\w*\s*\(", e):
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
    """Python lines from parsed C statements. helpers: the file's __device__ functions (called
    through yield from); device_vars: its __device__ variables (one per launch, in _dev)."""

    def __init__(self, helpers=(), device_vars=()):
        self.lines = []
        self.unsigned = set()
        self.helpers, self.device_vars = tuple(helpers), tuple(device_vars)

    def emit(self, depth, line):
        self.lines.append("    " * depth + line)

    def expr(self, e):
        return translate_expr(e, self.helpers, self.device_vars)

    def simple(self, depth, text):
        m = re.match(r"^(extern\s+)?__shared__\s+(?:unsigned\s+)?\w+\s+(\w+)\s*\[([^\]]*)\]$", text)
        if m and not m.group(1) and m.group(3).strip():
            # a static array: the block's shared memory (sdata) under this name and size
            self.emit(depth, '%s = sdata.declare("%s", %s)' % (m.group(2), m.group(2), self.expr(m.group(3))))
            return
        if re.match(r"^(extern\s+)?__shared__\b", text):
            self.emit(depth, "pass")
            return
        if text == "return":
            self.emit(depth, "return")
            return
        m = TYPE_RE.match(text)
        if m:
            is_unsigned = (m.group(1).startswith("unsigned") or m.group(1) == "size_t") and not WIDE.search(m.group(1))
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
        self.emit(depth, self.expr(text))

    def assign(self, depth, name, op, expr):
        rhs = self.expr(expr)
        op = "//=" if op == "/=" else op
        if name in self.device_vars:
            # a plain store to a __device__ variable (no atomic): recorded, for the picture
            self.emit(depth, '_dev_store("%s", %s%s)' % (name, rhs, "" if op == "=" else
                                                         ", %r" % op[:-1]))
            return
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
            self.emit(depth, "if %s:" % self.expr(st[1]))
            self.block(depth + 1, st[2])
            if st[3]:
                self.emit(depth, "else:")
                self.block(depth + 1, st[3])
        elif kind == "while":
            self.emit(depth, "while _loop_test(%s):" % self.expr(st[1]))
            self.block(depth + 1, st[2])
        elif kind == "for":
            init, cond, update, body = st[1:]
            if init:
                self.simple(depth, init)
            self.emit(depth, "while _loop_test(%s):" % (self.expr(cond) if cond else "True"))
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
    # The file's __device__ variables (one copy per launch, in _dev) and functions (generators,
    # so that a shuffle in them meets the other lanes).
    device_vars = dict((name, init.strip() if init else "0") for name, init in re.findall(
        r"__device__\s+(?:volatile\s+)?(?:unsigned\s+long\s+long|long\s+long|unsigned\s+int|unsigned|int)\s+(\w+)"
        r"\s*(?:=\s*([^;]+))?;", text))
    helpers = []
    for hm in re.finditer(r"__device__\s+(?:(?:__forceinline__|__noinline__|inline|static|const)\s+)*"
                          r"(?:unsigned\s+long\s+long|long\s+long|unsigned\s+int|unsigned|int|void)\s+(\w+)\s*\(", text):
        close = matching(text, hm.end() - 1, "(", ")")
        if text[close + 1:].lstrip().startswith("{"):
            params = [re.sub(r"[*&]", " ", p).split()[-1] for p in split_top(text[hm.end():close], ",")
                      if p and p != "void"]
            helpers.append((hm.group(1), params))
    names = [h for h, _ in helpers]
    em = Emitter(names, device_vars)
    em.emit(0, "_DEVICE_VARS = {%s}" % ", ".join('"%s": %s' % (k, em.expr(v)) for k, v in device_vars.items()))
    for name, params in helpers:
        em.emit(0, "def %s(%s):" % (name, ", ".join(params)))
        em.emit(1, "if False: yield None")
        em.block(1, Parser(tokens(function_body(text, name))).block())
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
    """A value in the simulation: which input elements it sums, and where it came from.
    ext: how the value widens to 64 bits, as C widens it: None for an int (sign-extended),
    "u32" for an unsigned int, (unsigned int)x (zero-extended). low: the value is the low 32
    bits of a packed word ((unsigned int)word, (int)word, or the word stored into an int)."""
    __slots__ = ("leaves", "parents", "dup", "ext", "low")

    def __init__(self, leaves, parents=(), dup=False, ext=None, low=False):
        self.leaves, self.parents, self.dup, self.ext, self.low = leaves, parents, dup, ext, low

    def __add__(self, other):
        if isinstance(other, Word):
            return other + self
        if isinstance(other, int):
            if abs(other) >= PACKED:
                return Word(other, self, *self.range64())   # a count packed above the sum's bits
            if other != 0:
                raise SimError("a value is added to a non-zero constant")
            return V(self.leaves, (self,), self.dup, self.ext)   # a new value: where it goes is its own
        # int + unsigned int is an unsigned int in C (it wraps modulo 2^32, zero-extends)
        return V(self.leaves | other.leaves, (self, other),
                 self.dup or other.dup or bool(self.leaves & other.leaves),
                 "u32" if "u32" in (self.ext, other.ext) else None)

    __radd__ = __add__

    def range64(self):
        """The values this 32-bit value can take once widened to 64 bits: [lo, hi]."""
        return (0, (1 << 32) - 1) if self.ext == "u32" else (-(1 << 31), (1 << 31) - 1)

    @property
    def count(self):
        return len(self.leaves)


# A sum of ints stays far below 2^32 in a picture; a constant at least this large added to one
# is a field packed above it (a count in the high bits of a 64-bit word).
PACKED = 1 << 32


class Word:
    """A 64-bit integer made of an exact constant and a sum of 32-bit values: c + v, as in stage
    8's word of (blocks << 48) + their sums. [lo, hi] is the range the sum part can take, from
    how each value was widened: an int is sign-extended (-2^31 .. 2^31 - 1), an unsigned int
    zero-extended (0 .. 2^32 - 1). Shifting the word right by k bits gives the constant's high
    bits exactly when no sum in that range reaches past the constant's low k bits: a negative
    sum would borrow from them, a sum of 2^k or more carry into them. The low 32 bits are the
    sum modulo 2^32 when the constant has none there."""
    __slots__ = ("c", "v", "lo", "hi")

    def __init__(self, c, v, lo=0, hi=0):
        self.c, self.v, self.lo, self.hi = c, v, lo, hi

    def __add__(self, other):
        if isinstance(other, Word):
            return Word(self.c + other.c, self.v + other.v, self.lo + other.lo, self.hi + other.hi)
        if isinstance(other, V):
            lo, hi = other.range64()
            return Word(self.c, self.v + other, self.lo + lo, self.hi + hi)
        if isinstance(other, int):
            return self.v if self.c + other == 0 else Word(self.c + other, self.v, self.lo, self.hi)
        return NotImplemented

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, int):
            return self + (-other)
        raise SimError("the picture cannot subtract a sum of inputs from a packed word")

    def __rshift__(self, k):
        low = self.c & ((1 << k) - 1)
        if k < 1 or low + self.lo < 0 or low + self.hi >= 1 << k:
            why = []
            if low + self.lo < 0:
                why.append("a negative sum (an int, sign-extended to 64 bits) borrows from the bits above")
            if low + self.hi >= 1 << k:
                why.append("the sums can reach 2^%d and carry into the bits above" % k)
            raise SimError("a packed word shifted right by %d bits: %s, so the count read there would depend "
                           "on the sums (add each sum as its 32 bits, (unsigned int)sum, or round)"
                           % (k, " and ".join(why) or "nothing is left below"))
        return self.c >> k

    def low32(self):
        """The low 32 bits, as (unsigned int)word or (int)word give them: the sum modulo 2^32."""
        if self.c & 0xFFFFFFFF:
            raise SimError("the low 32 bits of a packed word hold part of its constant (%d), not only the sum"
                           % (self.c & 0xFFFFFFFF))
        return V(self.v.leaves, (self.v,), self.v.dup, low=True)

    def fields(self, shift):
        """(the count above bit `shift`, the sum below it) of a word the kernel built."""
        return self.c >> shift, self.v


def cast_u32(x):
    """(unsigned int)x: an int wraps to 0 .. 2^32 - 1; a sum of inputs keeps its value and is
    zero-extended when widened; a packed word gives its low 32 bits."""
    if isinstance(x, Word):
        return x.low32()
    if isinstance(x, V):
        return V(x.leaves, (x,), x.dup, ext="u32", low=x.low)
    return x & 0xFFFFFFFF


def cast_i32(x):
    """(int)x: an int wraps to -2^31 .. 2^31 - 1; a sum of inputs is an int again (sign-extended
    when widened); a packed word gives its low 32 bits."""
    if isinstance(x, Word):
        return x.low32()
    if isinstance(x, V):
        return x if x.ext is None else V(x.leaves, (x,), x.dup, low=x.low)
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


class DeviceVars:
    """The file's __device__ variables for one launch; what is stored in them is recorded."""

    def __init__(self, initial):
        self.__dict__.update(initial)


class D3:
    def __init__(self, x):
        self.x = x


class Recorder:
    def __init__(self):
        self.phase = 0
        self.block = 0
        self.tid = 0
        self.events = []  # dicts
        self.block_barriers = 0   # __syncthreads meetings of this block
        self.warp_meetings = 0    # __syncwarp / shuffle meetings, once per warp
        self.loop_tests = {}      # thread -> how often it evaluated a loop condition
        self.shared_name, self.shared_size = "sdata", 0   # the block's shared array (Shared sets them)

    def add(self, **kw):
        kw.update(phase=self.phase, block=self.block, tid=self.tid)
        self.events.append(kw)


class Shared:
    def __init__(self, size, rec):
        self.cells, self.rec, self.size = [0] * size, rec, size
        rec.shared_name, rec.shared_size = "sdata", size

    def declare(self, name, size):
        """__shared__ int name[size]: the block's shared memory under that name and size."""
        if not isinstance(size, int) or size < 1:
            raise SimError("shared array %s[%s]: the size is not a positive number" % (name, size))
        self.size = size
        self.cells = self.cells[:size] + [0] * max(0, size - len(self.cells))
        self.rec.shared_name, self.rec.shared_size = name, size
        return self

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
        if isinstance(v, Word):   # a 64-bit word stored into an int: its low 32 bits
            v = v.low32()
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
                rec.warp_meetings += 1
                lanes = [t for t in shfl if t // warp == w]
                vals = {t: state[t][1] for t in lanes}
                for t in lanes:
                    y = vals[t]
                    if y[0] == "syncwarp":
                        send[t] = None
                    else:
                        lane = t % warp
                        k = y[2]
                        if warp != REAL_WARP and isinstance(k, int) and k >= warp:
                            raise SimError("a shuffle by %d lanes in the scaled model's %d-lane warp: this kernel "
                                           "is written for 32-lane warps" % (k, warp))
                        src_lane = lane + k if y[0] == "shfl_down" else lane ^ k
                        src = w * warp + src_lane
                        rec.tid = t
                        if 0 <= src_lane < warp and src in vals and vals[src][0] == y[0]:
                            send[t] = vals[src][1]
                            rec.add(kind="shfl", index=t, src=src, offset=k, value=vals[src][1], mode=y[0])
                        else:  # no such lane: the shuffle hands back the lane's own value
                            send[t] = y[1]
                            rec.add(kind="shfl", index=t, src=None, offset=k, value=None, mode=y[0])
                    state[t] = ("run", None)
            rec.phase += 1
            continue
        if kinds == {"sync"}:
            rec.block_barriers += 1
            for t in alive:
                state[t] = ("run", None)
                send[t] = None
            rec.phase += 1
            continue
        raise SimError("threads wait at different barriers: %s" % sorted(kinds))
    return out.values.get(block)


# The emulated GPU of reduce_ladder_emu (emu/src/emu_internal.h), an H100-like sm_90 part.
EMU_SMS, EMU_THREADS_PER_SM, EMU_BLOCKS_PER_SM, EMU_SHARED_PER_SM = 132, 2048, 32, 228 * 1024


def emulated_resident_blocks(threads, shared_bytes=None):
    """Blocks of `threads` the emulated GPU holds at once: SMs x min(32, 2048 / threads,
    shared per SM / shared per block). The kit's blocks (at most 1024 ints of shared memory)
    are never limited by shared memory."""
    per_sm = min(EMU_BLOCKS_PER_SM, EMU_THREADS_PER_SM // threads)
    if shared_bytes:
        per_sm = min(per_sm, EMU_SHARED_PER_SM // shared_bytes)
    return EMU_SMS * per_sm


def build(kernel_src, launcher_src, defines):
    """The translated launcher and kernel as Python functions, and the holder through which
    the kernel's loop tests reach the block being run."""
    holder = {"rec": None}

    def loop_test(cond):
        rec = holder["rec"]
        rec.loop_tests[rec.tid] = rec.loop_tests.get(rec.tid, 0) + 1
        return cond

    def atomic_add(name, value):
        """atomicAdd on a __device__ variable: returns the old value, records the add."""
        rec, dev = holder["rec"], env["_dev"]
        old = getattr(dev, name)
        new = old + value
        setattr(dev, name, new)
        rec.add(kind="atomic", name=name, old=old, added=value, new=new)
        return old

    def dev_store(name, value, op=None):
        rec, dev = holder["rec"], env["_dev"]
        if op is not None:
            value = eval("_a %s _b" % op, {}, {"_a": getattr(dev, name), "_b": value})
        setattr(dev, name, value)
        rec.add(kind="store", name=name, value=value)

    env = {"_u32": u32, "_int4": Int4View, "_loop_test": loop_test, "_atomic_add": atomic_add,
           "_dev_store": dev_store, "_cast_u32": cast_u32, "_cast_i32": cast_i32}
    env.update(defines)
    exec(launcher_src, env)
    exec(kernel_src, env)
    env["_dev"] = DeviceVars(env.get("_DEVICE_VARS", {}))   # fresh for each launch (build() each time)
    holder["dev"] = env["_dev"]
    # Stage 7's launcher asks how many blocks the GPU holds at once: the emulated GPU's answer,
    # the one reduce_ladder_emu gives, so that the picture's launch is the emulator's.
    env["resident_blocks"] = lambda t: emulated_resident_blocks(t)
    return env["launcher"], env["kernel"], holder


def picture_n(launcher, threads, n_limit=3000):
    """n for a picture: the largest n (<= n_limit) whose launch has two blocks, minus 3, so
    that the last block has a ragged end."""
    best = None
    for n in range(1, n_limit + 1):
        if launcher(n, threads) == 2:
            best = n
    if best is None:
        raise SimError("the launcher never gives two blocks of %d threads for n <= %d" % (threads, n_limit))
    return best - 3 if best > 3 and launcher(best - 3, threads) == 2 else best


def simulate(kernel_src, launcher_src, defines, template, threads, warp, n=None, n_limit=3000):
    """Runs every block of one launch; n defaults to picture_n()."""
    launcher, kernel_fn, holder = build(kernel_src, launcher_src, defines)
    if n is None:
        n = picture_n(launcher, threads, n_limit)
    grid = launcher(n, threads)
    if not grid:
        raise SimError("the launcher starts no block for n = %d and %d threads" % (n, threads))
    recs, outs = [], []
    for b in range(grid):
        rec = Recorder()
        holder["rec"] = rec
        outs.append(run_block(kernel_fn, n, threads, b, grid, warp, rec, template))
        recs.append(rec)
    return n, grid, recs, outs


# ----------------------------------------------------------------------------- counters

# What reduce_ladder_emu --counters reports for a stage's first pass (the launch that reads
# the n inputs), computed here from the same run of the block that the picture draws. The
# definitions are the emulator's, word for word in docs/pictures.md.
COUNTER_KEYS = ("blocks", "threads_per_block", "resident_blocks", "elements_per_thread",
                "block_barriers", "warp_meetings",
                "global_loads", "global_load_bytes", "global_loads_per_element", "global_load_width",
                "shared_requests", "shared_active_lanes", "shared_idle_lanes", "divergent_shared_requests",
                "shared_bank_conflicts", "bank_conflicts_per_request")
REAL_WARP, REAL_BANKS = 32, 32


def shared_requests(rec, threads, warp=REAL_WARP, banks=REAL_BANKS):
    """The block's shared-memory requests: per warp, between two meeting points (a barrier,
    a warp meeting, the threads' start or exit), the k-th shared-memory access of each lane,
    loads and stores in one program-order sequence, form one request.

    A thread runs from one meeting point to the next within one phase of the Recorder, so the
    accesses of a (phase, warp) are one stretch between meeting points. Within a statement
    such as sdata[tid] += sdata[tid + s] this model reads sdata[tid] first; compiled code may
    read sdata[tid + s] first. The totals do not depend on it as long as every lane of the
    warp runs the same statement: the same requests come out, in another order.
    Returns a list of (active lanes, lanes of the warp, wavefronts)."""
    seqs = {}
    for e in rec.events:
        if e["kind"] in ("sread", "swrite"):
            seqs.setdefault((e["phase"], e["tid"] // warp), {}).setdefault(e["tid"], []).append(e["index"])
    out = []
    for (phase, w), lanes in sorted(seqs.items()):
        lanes_of_warp = min(warp, threads - w * warp)
        for k in range(max(len(v) for v in lanes.values())):
            words = [v[k] for v in lanes.values() if len(v) > k]
            per_bank = {}
            for word in set(words):
                per_bank.setdefault(word % banks, set()).add(word)
            out.append((len(words), lanes_of_warp, max(len(ws) for ws in per_bank.values())))
    return out


def counters(recs, n, threads, grid):
    """The launch's counters, under the names reduce_ladder_emu --counters uses."""
    loads = [e for r in recs for e in r.events if e["kind"] == "load"]
    load_bytes = sum(4 * e["width"] for e in loads)
    reqs = [q for r in recs for q in shared_requests(r, threads)]
    conflicts = sum(wf - 1 for _, _, wf in reqs)
    return dict(
        blocks=grid, threads_per_block=threads,
        resident_blocks=emulated_resident_blocks(threads, 4 * threads),
        elements_per_thread=n / float(grid * threads),
        block_barriers=sum(r.block_barriers for r in recs),
        warp_meetings=sum(r.warp_meetings for r in recs),
        global_loads=len(loads), global_load_bytes=load_bytes,
        global_loads_per_element=len(loads) / float(n),
        global_load_width=load_bytes / float(len(loads)) if loads else 0.0,
        shared_requests=len(reqs),
        shared_active_lanes=sum(a for a, _, _ in reqs),
        shared_idle_lanes=sum(lanes - a for a, lanes, _ in reqs),
        divergent_shared_requests=sum(1 for a, lanes, _ in reqs if 0 < a < lanes),
        shared_bank_conflicts=conflicts,
        bank_conflicts_per_request=conflicts / float(len(reqs)) if reqs else 0.0)


def counted_launch(kernel, threads=64):
    """The launch whose counters a picture shows and the emulator test compares: `threads`
    threads per block (the emulator runs 64 to 1024), n by picture_n(), the real 32-lane warp
    and 32 banks. kernel is translate_kernel()'s result."""
    kernel_src, launcher_src, defines, template = kernel
    n, grid, recs, _ = simulate(kernel_src, launcher_src, defines, template, threads, REAL_WARP)
    return dict(n=n, threads=threads, blocks=grid, counters=counters(recs, n, threads, grid))


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
    if isinstance(v, Word):
        v = v.v
    return v.count if isinstance(v, V) else 0


def xor_results(row):
    """A row of xor shuffles is a butterfly: lane t adds the value of lane t ^ k and keeps the
    sum, so after the row every lane holds a sum (after the last row, all of them the warp's
    total, lane 0's being the one used). Each lane shows what it holds after the step: the
    value it carries on (row["shown"]) or, for a lane that carries nothing on because the
    next statement is not a shuffle, its value before the step plus what it received. A lane
    counts as used when it holds a sum of inputs; one that holds only zeros is left pale."""
    if not any(o.get("mode") == "shfl_xor" for o in row["ops"]):
        return
    shown = row.setdefault("shown", {})
    for o in row["ops"]:
        if o["tid"] not in shown:
            before, got = o.get("before"), o["value"]
            if isinstance(before, V) and isinstance(got, V):
                shown[o["tid"]] = V(before.leaves | got.leaves, (before, got),
                                    before.dup or got.dup or bool(before.leaves & got.leaves))
            else:
                shown[o["tid"]] = got if isinstance(got, V) else before
        o["useful"] = isinstance(shown[o["tid"]], V) and shown[o["tid"]].count > 0
    # A butterfly's arrows cross: with several warps at once, only the first warp's lanes are
    # drawn (the others do the same at the same time), so that no warp's arrows cross another's.
    row["first_warp_only"] = sum(1 for a in row["warps"] if a) > 1


def steps_of(rec, threads, warp, banks, final):
    """The rows of the picture for one block: load, tree steps, shuffles, the write."""
    useful = ancestors(final) if final is not None else set()
    phases = sorted(set(e["phase"] for e in rec.events))
    cells = [0] * max(threads, rec.shared_size)
    stored = set()   # the shared slots written so far (the others hold nothing worth a number)
    carried = {}     # the value each thread carried into the phase being read (its last "reg")
    rows = []
    for p in phases:
        evs = [e for e in rec.events if e["phase"] == p]
        ops, reads_by_tid, active = [], {}, set()
        new_cells = list(cells)
        kind = "tree"
        # a register written to shared memory with no shared read: from the row above (a shuffle)
        from_regs = bool(rows) and rows[-1]["kind"] in ("shfl", "register", "regload")
        for e in evs:
            t = e["tid"]
            if e["kind"] == "sread":
                reads_by_tid.setdefault(t, []).append(e["index"])
            elif e["kind"] == "load":
                reads_by_tid.setdefault(t, [])
                kind = "load"
            elif e["kind"] == "atomic":
                kind = "atomic"
                ops.append(dict(tid=t, dst=("r", t), srcs=[("r", t)], value=e["added"], word=e, useful=True))
                active.add(t)
            elif e["kind"] == "swrite":
                srcs = [("s", k) for k in reads_by_tid.get(t, []) if k != e["index"]]
                if from_regs and not reads_by_tid.get(t):
                    srcs = [("r", t)]
                    kind = "store"
                ops.append(dict(tid=t, dst=("s", e["index"]), srcs=srcs, value=e["value"],
                                useful=id(e["value"]) in useful))
                new_cells[e["index"]] = e["value"]
                reads_by_tid[t] = []
                active.add(t)
            elif e["kind"] == "shfl":
                kind = "shfl"
                ops.append(dict(tid=t, dst=("r", t), srcs=[("r", e["src"])] if e["src"] is not None else [],
                                value=e["value"], offset=e["offset"], mode=e.get("mode"), before=carried.get(t),
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
        if not ops and kind == "load" and regvals:
            # the loads summed in registers, carried into the first shuffle (no shared memory)
            kind = "regload"
            for t, v in sorted(regvals.items()):
                ops.append(dict(tid=t, dst=("r", t), srcs=[], value=v, useful=id(v) in useful))
                active.add(t)
        if not ops:
            # only the sums the lanes carry into their next shuffle: show them in the shuffle row
            if regvals and rows and rows[-1]["kind"] == "shfl":
                rows[-1]["shown"] = dict(regvals)
            carried = regvals
            continue
        if kind in ("out", "store", "atomic") and rows and rows[-1]["kind"] == "shfl":
            rows[-1].setdefault("shown", {})
            for o in ops:
                v = o["value"]
                rows[-1]["shown"][o["tid"]] = v.v if isinstance(v, Word) else v
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
                             if o["srcs"] and o["dst"][0] == "s" and o["srcs"][-1][0] == "s"))
        stored |= set(o["dst"][1] for o in ops if o["dst"][0] == "s")
        rows.append(dict(kind=kind, ops=ops, before=cells, after=new_cells, warps=warps,
                         conflict=worst, conflict_cells=conflict_cells, offsets=offsets,
                         active=len(active), slots=rec.shared_size or threads, shared_name=rec.shared_name,
                         stored=set(stored)))
        cells = new_cells
        carried = regvals
    for row in rows:
        xor_results(row)
    return rows


# ----------------------------------------------------------------------------- drawing

BLOCK_HUES = ["#3b6fb6", "#e08a1e", "#4c9a4c", "#9b59b6"]

# Page geometry. The stage pages show the picture at the width of their text column, about
# 900 px; every text is at least MIN_FONT units, which is 10 px or more at that width.
WIDTH = 944          # the SVG's width in its own units: shown 900 px wide, 1 unit = 0.95 px
MARGIN = 8
AREA = WIDTH - 2 * MARGIN   # 928: 32 cells of 29 or 16 cells of 58
SHOWN_AT = 900
OPEN_SCALE = 1.5     # the size the SVG asks for when opened on its own: 1416 px wide, numbers at 16 px
MIN_FONT = 10.6
DIGIT_EM = 0.636     # a digit's advance in DejaVu Sans and Verdana (Arial's are narrower)
TEXT_EM = 0.56       # an average character of running text in DejaVu Sans, for wrapping
FONTS = "DejaVu Sans, Verdana, Arial, sans-serif"


def shade(hex_color, amount):
    """Mixes a colour with white: amount 0 keeps it, 1 gives white."""
    r, g, b = (int(hex_color[k:k + 2], 16) for k in (1, 3, 5))
    mix = lambda c: int(c + (255 - c) * amount)
    return "#%02x%02x%02x" % (mix(r), mix(g), mix(b))


def ink_for(fill):
    """Dark text on a light fill, white text on a dark one."""
    r, g, b = (int(fill[k:k + 2], 16) for k in (1, 3, 5))
    return "#1a1a1a" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


def wrap(text, size, width):
    """Splits text into lines that fit `width` at font `size` (an estimate, on the safe side)."""
    per_line = max(10, int(width / (size * TEXT_EM)))
    lines, cur = [], ""
    for word in text.split(" "):   # only plain spaces: a no-break space (\u00a0) keeps words together
        if not word:
            continue
        if cur and len(cur) + 1 + len(word) > per_line:
            lines.append(cur)
            cur = word
        else:
            cur = (cur + " " + word).strip()
    if cur:
        lines.append(cur)
    return lines


class Canvas:
    """SVG elements in three layers: arrows under the cells, cells under the text."""

    def __init__(self):
        self.arrows, self.shapes, self.texts = [], [], []

    def text(self, x, y, s, size=12, anchor="start", color="#222", weight="normal", halo=False, cls=None,
             fit=None):
        if size < MIN_FONT:
            raise ValueError("text %r at %s units is below the smallest size, %s" % (s, size, MIN_FONT))
        extra = ""
        if halo:   # a white outline under the letters keeps a label readable where arrows cross it
            extra += ' stroke="#ffffff" stroke-width="3.5" stroke-linejoin="round" paint-order="stroke"'
        if cls:
            extra += ' class="%s"' % cls
        if fit is not None:
            extra += ' data-cell-width="%.1f"' % fit
        self.texts.append('<text x="%.1f" y="%.1f" font-size="%.1f" text-anchor="%s" fill="%s"%s%s>%s</text>'
                          % (x, y, size, anchor, color, "" if weight == "normal" else ' font-weight="%s"' % weight,
                             extra, html.escape(s)))

    def paragraph(self, x, y, s, size=12, width=AREA, color="#222", weight="normal", step=None):
        """Wrapped text; returns the y below it."""
        step = step or size * 1.35
        # bold glyphs are about 10% wider than the estimate wrap() makes for regular ones
        for ln in wrap(s, size, width / 1.12 if weight == "bold" else width):
            self.text(x, y, ln, size, color=color, weight=weight)
            y += step
        return y

    def rect(self, x, y, w, h, fill, stroke="none", sw=1.0, rx=0, title=None):
        body = '<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="%s" stroke-width="%.1f"%s' \
               % (x, y, w, h, fill, stroke, sw, ' rx="%d"' % rx if rx else "")
        self.shapes.append(body + ("><title>%s</title></rect>" % html.escape(title) if title else "/>"))

    def number(self, x, y, w, s, color="#1a1a1a", preferred=12.5):
        """A cell's number, centred, as large as `preferred` and never wider than the cell:
        a number that does not fit at MIN_FONT stops the drawing rather than being left out."""
        size = min(preferred, (w - 1) / (len(s) * DIGIT_EM))
        if size < MIN_FONT:
            raise SimError("the number %s does not fit a cell of %.0f units" % (s, w))
        self.text(x + w / 2, y, s, round(size, 1), "middle", color, cls="v", fit=w)

    def arrow(self, sx, sy, dx, dy, color):
        h = (dy - sy) * 0.45
        self.arrows.append('<path d="M%.1f %.1f C%.1f %.1f %.1f %.1f %.1f %.1f" fill="none" stroke="%s" '
                           'stroke-width="1.2" marker-end="url(#arrow)" opacity="0.8"/>'
                           % (sx, sy, sx, sy + h, dx, dy - h, dx, dy - 2, color))


# The picture's second line, where it comes from (docs_assets.py gives the student edition its own).
SOURCE_NOTE = "Generated by docs/tools/stage_picture.py from the kernel in the stage's solution file."

INPUT_H, CELL_H, LINE_PITCH = 20, 24, 40


def draw_input(cv, y, n, grid, threads, recs):
    """The input strip: which block and thread reads each input. Returns (y below, problems)."""
    loads = [e for r in recs for e in r.events if e["kind"] == "load"]
    unit = 4 if any(e["width"] == 4 for e in loads) else 1
    n_cells = (n + unit - 1) // unit
    total = max(n_cells, max(((e["index"] + e["width"] - 1) // unit + 1 for e in loads), default=0))
    per_line = min(32, threads)
    pitch = AREA / per_line
    owner, ordinal = {}, {}
    for e in loads:
        key = (e["block"], e["tid"])
        ordinal[key] = ordinal.get(key, -1) + 1
        owner.setdefault(e["index"] // unit, []).append((e["block"], e["tid"], ordinal[key], e["bad"]))
    what = "%d ints read as 16-byte int4s (one cell = 4 ints)" % n if unit == 4 else "%d ints" % n
    y = cv.paragraph(MARGIN, y, "Input: %s, %d blocks of %d threads. One line = %d cells side by side. "
                     "Colour = block, number = the thread that reads the cell, lighter = a later load by the "
                     "same thread." % (what, grid, threads, per_line), 12.5) + 2
    lines = (total + per_line - 1) // per_line
    for c in range(lines * per_line):
        x = MARGIN + (c % per_line) * pitch
        cy = y + (c // per_line) * (INPUT_H + 3)
        if c in owner:
            b, t, k, bad = owner[c][0]
            fill = "#d62728" if bad or len(owner[c]) > 1 else shade(BLOCK_HUES[b % 4], min(0.72, 0.24 * k))
            cv.rect(x, cy, pitch - 1, INPUT_H, fill)
            cv.number(x, cy + 14.5, pitch - 1, str(t), ink_for(fill), 11.5)
        elif c < n_cells:
            cv.rect(x + 0.75, cy + 0.75, pitch - 2.5, INPUT_H - 1.5, "#ffffff", "#d62728", 1.5)
        else:
            cv.rect(x, cy, pitch - 1, INPUT_H, "#e6e6e6")
    y += lines * (INPUT_H + 3) + 12
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
    if lines * per_line > n_cells:
        y = cv.paragraph(MARGIN, y, "Grey cells lie past n = %d: no thread reads them." % n, 11.5, color="#555")
    return y, problems


def shift_text(c):
    """A packed constant as the code writes it: 2^48 -> '(1 << 48)'."""
    return "(1 << %d)" % (c.bit_length() - 1) if c > 0 and c & (c - 1) == 0 else "{:,}".format(c)


def row_label(row, step_no, warp=REAL_WARP):
    name = row.get("shared_name", "sdata")
    if row["kind"] == "load":
        return "load", "each thread stores what it read"
    if row["kind"] == "regload":
        return "load", "each thread adds what it reads in a register, sum"
    if row["kind"] == "shfl":
        offs = sorted(set(o["offset"] for o in row["ops"]), reverse=True)
        if any(o.get("mode") == "shfl_xor" for o in row["ops"]):
            return "shuffle", "sum += the sum of lane t xor %s" % ", ".join(map(str, offs))
        return "shuffle", "sum += the sum of lane t + %s" % ", ".join(map(str, offs))
    if row["kind"] == "out":
        return "write", "out[blockIdx.x] = the sum"
    if row["kind"] == "store":
        per_warp = all(o["tid"] % warp == 0 and o["dst"][1] == o["tid"] // warp for o in row["ops"])
        return "store", ("lane 0 of each warp: %s[warp] = its warp's sum" % name if per_warp else
                         "%s[...] = sum" % name)
    if row["kind"] == "atomic":
        o0 = row["ops"][0]
        added = o0["value"]
        what = shift_text(added.c) + (" + (unsigned int)sum" if added.lo >= 0 else " + sum") \
            if isinstance(added, Word) else "sum"
        return "atomicAdd", "thread %d: %s += %s" % (o0["tid"], o0["word"]["name"], what)
    if row["kind"] == "register":
        o0 = row["ops"][0]
        terms = ["%s[t%s]" % (name, "" if k == o0["tid"] else " + %d" % (k - o0["tid"])) for _, k in o0["srcs"]]
        return "registers", "sum = " + " + ".join(terms)
    detail = ("sdata[t] += sdata[t + %s]" % ", ".join(map(str, row["offsets"]))) if row["offsets"] else ""
    return "step %d" % step_no, detail


LEVEL_FILL, LEVEL_INK = "#e9eff8", "#1f4e8c"


def draw_level(cv, y, number, title, words):
    """A level's band across the picture (the one-pass stage): 'Level 2, in a warp: ...'.
    Returns the y below it."""
    lead = "Level %d, %s." % (number, title)
    lines = wrap(words, 12.5, AREA - 24)
    h = 30 + 16.5 * len(lines)
    cv.rect(MARGIN, y, AREA, h, LEVEL_FILL, "#b9cbe6", 1.0, rx=4)
    cv.rect(MARGIN, y, 6, h, LEVEL_INK, rx=2)
    cv.text(MARGIN + 16, y + 21, lead, 15, color=LEVEL_INK, weight="bold")
    cv.paragraph(MARGIN + 16, y + 40, words, 12.5, width=AREA - 24, color="#222")
    return y + h + 10


def draw_rows(cv, y, threads, warp, rows, levels=None):
    """Block 0, one row per step. Returns the y below the last row. levels: {row index:
    (number, title, words)}, a band drawn above that row (one_pass_levels())."""
    per_line = min(32, threads)
    pitch = AREA / per_line
    cell_w = pitch - (1 if pitch < 40 else 4)
    xs = lambda col: MARGIN + (col % per_line) * pitch
    places = []   # per row: {("s" or "r", index): (x, y of the cell's top)}
    step_no = 0
    for r_i, row in enumerate(rows):
        if levels and r_i in levels:
            y = draw_level(cv, y, *levels[r_i])
        is_reg = row["kind"] in ("shfl", "register", "out", "regload", "atomic")
        if row["kind"] == "tree":
            step_no += 1
        label, detail = row_label(row, step_no, warp)
        written = dict((o["dst"][1], o) for o in row["ops"])
        slots = min(threads, row.get("slots") or threads)
        if is_reg:
            line_ids = sorted(set(k // per_line for k in written))
            if row.get("first_warp_only"):
                line_ids = line_ids[:1]
        else:
            line_ids = list(range((slots + per_line - 1) // per_line))
        # header: what the step does, which warps work, bank conflicts
        cv.text(MARGIN, y + 14, label, 13.5, weight="bold", halo=True)
        cv.text(MARGIN + 13.5 * 0.68 * len(label) + 12, y + 14, detail, 12.5, color="#333", halo=True)
        nw = len(row["warps"])
        bw = 70 if nw <= 2 else 62
        for w, a in enumerate(row["warps"]):
            if a == warp:
                fill, t = "#4c9a4c", "w%d all" % w
            elif a == 0:
                fill, t = "#dddddd", "w%d idle" % w
            else:
                fill, t = "#e8a33d", "w%d %d/%d" % (w, a, warp)
            bx = MARGIN + AREA - (nw - w) * bw
            cv.rect(bx, y, bw - 2, 19, fill, rx=2)
            cv.text(bx + (bw - 2) / 2, y + 14, t, 11, "middle", "#ffffff" if a else "#555")
        divergent = sum(1 for a in row["warps"] if 0 < a < warp)
        busy = sum(1 for a in row["warps"] if a)
        summary = "%d of %d threads work; %d of %d warps busy" % (row["active"], threads, busy, nw)
        line2 = []
        if divergent:
            line2.append("%d divergent" % divergent)
        if row["kind"] not in ("shfl", "out", "regload", "atomic"):
            line2.append("bank conflicts: %s" % ("%d-way" % row["conflict"] if row["conflict"] > 1 else "none"))
        status = summary + ("; " + "; ".join(line2) if line2 else "")
        cv.text(MARGIN + AREA, y + 34, status, 11.5, "end",
                "#c0392b" if (divergent or row["conflict"] > 1) else "#444", halo=True)
        row["summary"] = "%s | %s | %s" % (label, summary, "; ".join(line2))
        top = y + 42
        where = {}
        for li, line in enumerate(line_ids):
            ly = top + li * LINE_PITCH
            for col in range(line * per_line, min(threads if is_reg else slots, (line + 1) * per_line)):
                x = xs(col)
                o = written.get(col)
                where[("r" if is_reg else "s", col)] = (x, ly)
                if is_reg:
                    if o is None:
                        cv.rect(x, ly, cell_w, CELL_H, "#f4f4f4", "#dddddd", rx=3)
                        continue
                    useful = o.get("useful", True)
                    cv.rect(x, ly, cell_w, CELL_H, "#ffd27f" if useful else "#fbf0d9",
                            "#c9a04c" if useful else "#e8d7b0", rx=3)
                    shown = row.get("shown", {}).get(col, o["value"])
                    if row["kind"] == "shfl" and col not in row.get("shown", {}):
                        shown = None
                    if shown is not None and useful:
                        cv.number(x, ly + 17, cell_w, str(cell_count(shown)))
                else:
                    v = row["after"][col]
                    if o is not None:
                        fill = "#7fb2e5" if o.get("useful", True) else "#d6e5f5"
                    else:
                        fill = "#f4f4f4"
                    hit = col in row["conflict_cells"]
                    cv.rect(x, ly, cell_w, CELL_H, fill, "#d62728" if hit else "#9a9a9a", 2.2 if hit else 0.8)
                    val = str(cell_count(v)) + ("!" if isinstance(v, V) and v.dup else "")
                    if col in row.get("stored", (col,)):   # a slot nobody wrote holds nothing to count
                        cv.number(x, ly + 17, cell_w, val)
                if o is not None:
                    cv.text(x + cell_w / 2, ly + CELL_H + 12, "t%d" % o["tid"], MIN_FONT, "middle",
                            "#2b5d9b" if o.get("useful", True) else "#9aa9bb")
        # arrows from the row above: from the value a thread adds to the cell it writes
        if r_i > 0:
            before = places[-1]
            for o in row["ops"]:
                if not o.get("useful", True) and row["kind"] == "shfl":
                    continue
                if row["kind"] == "shfl" and isinstance(o["value"], int):
                    continue   # a lane with nothing in it (a 0): no arrow
                if o["dst"] not in where:
                    continue   # a lane this row does not draw (a butterfly's other warps)
                dx, dy = where[o["dst"]]
                # of two sources in one column (sdata[t] and sdata[t + 32] into lane t), the
                # lower one's arrow hides the upper one's: draw that one only
                lowest = {}
                for s in o["srcs"]:
                    if s in before:
                        sx, sy = before[s]
                        lowest[sx] = max(lowest.get(sx, sy), sy)
                for s in o["srcs"]:
                    if s not in before or before[s][1] < lowest[before[s][0]]:
                        continue
                    sx, sy = before[s]
                    cv.arrow(sx + cell_w / 2, sy + CELL_H + 15, dx + cell_w / 2, dy,
                             "#b07a10" if row["kind"] == "shfl" else "#2b5d9b")
        places.append(where)
        y = top + len(line_ids) * LINE_PITCH + 8
    return y


# ----------------------------------------------------------------------------- one pass (stage 8)

def one_pass_of(recs):
    """A launch whose blocks meet in an atomic add on a __device__ word, as the model ran it: per
    block (in the order the model runs them), its atomic adds, its writes to out and its plain
    stores to the word. None when no block adds atomically."""
    meets = [dict(block=r.block, atomics=[e for e in r.events if e["kind"] == "atomic"],
                  outs=[e for e in r.events if e["kind"] == "out"],
                  stores=[e for e in r.events if e["kind"] == "store"]) for r in recs]
    return meets if any(m["atomics"] for m in meets) else None


def block_result(rec, out_value):
    """What a block hands on: out[blockIdx.x] where it writes one, else the sum it adds into the
    word (the part below the packed count)."""
    if out_value is not None:
        return out_value
    for e in rec.events:
        if e["kind"] == "atomic":
            return e["added"].v if isinstance(e["added"], Word) else e["added"]
    return None


def one_pass_levels(rows, threads, warp, meets=None):
    """The four levels of a one-pass block as bands over its rows: {row index: (number, title,
    words)}. The numbers in the words come from the rows, and what the last block writes from
    meets (one_pass_of())."""
    kinds = [r["kind"] for r in rows]
    levels = {}
    first = [o["value"] for o in rows[0]["ops"]] if rows and rows[0]["kind"] in ("regload", "load") else []
    counts = sorted(set(cell_count(v) for v in first if cell_count(v)))
    if counts:
        many = "%d" % counts[0] if len(counts) == 1 else "%d or %d" % (counts[0], counts[-1]) if len(counts) == 2 \
            else "%d to %d" % (counts[0], counts[-1])
        levels[0] = (1, "in a thread", "Each thread walks the input with the grid-stride loop and adds everything it "
                     "reads in one register, sum: here %s inputs per thread. No shared memory, no barrier, no other "
                     "thread involved." % many)
    if "shfl" not in kinds:
        return levels
    a = kinds.index("shfl")
    b = a
    while b < len(kinds) and kinds[b] == "shfl":
        b += 1
    busy = max(sum(1 for w in r["warps"] if w) for r in rows[a:b])
    xor = any(o.get("mode") == "shfl_xor" for r in rows[a:b] for o in r["ops"])
    if xor:
        how = ("at each step every lane adds the register of the lane whose number differs in one bit (16, 8, 4, "
               "2, 1 lanes away) and keeps the sum: a butterfly, after which every lane holds its warp's sum "
               "(lane 0's is the one used).")
    else:
        how = ("at each step a lane adds the register of a lane further up; after the last step lane 0 holds "
               "its warp's sum.")
    drawn = (" Drawn for warp 0 (lanes 0-31), so that no warp's arrows cross another's; the other warp%s make%s "
             "the same steps at the same time on %s own values." % (("s", "", "their") if busy > 2 else
                                                                   ("", "s", "its"))) \
        if any(r.get("first_warp_only") for r in rows[a:b]) else ""
    levels[a] = (2, "in a warp", "%d shuffles add up the 32 lanes' registers, all %d warps at once: %s No shared "
                 "memory and no barrier: the lanes of a warp exchange registers directly.%s"
                 % (b - a, busy, how, drawn))
    end = kinds.index("atomic") if "atomic" in kinds else len(kinds)
    if b < end:
        stores = [o for r in rows[b:end] if r["kind"] == "store" for o in r["ops"]]
        more = sum(1 for k in kinds[b:end] if k == "shfl")
        name = rows[b].get("shared_name", "sdata")
        levels[b] = (3, "in the block", "Lane 0 of each warp writes its warp's sum to %s in shared memory (%d values, "
                     "one per warp), the block meets once at __syncthreads(), and warp 0 reads the %d values back "
                     "and adds them with %d more shuffles%s. The other warps are done."
                     % (name, len(stores), len(stores), more,
                        " (lanes past the last warp's value read 0 and stay pale until a sum reaches them)"
                        if xor and len(stores) < warp else ""))
    if end < len(kinds):
        o = rows[end]["ops"][0]
        word = o["value"]
        shift = word.c.bit_length() - 1 if isinstance(word, Word) else None
        how = ""
        if shift and word.lo >= 0:
            how = (": (1 << %d) + the block's sum as its 32 bits, (unsigned int)sum, zero-extended. The count of "
                   "blocks goes in the bits from %d up, one per block, and the sums below it, both in the same add; "
                   "fewer than 2^%d blocks add less than 2^%d, so the sums never carry into the count"
                   % (shift, shift, shift - 32, shift))
        elif shift:
            how = (": the count of blocks in the bits from %d up, one per block, and the sum in the bits below, "
                   "both in the same add" % shift)
        outs = [e["value"] for m in (meets or []) for e in m["outs"]]
        wrote = ("the word's low 32 bits, the sum of every block, to out[0]" if outs and all(
            isinstance(v, V) and v.low for v in outs) else "out[0]")
        levels[end] = (4, "between blocks", "Thread 0 adds its block's sum to one 64-bit word in global memory, %s, "
                       "with one atomicAdd%s. The block whose add brings the count to gridDim.x knows that every "
                       "other block's sum is in the word already: it writes %s and sets the word back to 0 for "
                       "the next launch. No second launch, and nothing to clear before this one."
                       % (o["word"]["name"], how, wrote))
    return levels


WORD_X, WORD_W, WORD_H = MARGIN + 300, 420, 28


def draw_word(cv, y, word, shift, bits=64):
    """One 64-bit word as two fields, the count (bits `shift` and up) and the sum below it."""
    count, total = (word.fields(shift) if isinstance(word, Word) else (word >> shift, word))
    hi_w = WORD_W * (bits - shift) / float(bits)
    cv.rect(WORD_X, y, hi_w, WORD_H, "#c9d9ef", "#7d97bd", 1.0, rx=2)
    cv.rect(WORD_X + hi_w, y, WORD_W - hi_w, WORD_H, "#ffd27f" if cell_count(total) else "#fbf0d9",
            "#c9a04c", 1.0, rx=2)
    cv.text(WORD_X + hi_w / 2, y + 19, "%d" % count, 13.5, "middle", "#1a1a1a", weight="bold")
    cv.text(WORD_X + hi_w + (WORD_W - hi_w) / 2, y + 19,
            ("%d inputs" % cell_count(total)) if isinstance(total, V) else "%d" % total, 13.5, "middle", "#1a1a1a",
            weight="bold")


def draw_meeting(cv, y, meets, grid, problems):
    """Level 4 across the blocks: the word before the launch, after each block's atomicAdd (in the
    model's order: block 0 first), the block that finds the count at gridDim.x writing out[0], and
    the word put back. Returns (y below, the block that wrote out[0], the value written)."""
    adds = [(m["block"], e) for m in meets for e in m["atomics"]]
    first = adds[0][1]
    name = first["name"]
    shift = first["added"].c.bit_length() - 1 if isinstance(first["added"], Word) else 32
    y = cv.paragraph(MARGIN, y + 10, "%s through the whole launch, every block's thread 0 adding once. The model runs "
                     "block 0 first; on a GPU the blocks arrive in any order, and whichever adds last finishes."
                     % name, 12.5) + 6
    cv.text(WORD_X + WORD_W * (64 - shift) / 128.0, y, "bits 63-%d: blocks counted" % shift, 11.5, "middle", "#444")
    cv.text(WORD_X + WORD_W * (64 - shift) / 64.0 + WORD_W * shift / 128.0, y,
            "bits %d-0: their sums" % (shift - 1), 11.5, "middle", "#444")
    y += 8
    note_x = WORD_X + WORD_W + 14

    def line(label, word, note=None, color="#222", block=None):
        if block is not None:   # the block's colour, as in the input strip
            cv.rect(MARGIN, y + 8, 12, 12, BLOCK_HUES[block % 4], rx=2)
        cv.text(MARGIN + (18 if block is not None else 0), y + 19, label, 12.5, color=color)
        draw_word(cv, y, word, shift)
        if note:
            cv.paragraph(note_x, y + 13, note, 11.5, width=MARGIN + AREA - note_x, color=color, step=14)

    line("before the launch", first["old"])
    y += WORD_H + 12
    writer, final, writes = None, None, 0
    events = []
    for m in meets:
        for e in m["atomics"]:
            events.append(("add", m["block"], e))
        for e in m["outs"]:
            events.append(("out", m["block"], e))
        for e in m["stores"]:
            events.append(("store", m["block"], e))
    word = first["old"]
    for kind, b, e in events:
        if kind == "add":
            word = e["new"]
            count = word.fields(shift)[0] if isinstance(word, Word) else word >> shift
            last = count == grid
            line("block %d adds %s + %d inputs" % (b, shift_text(1 << shift), cell_count(e["added"])),
                 word, ("count %d = gridDim.x: this block is the last" % count) if last else
                 "count %d of %d: not the last" % (count, grid), "#c0392b" if count > grid else "#222", b)
            y += WORD_H + 12
        elif kind == "out":
            writes += 1
            writer, final = b, e["value"]
            cv.rect(MARGIN, y + 8, 12, 12, BLOCK_HUES[b % 4], rx=2)
            cv.text(MARGIN + 18, y + 19, "block %d writes out[%d] =" % (b, e["index"]), 12.5, weight="bold")
            low = isinstance(e["value"], V) and e["value"].low
            # the low 32 bits sit at the word's right end; the word minus its count, under the sum's bits
            x0, w = (WORD_X + WORD_W / 2.0, WORD_W / 2.0) if low else (WORD_X, WORD_W * shift / 64.0)
            cv.rect(x0, y, w, WORD_H, "#ffd27f", "#c9a04c", 1.0, rx=2)
            cv.text(x0 + w / 2, y + 19, "%d inputs" % cell_count(e["value"]), 13.5, "middle", "#1a1a1a",
                    weight="bold")
            if low:
                cv.text(x0 - 8, y + 19, "bits 31-0", 11.5, "end", "#444")
            cv.paragraph(note_x, y + 13, "the word's low 32 bits: the whole sum" if low else
                         "the word minus the count: the whole sum", 11.5, width=MARGIN + AREA - note_x, step=14)
            y += WORD_H + 12
        else:
            word = e["value"]
            line("block %d sets %s = %s" % (b, name, e["value"] if isinstance(e["value"], int) else "..."), word,
                 "ready for the next launch" if word == 0 else None, block=b)
            y += WORD_H + 12
    if writes == 0:
        problems.append("no block writes out[0]")
    elif writes > 1:
        problems.append("%d blocks write out[0]" % writes)
    if not (isinstance(word, int) and word == first["old"]):
        problems.append("%s is not back to %s after the launch: the next launch would start from it"
                        % (name, first["old"]))
    return y, writer, final


def fmt_num(v):
    """A count as is; a ratio with 4 significant digits, no exponent, no trailing zeros."""
    if isinstance(v, int) or float(v).is_integer():
        return "{:,}".format(int(v))
    if abs(v) >= 100:
        return "{:,.0f}".format(v)
    digits = max(0, 3 - int(math.floor(math.log10(abs(v))))) if v else 0
    return ("%.*f" % (digits, v)).rstrip("0").rstrip(".")


def size_text(n):
    return "2^%d" % (n.bit_length() - 1) if n > 0 and n & (n - 1) == 0 else "{:,}".format(n)


def counters_lines(c, launch, scaled, number):
    """The counters footer: what reduce_ladder_emu --counters reports for this launch."""
    head = ("Counted for the same kernel launched for real (the drawing above is the scaled model): "
            if scaled else "Counted in this launch: ")
    head += ("n = %d, %d blocks of %d threads, 32-lane warps, 32 banks of 4-byte words"
             % (launch["n"], c["blocks"], c["threads_per_block"]))
    per = c["bank_conflicts_per_request"]
    return [head,
            "global memory: %s loads of the input, %s bytes; bytes per load %s, loads per input %s, inputs per "
            "thread %s; the emulated GPU holds %s such blocks at once"
            % (fmt_num(c["global_loads"]), fmt_num(c["global_load_bytes"]), fmt_num(c["global_load_width"]),
               fmt_num(c["global_loads_per_element"]), fmt_num(c["elements_per_thread"]),
               fmt_num(c["resident_blocks"])),
            "meetings: %d block barriers (__syncthreads, once per block), %d warp meetings (shuffles and "
            "__syncwarp, once per warp)" % (c["block_barriers"], c["warp_meetings"]),
            "shared memory: %d requests (one per warp instruction), %s lanes at work and %s idle in them, "
            "%d divergent; %d bank conflicts, %s per request"
            % (c["shared_requests"], fmt_num(c["shared_active_lanes"]), fmt_num(c["shared_idle_lanes"]),
               c["divergent_shared_requests"], c["shared_bank_conflicts"], fmt_num(per)),
            "The CPU emulator counts the same: reduce_ladder_emu --stage %d --n %d --threads %d --counters"
            % (number, launch["n"], c["threads_per_block"])]


def draw(number, title, threads, warp, banks, n, grid, recs, outs, scaled, note=SOURCE_NOTE, launch=None,
         panel=None):
    """The SVG of one stage: input strip, block 0 step by step, the check, the counters.
    launch: counted_launch()'s result (the counters footer); panel: a function that draws a
    panel under the title, given (canvas, y) and returning the y below it."""
    cv = Canvas()
    y = 62
    if panel:
        y = panel(cv, y) + 14
    y, problems = draw_input(cv, y + 16, n, grid, threads, recs)
    meets = one_pass_of(recs)
    rows = steps_of(recs[0], threads, warp, banks, block_result(recs[0], outs[0]) if meets else outs[0])
    y = cv.paragraph(MARGIN, y + 14, "Block 0, step by step. Each row is the block's shared memory (blue) or its "
                     "threads' registers (yellow) after one step; a number is how many inputs that slot or "
                     "register has summed so far, and under it the thread that wrote it. The boxes at the right "
                     "are the block's warps.", 12.5) + 4
    y = draw_rows(cv, y, threads, warp, rows, one_pass_levels(rows, threads, warp, meets) if meets else None)
    if meets:
        y, writer, final = draw_meeting(cv, y + 6, meets, grid, problems)
        y += 16
        if final is not None:
            cv.text(MARGIN, y, "Block %d, the last to add, writes out[0] = the sum of %d inputs."
                    % (writer, cell_count(final)), 13, weight="bold")
        outs = [final]
    else:
        final = outs[0]
        y += 16
        cv.text(MARGIN, y, "Thread 0 writes out[0] = the sum of %d inputs." % cell_count(final), 13, weight="bold")
    cover, dup = set(), False
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
        y = cv.paragraph(MARGIN, y, "Wrong: " + "; ".join(problems) + ".", 12.5, color="#d62728", weight="bold")
    elif meets:
        y = cv.paragraph(MARGIN, y, "Check: out[0] covers in[0..%d) exactly once, the %d blocks' sums added in one "
                         "word, and the word is back to 0 for the next launch." % (n, grid), 12.5, color="#2c7a2c")
    else:
        y = cv.paragraph(MARGIN, y, "Check: the %d block sums together cover in[0..%d) exactly once." % (grid, n),
                         12.5, color="#2c7a2c")
    if launch is not None:
        y += 8
        lines = counters_lines(launch["counters"], launch, scaled, number)
        y = cv.paragraph(MARGIN, y, lines[0], 12, weight="bold")
        for ln in lines[1:-1]:
            y = cv.paragraph(MARGIN + 12, y, ln, 12, width=AREA - 12)
        y = cv.paragraph(MARGIN, y, lines[-1], 11.5, color="#555")
    y += 6
    model = ("Scaled-down model: a warp of %d lanes and %d shared-memory banks (a real GPU has 32 and 32), so "
             "that 16 threads show several warps." % (warp, banks)) if scaled else \
        "Real model: a warp is 32 lanes, shared memory has 32 banks of 4-byte words."
    y = cv.paragraph(MARGIN, y, model, 11.5, color="#555")
    y = cv.paragraph(MARGIN, y, "Warp boxes: green, all lanes work; orange, some do (a divergent warp); grey, idle. "
                     "Red borders: slots hit by a bank conflict. Pale cells: computed but never used for the "
                     "block's sum (a pale register's number is left out: it adds values nobody reads). "
                     "'!': an input counted twice.", 11.5, color="#555")
    height = int(y + 10)
    # Opened on its own (the page's "full size" link), the picture is drawn OPEN_SCALE times its
    # units; in the page, width=100% scales it to the text column whatever its own size.
    head = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" '
            'font-family="%s">' % (WIDTH, height, round(WIDTH * OPEN_SCALE), round(height * OPEN_SCALE), FONTS),
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" '
            'orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#2b5d9b"/></marker></defs>',
            '<rect width="100%" height="100%" fill="#fff"/>',
            '<text x="%d" y="28" font-size="18" font-weight="bold" fill="#222">%s</text>'
            % (MARGIN, html.escape("Stage %d: %s, one block of %d threads" % (number, title, threads))),
            '<text x="%d" y="48" font-size="11.5" fill="#555">%s</text>' % (MARGIN, html.escape(note))]
    svg = "\n".join(head + cv.arrows + cv.shapes + cv.texts + ["</svg>"]) + "\n"
    return svg, rows, problems


# ----------------------------------------------------------------------------- GPU counters (stage 6)

class CountersError(SimError):
    """The GPU counters in the results folder cannot be read."""


RESULT_NAME = re.compile(r"^ladder-(.+)-(\d{4}-\d{2}-\d{2})\.json$")
# What the stage-6 panel reads from a row's "counters" object (reduce_ladder --counters).
PANEL_KEYS = ("warp_instructions", "warp_instructions_per_element", "branch_instructions")


def gpu_counters(results_dir, stages=(5, 6)):
    """The newest GPU run of each GPU in results_dir (docs/results/ladder-<GPU>-<date>.json, by
    date, then file name; emulated runs left out), as the pages quote them. Returns (runs with
    counters for `stages`, runs without): dicts with gpu, date, name, n, threads, file, rows.
    A run whose counters lack a number the panel needs stops the picture with the file's name."""
    if not os.path.isdir(results_dir):
        raise CountersError("no results folder %s (stage 6's picture reads the GPU counters there)" % results_dir)
    newest = {}
    for path in sorted(glob.glob(os.path.join(results_dir, "ladder-*.json"))):
        m = RESULT_NAME.match(os.path.basename(path))
        if not m:
            continue
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            rows = dict((str(r["stage"]), r) for r in data["rows"])
            run = dict(gpu=m.group(1), date=str(data.get("date", m.group(2))), name=data["gpu"]["name"],
                       n=int(data["n"]), threads=int(data["threads"]), file=os.path.basename(path),
                       rows=dict((s, rows.get(str(s))) for s in stages))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise CountersError("%s is not a ladder result (%s)" % (path, exc))
        if data.get("emulated"):
            continue
        old = newest.get(run["gpu"])
        if old is None or (run["date"], run["file"]) > (old["date"], old["file"]):
            newest[run["gpu"]] = run
    with_counters, without = [], []
    for gpu in sorted(newest):
        run = newest[gpu]
        if any(r is None or not isinstance(r.get("counters"), dict) for r in run["rows"].values()):
            without.append(run)   # measured without --counters, or the counters could not be taken
            continue
        for s, r in sorted(run["rows"].items()):
            lacking = [k for k in PANEL_KEYS if not isinstance(r["counters"].get(k), (int, float))]
            if lacking:
                raise CountersError("%s: stage %s's \"counters\" has no number for %s"
                                    % (os.path.join(results_dir, run["file"]), s, ", ".join(lacking)))
        with_counters.append(run)
    return with_counters, without


def loop_profile(path, threads):
    """Runs a stage's kernel for one launch of `threads`-thread blocks in the model: the
    shared-memory steps of block 0 (their offsets), its shuffles, and how often a thread
    evaluates a loop condition (the most any thread does)."""
    with open(path, encoding="utf-8") as f:
        kernel_src, launcher_src, defines, template = translate_kernel(f.read())
    n, grid, recs, outs = simulate(kernel_src, launcher_src, defines, template, threads, REAL_WARP)
    rows = steps_of(recs[0], threads, REAL_WARP, REAL_BANKS, outs[0])
    steps = [r["offsets"][0] for r in rows if r["kind"] == "tree" and r["offsets"]]
    return dict(steps=steps, shuffles=sum(1 for r in rows if r["kind"] == "shfl"),
                loop_tests=max(recs[0].loop_tests.values(), default=0))


def sibling_stage(path, number):
    """The file of stage `number` next to this stage's folder (solutions/0K_*/), or None."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    found = sorted(glob.glob(os.path.join(root, "%02d_*" % number, "*.cu")))
    return found[0] if found else None


def instructions_panel(path, number, results_dir, require_counters):
    """Stage 6's panel: at 64 threads its block does exactly what stage 5's does, so the
    picture adds what differs: the loop the model finds in stage 5 and not in stage 6, and the
    instructions the GPU counted for both (reduce_ladder --counters, newest run per GPU)."""
    entries, without = gpu_counters(results_dir, (number - 1, number)) if results_dir else ([], [])
    if require_counters and not entries:
        raise CountersError("no GPU run in %s has counters for stages %d and %d (measure them with "
                            "reduce_ladder --counters --format json on a GPU and commit the file as "
                            "docs/results/ladder-<GPU>-<date>.json)"
                            % (results_dir or "(no --results folder given)", number - 1, number))
    if not entries:
        print("stage_picture.py: stage %d: %s; the picture says so" % (
            number, "no --results folder given" if results_dir is None else
            "no GPU run in %s has counters for stages %d and %d" % (results_dir, number - 1, number)),
            file=sys.stderr)
    threads = entries[0]["threads"] if entries else 256
    here = loop_profile(path, threads)
    prev_path = sibling_stage(path, number - 1)
    prev = loop_profile(prev_path, threads) if prev_path else None
    same_at_64 = False
    if prev_path is not None:
        a, b = loop_profile(prev_path, 64), loop_profile(path, 64)
        same_at_64 = (a["steps"], a["shuffles"]) == (b["steps"], b["shuffles"])

    def steps_text(p):
        return ("s\u00a0=\u00a0" + ",\u00a0".join(map(str, p["steps"]))) if p["steps"] else "none"

    def tests_text(k):
        return "no loop test" if k == 0 else "%d loop tests per thread" % k

    if prev:
        same = (prev["steps"], prev["shuffles"]) == (here["steps"], here["shuffles"])
        model = ("The model runs both kernels at %d threads per block, the block size measured below. %s "
                 "Stage %d gets there through its loop: %s. Stage %d's instantiation for %d threads has the steps "
                 "written out, each if\u00a0(blockSize\u00a0>=\u00a0...) decided by the compiler: %s."
                 % (threads, ("Both make the same shared-memory steps (%s) and the same %d shuffles."
                              % (steps_text(here), here["shuffles"])) if same else
                    ("Stage %d makes the shared-memory steps %s, stage %d the steps %s."
                     % (number - 1, steps_text(prev), number, steps_text(here))),
                    number - 1, tests_text(prev["loop_tests"]), number, threads, tests_text(here["loop_tests"])))
    else:
        model = ("The model runs the kernel at %d threads per block: shared-memory steps %s, %d shuffles, %s."
                 % (threads, steps_text(here), here["shuffles"], tests_text(here["loop_tests"])))
    missing = "; ".join("%s: the newest run (%s) has no counters" % (r["gpu"], r["date"]) for r in without)

    def panel(cv, y):
        y += 6
        cv.text(MARGIN, y + 14, "What stage %d changes: the same work in fewer instructions" % number, 15,
                weight="bold")
        y = cv.paragraph(MARGIN, y + 36, model, 12.5)
        if not entries:
            y += 4
            msg = ("No GPU counters yet: %s. They come from reduce_ladder --counters --format json on a GPU; "
                   "with them this panel compares the warp instructions and branches of stages %d and %d."
                   % ("the picture script was not given the results folder" if results_dir is None else
                      "no GPU run has counters for stages %d and %d" % (number - 1, number), number - 1, number))
            lines = wrap(msg, 12, AREA - 20)
            cv.rect(MARGIN, y, AREA, 12 + 16.2 * len(lines), "#fff7e6", "#e8a33d", 1.2, rx=4)
            cv.paragraph(MARGIN + 10, y + 19, msg, 12, width=AREA - 20)
            y += 12 + 16.2 * len(lines) + 6
        else:
            charts = [("warp instructions per input",
                       lambda e, s: e["rows"][s]["counters"]["warp_instructions_per_element"]),
                      ("branch instructions per input",
                       lambda e, s: e["rows"][s]["counters"]["branch_instructions"] / float(e["n"]))]
            if all(isinstance(e["rows"][s].get("gbps"), (int, float)) for e in entries for s in e["rows"]):
                charts.append(("speed, GB/s", lambda e, s: e["rows"][s]["gbps"]))
            col_w = AREA / len(charts)
            y += 8
            bar_h, bar_pitch = 17, 21
            yy = y
            for c_i, (name, value) in enumerate(charts):
                x = MARGIN + c_i * col_w
                cv.text(x, y + 13, name, 12.5, weight="bold")
                top = max(value(e, s) for e in entries for s in e["rows"]) or 1.0
                label_w, value_w = 92, 84
                bar_max = col_w - label_w - value_w - 10
                yy = y + 22
                for e in entries:
                    for s in sorted(e["rows"]):
                        v = value(e, s)
                        cv.text(x + label_w - 6, yy + 13, "%s stage %d" % (e["gpu"], s), 11.5, "end")
                        cv.rect(x + label_w, yy, max(1.0, bar_max * v / top), bar_h,
                                "#3b6fb6" if s == number else "#9bb7dd",
                                title="%s, stage %d: %s" % (e["name"], s, fmt_num(v)))
                        txt = fmt_num(v)
                        was = value(e, number - 1)
                        if s == number and was:
                            txt += " (%+.0f%%)" % (100.0 * (v - was) / was)
                        cv.text(x + label_w + bar_max * v / top + 5, yy + 13, txt, 11.5)
                        yy += bar_pitch
                    yy += 6
            y = yy + 4
            for e in entries:
                y = cv.paragraph(MARGIN, y + 4, "%s: %s, measured %s by reduce_ladder --counters (Nsight Compute), "
                                 "n = %s ints, %d threads per block; every kernel of the sum, divided by n."
                                 % (e["gpu"], e["name"], e["date"], size_text(e["n"]), e["threads"]), 11.5,
                                 color="#555")
            if missing:
                y = cv.paragraph(MARGIN, y, missing + ".", 11.5, color="#555")
        if same_at_64:
            y = cv.paragraph(MARGIN, y + 10, "Below, at 64 threads, the block makes exactly stage %d's steps: "
                             "the instantiation for 64 threads keeps none of the if\u00a0(blockSize\u00a0>=\u00a0...) steps and "
                             "goes straight to the warp." % (number - 1), 12.5, weight="bold")
        cv.shapes.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#cccccc"/>'
                         % (MARGIN, MARGIN + AREA, y + 2, y + 2))
        return y + 4
    return panel


def picture(path, number, title, threads=None, note=SOURCE_NOTE, results_dir=None, require_counters=False):
    """The SVG of a stage, the rows of block 0 and the problems the check found.
    results_dir: the folder of the GPU ladder results (docs/results), read for stage 6's
    instruction counters; without it that panel says the counters were not given."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    kernel = translate_kernel(source)
    kernel_src, launcher_src, defines, template = kernel
    tries = [threads] if threads else [16, 64]
    errors = []
    for b in tries:
        warp = banks = 4 if b == 16 else 32
        try:
            n, grid, recs, outs = simulate(kernel_src, launcher_src, defines, template, b, warp)
        except SimError as exc:
            errors.append("with %d threads: %s" % (b, exc))
            continue
        if warp == REAL_WARP:
            launch = dict(n=n, threads=b, blocks=grid, counters=counters(recs, n, b, grid))
        else:
            launch = counted_launch(kernel)
        panel = instructions_panel(path, number, results_dir, require_counters) if number == 6 else None
        return draw(number, title, b, warp, banks, n, grid, recs, outs, scaled=(warp != REAL_WARP), note=note,
                    launch=launch, panel=panel)
    raise SimError("; ".join(errors))


def launch_counters(path, threads=64):
    """The counted launch of a stage file (counted_launch()), as --counters-json prints it."""
    with open(path, encoding="utf-8") as f:
        return counted_launch(translate_kernel(f.read()), threads)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("stage_file")
    ap.add_argument("--number", type=int, required=True)
    ap.add_argument("--title", help="the stage's title (default: 'stage K')")
    ap.add_argument("--threads", type=int, choices=[16, 64])
    ap.add_argument("-o", "--output", help="the SVG to write")
    ap.add_argument("--results", metavar="DIR",
                    help="the GPU ladder results (docs/results): stage 6's picture reads their counters")
    ap.add_argument("--require-counters", action="store_true",
                    help="fail, rather than draw a note, when no result in --results has counters")
    ap.add_argument("--counters-json", action="store_true",
                    help="print the counters of the counted launch (64 threads, the picture's n) as JSON")
    ap.add_argument("--summary", action="store_true", help="also print one line per step")
    args = ap.parse_args(argv)
    if not args.output and not args.counters_json:
        ap.error("nothing to do: give -o OUT.svg, --counters-json or both")
    try:
        if args.counters_json:
            launch = launch_counters(args.stage_file)
            print(json.dumps(dict(stage=args.number, file=args.stage_file, n=launch["n"], threads=launch["threads"],
                                  counters=launch["counters"]), indent=2))
        if args.output:
            svg, rows, problems = picture(args.stage_file, args.number, args.title or "stage %d" % args.number,
                                          args.threads, results_dir=args.results,
                                          require_counters=args.require_counters)
    except (OSError, StageCodeError, SimError, SyntaxError) as exc:
        print("stage_picture.py: %s: %s" % (args.stage_file, exc), file=sys.stderr)
        return 1
    if args.output:
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
