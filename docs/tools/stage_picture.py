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
import struct
import sys


class StageCodeError(Exception):
    """The stage file has code the translator does not understand."""


class SimError(Exception):
    """Running the block went wrong (a read outside shared memory, a deadlock, ...)."""


# ----------------------------------------------------------------------------- float arithmetic

def float32(x):
    """x rounded to the nearest IEEE binary32 (ties to even), as a Python float."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def float32_add(a, b):
    """a + b of two floats as the GPU and the CPU add them: the exact sum rounded once to the nearest
    float. In double the sum of two floats is exact unless their exponents differ by more than 29
    bits; then the smaller is below a quarter of the larger's float spacing, and rounding the double
    to float gives the larger, as the exact sum would."""
    return float32(a + b)


def running_float_sum(values):
    """The sum in index order in one float, s = s + x: (the sum, (k, exact) for the first add whose result
    had to be rounded, k counting from 1, or None when none was)."""
    s, first, exact = 0.0, None, 0
    for k, x in enumerate(values, 1):
        exact += x
        s = float32_add(s, float32(x))
        if first is None and s != exact:
            first = (k, exact)
    return s, first


def pairwise_float_sum(values):
    """The sum as a balanced tree of pairs, in float: the halves first, then their sum."""
    def tree(lo, hi):
        if hi - lo == 1:
            return float32(values[lo])
        mid = (lo + hi + 1) // 2
        return float32_add(tree(lo, mid), tree(mid, hi))
    return tree(0, len(values)) if values else 0.0


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
                     r"float4|float|size_t|bool|kit_mat3|kit_argmin)\b\s*")
# The kit's structures (common/stage.h), as the model builds them: a declaration without a value
# makes a fresh one, an assignment of one copies it (C copies structures).
STRUCTS = {"kit_mat3": "_Mat3", "kit_argmin": "_Argmin"}
# What the kernels' code may name from <climits> and <cfloat>.
C_CONSTANTS = {"INT_MAX": (1 << 31) - 1, "INT_MIN": -(1 << 31), "UINT_MAX": (1 << 32) - 1,
               "FLT_MAX": 3.4028234663852886e38}
WIDE = re.compile(r"long\s+long$")   # 64-bit types: never wrapped to 32 bits (the model's sums are symbolic)
CAST = re.compile(r"\(\s*(?:unsigned\s+long\s+long|long\s+long|unsigned\s+int|unsigned|int|size_t|float)\s*\)")


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


SIZES = {"int4": 16, "float4": 16, "int": 4, "float": 4, "kit_mat3": 36, "kit_argmin": 8}
ATOMICS = {"atomicAdd": "add", "atomicMin": "min", "atomicMax": "max", "atomicExch": "exch"}


def translate_expr(e, helpers=(), device_vars=()):
    e = call_helpers(e, helpers)
    # atomicAdd(&word, v), atomicMin, atomicMax, atomicExch on a __device__ variable: the model
    # does it at once (its blocks run one after another, so they arrive in block order) and
    # records it
    e = re.sub(r"\b(atomic(?:Add|Min|Max|Exch))\s*\(\s*&\s*(\w+)\s*,",
               lambda m: '_atomic("%s", "%s",' % (ATOMICS[m.group(1)], m.group(2)), e)
    # min() and max() of CUDA's device library (and fminf, fmaxf): the model's, which follow
    # which inputs a value covers
    e = re.sub(r"(?<![\w.])(?:min|fminf)\s*\(", "_min(", e)
    e = re.sub(r"(?<![\w.])(?:max|fmaxf)\s*\(", "_max(", e)
    e = re.sub(r"__threadfence\s*\(\s*\)", "_fence()", e)
    for name in device_vars:
        e = re.sub(r"(?<![\w.\"])%s\b(?!\")" % re.escape(name), "_dev." + name, e)
    e = re.sub(r"\(\s*const\s+(?:int4|float4)\s*\*\s*\)\s*(\w+)", r"_int4(\1)", e)
    e = re.sub(r"\(\s*(?:const\s+)?(int|float|unsigned\s+int)\s*\*\s*\)\s*(\w+)", r"_words(\2)", e)
    e = re.sub(r"\bsizeof\s*\(\s*(int4|float4|int|float|unsigned\s+int|kit_mat3|kit_argmin)\s*\)",
               lambda m: str(SIZES[m.group(1).split()[-1]]), e)
    e = int_casts(e)
    e = CAST.sub("", e)
    e = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", e)
    e = re.sub(r"(?<![\w.])(\d+\.\d*|\.\d+|\d+)[fF]\b", r"\1", e)   # float literals: 0.0f -> 0.0
    e = re.sub(r"__syncthreads\s*\(\s*\)", '(yield ("sync",))', e)
    e = re.sub(r"__syncwarp\s*\([^()]*\)", '(yield ("syncwarp",))', e)
    e = re.sub(r"__shfl_(down|xor)_sync\s*\(([^,()]+),([^,()]+),([^,()]+)\)",
               r'(yield ("shfl_\1", \3, \4))', e)
    if re.search(r"\+\+|--|->|#|\bsizeof\b|(?<!&)&(?!&)\s*\w+\s*\[|<<<|\bgoto\b|\bdo\b|\batomic\w*\s*\(", e):
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

    def __init__(self, helpers=(), device_vars=(), ref_helpers=None):
        self.lines = []
        self.unsigned = set()
        self.helpers, self.device_vars = tuple(helpers), tuple(device_vars)
        self.ref_helpers = ref_helpers or {}   # helper -> positions of its scalar reference parameters
        self.refs = ()                         # the function being emitted: its scalar references

    def emit(self, depth, line):
        self.lines.append("    " * depth + line)

    def expr(self, e):
        return translate_expr(e, self.helpers, self.device_vars)

    def simple(self, depth, text):
        m = re.match(r"^(extern\s+)?__shared__\s+(?:unsigned\s+int\s+|unsigned\s+)?\w+\s+(\w+)\s*((?:\[[^\]]*\]\s*)+)$",
                     text)
        if m and not m.group(1) and all(d.strip() for d in re.findall(r"\[([^\]]*)\]", m.group(3))):
            # a static array: a part of the block's shared memory (sdata) under this name and shape
            dims = [self.expr(d) for d in re.findall(r"\[([^\]]*)\]", m.group(3))]
            self.emit(depth, '%s = sdata.declare("%s", %s)' % (m.group(2), m.group(2), ", ".join(dims)))
            return
        m = re.match(r"^(\w+)\s*(\+\+|--)$", text) or re.match(r"^(\+\+|--)\s*(\w+)$", text)
        if m:   # i++ as a statement (a for loop's update): i += 1
            name = m.group(1) if m.group(1) not in ("++", "--") else m.group(2)
            op = m.group(2) if m.group(1) not in ("++", "--") else m.group(1)
            self.assign(depth, name, "+=" if op == "++" else "-=", "1")
            return
        call = re.match(r"^(\w+)\s*\((.*)\)$", text)
        if call and call.group(1) in self.ref_helpers:
            # a helper with reference parameters: it hands their new values back
            refs = self.ref_helpers[call.group(1)]
            args = split_top(call.group(2), ",")
            self.emit(depth, "_r = %s" % self.expr(text))
            for k, pos in enumerate(refs):
                self.simple(depth, "%s = _r[%d]" % (args[pos], k + 1)) if re.match(r"^\w+$", args[pos]) else \
                    self.emit(depth, "%s = _r[%d]" % (self.expr(args[pos]), k + 1))
            return
        m = re.match(r"^extern\s+__shared__\s+(int4|float4|int|float)\s+(\w+)\s*\[\s*\]$", text)
        if m and m.group(2) != "sdata":   # a dynamic array under another name (sdata is the model's own)
            self.emit(depth, '%s = sdata.dynamic("%s", %d)' % (m.group(2), m.group(2), 4 if "4" in m.group(1) else 1))
            return
        if re.match(r"^(extern\s+)?__shared__\b", text):
            self.emit(depth, "pass")
            return
        if text == "return" or text.startswith("return "):
            value = self.expr(text[6:].strip()) if text != "return" else "None"
            self.emit(depth, "return (%s, %s)" % (value, ", ".join(self.refs)) if self.refs else
                      "return" if text == "return" else "return %s" % value)
            return
        m = TYPE_RE.match(text)
        if m:
            is_unsigned = (m.group(1).startswith("unsigned") or m.group(1) == "size_t") and not WIDE.search(m.group(1))
            struct = STRUCTS.get(m.group(1))
            for decl in split_top(text[m.end():], ","):
                dm = re.match(r"^\*?\s*(\w+)\s*(?:=(.*))?$", decl)
                if not dm:
                    raise StageCodeError("cannot read declaration: %s" % text)
                name, init = dm.group(1), dm.group(2)
                if is_unsigned:
                    self.unsigned.add(name)
                if struct:   # a structure: a fresh one, or a copy of the value
                    self.emit(depth, "%s = %s" % (name, "%s()" % struct if init is None else
                                                  "_copy(%s)" % self.expr(init.strip())))
                    continue
                self.assign(depth, name, "=", (init or "0").strip())
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
    helpers, ref_helpers = [], {}
    for hm in re.finditer(r"__device__\s+(?:(?:__forceinline__|__noinline__|inline|static|const)\s+)*"
                          r"(?:unsigned\s+long\s+long|long\s+long|unsigned\s+int|unsigned|int|float4|float|bool|"
                          r"kit_mat3|kit_argmin|void)\s+(\w+)\s*\(", text):
        close = matching(text, hm.end() - 1, "(", ")")
        if text[close + 1:].lstrip().startswith("{"):
            params, refs = [], []
            for k, p in enumerate(q for q in split_top(text[hm.end():close], ",") if q and q != "void"):
                pm = re.search(r"\(\s*\*\s*(\w+)\s*\)", p) or re.search(r"(\w+)\s*(?:\[[^\]]*\]\s*)*$", p)
                if not pm:
                    raise StageCodeError("cannot read the parameter %s of %s" % (p, hm.group(1)))
                params.append(pm.group(1))
                # a reference to a scalar: the model's ints and floats cannot be changed in place, so
                # the helper hands its new value back (a structure is changed in place, as in C)
                if "&" in p and not any(t in p for t in STRUCTS):
                    refs.append(k)
            helpers.append((hm.group(1), params, refs))
            if refs:
                ref_helpers[hm.group(1)] = refs
    names = [h for h, _, _ in helpers]
    em = Emitter(names, device_vars, ref_helpers)
    em.emit(0, "_DEVICE_VARS = {%s}" % ", ".join('"%s": %s' % (k, em.expr(v)) for k, v in device_vars.items()))
    em.emit(0, "def kernel(in_, out, n, threadIdx, blockIdx, blockDim, gridDim, sdata, %s):"
            % (template or "_blockSize"))
    em.emit(1, "if False: yield None")
    # the helpers inside the kernel: each thread's own, seeing its threadIdx as CUDA's do
    for name, params, refs in helpers:
        em.emit(1, "def %s(%s):" % (name, ", ".join(params)))
        em.emit(2, "if False: yield None")
        em.refs = tuple(params[k] for k in refs)
        em.block(2, Parser(tokens(function_body(text, name))).block())
        if em.refs:
            em.emit(2, "return (None, %s)" % ", ".join(em.refs))
        em.refs = ()
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
    defines = dict(C_CONSTANTS)
    for k, v in re.findall(r"^[ \t]*#define\s+(\w+)[ \t]+([^\n]+?)\s*$", text, re.M):
        try:   # a number, or a name of <climits> or of an earlier #define
            defines[k] = eval(translate_expr(v), {}, dict(defines))
        except Exception:   # noqa: BLE001 - a define the kernels do not use as a value
            continue
    return kernel_src, "\n".join(le.lines), defines, template


# ----------------------------------------------------------------------------- running

class V:
    """A value in the simulation: which input elements it sums, and where it came from.
    ext: how the value widens to 64 bits, as C widens it: None for an int (sign-extended),
    "u32" for an unsigned int, (unsigned int)x (zero-extended). low: the value is the low 32
    bits of a packed word ((unsigned int)word, (int)word, or the word stored into an int).
    foreign: constants that are not the operator's identity and took part in a min or max
    (a minimum started from 0: the 0 can win, and it is in no input)."""
    __slots__ = ("leaves", "parents", "dup", "ext", "low", "foreign")

    def __init__(self, leaves, parents=(), dup=False, ext=None, low=False, foreign=()):
        self.leaves, self.parents, self.dup, self.ext, self.low = leaves, parents, dup, ext, low
        self.foreign = foreign

    def __add__(self, other):
        if isinstance(other, Word):
            return other + self
        if isinstance(other, float) and other == 0:
            other = 0   # + 0.0f: a float's identity, exact
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
    if isinstance(x, T):
        return x.derive(x.val & 0xFFFFFFFF)
    if isinstance(x, V):
        return V(x.leaves, (x,), x.dup, ext="u32", low=x.low)
    return x & 0xFFFFFFFF


def cast_i32(x):
    """(int)x: an int wraps to -2^31 .. 2^31 - 1; a sum of inputs is an int again (sign-extended
    when widened); a packed word gives its low 32 bits."""
    if isinstance(x, Word):
        return x.low32()
    if isinstance(x, T):
        return x.derive(((x.val + (1 << 31)) & 0xFFFFFFFF) - (1 << 31))
    if isinstance(x, V):
        return x if x.ext is None else V(x.leaves, (x,), x.dup, low=x.low)
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


class T(V):
    """A value with a number (stage 12's argmin, whose code compares values): the input element it
    is, or the key made from it. Comparisons compare the numbers; an assignment keeps the very
    object, so the value a lane holds at the end is the element that won."""
    __slots__ = ("val",)

    def __init__(self, val, leaves, parents=()):
        V.__init__(self, leaves, parents)
        self.val = val

    def derive(self, val):
        """The same element's value turned into another number (a key, a cast, a shift)."""
        return T(val, self.leaves, (self,))

    @staticmethod
    def num(x):
        return x.val if isinstance(x, T) else x

    def __lt__(self, o):
        return self.val < T.num(o)

    def __le__(self, o):
        return self.val <= T.num(o)

    def __gt__(self, o):
        return self.val > T.num(o)

    def __ge__(self, o):
        return self.val >= T.num(o)

    def __eq__(self, o):
        return self.val == T.num(o)

    def __ne__(self, o):
        return self.val != T.num(o)

    __hash__ = object.__hash__

    def __bool__(self):
        return bool(self.val)

    def __index__(self):
        return self.val

    def __int__(self):
        return self.val


def _t_op(name, fn):
    def op(self, other):
        if isinstance(other, T) and other.leaves != self.leaves and other.leaves and self.leaves:
            raise SimError("two input elements are combined with %s: the model follows one element per value "
                           "in this stage" % name)
        return (self if self.leaves or not isinstance(other, T) else other).derive(fn(self.val, T.num(other)))

    def rop(self, other):
        return self.derive(fn(T.num(other), self.val))
    return op, rop


for _name, _fn in (("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("xor", lambda a, b: a ^ b),
                   ("or", lambda a, b: a | b), ("and", lambda a, b: a & b), ("lshift", lambda a, b: a << b),
                   ("rshift", lambda a, b: a >> b), ("mul", lambda a, b: a * b)):
    _op, _rop = _t_op(_name, _fn)
    setattr(T, "__%s__" % _name, _op)
    setattr(T, "__r%s__" % _name, _rop)


IDENTITIES = {"min": ((1 << 31) - 1, (1 << 32) - 1, (1 << 64) - 1, float("inf"), 3.4028234663852886e38),
              "max": (-(1 << 31), float("-inf"), -3.4028234663852886e38)}


def reduce_op(kind, a, b):
    """min(a, b) or max(a, b) as the model keeps them: of two numbers, the number; of a value (a V)
    and its operator's identity, the value; of two values, one covering both (an element may
    appear twice: min(x, x) = x); of a value and any other constant, the value, marked with the
    constant (a minimum started from 0: its 0 would win on an input of positive values). Of two
    T (stage 12), the one with the smaller number (the first of equal ones), as the GPU's."""
    pick = min if kind == "min" else max
    if isinstance(a, T) or isinstance(b, T):
        if isinstance(a, T) and isinstance(b, T):
            return b if (b.val < a.val if kind == "min" else b.val > a.val) else a
        t, c = (a, b) if isinstance(a, T) else (b, a)
        return t if pick(t.val, c) == t.val else c
    if not isinstance(a, V) and not isinstance(b, V):
        return pick(a, b)
    if isinstance(a, V) and isinstance(b, V):
        return V(a.leaves | b.leaves, (a, b), False, foreign=tuple(sorted(set(a.foreign) | set(b.foreign))))
    v, c = (a, b) if isinstance(a, V) else (b, a)
    if c in IDENTITIES[kind]:
        return V(v.leaves, (v,), False, foreign=v.foreign)
    return V(v.leaves, (v,), False, foreign=tuple(sorted(set(v.foreign) | {c})))


def vmin(a, b):
    return reduce_op("min", a, b)


def vmax(a, b):
    return reduce_op("max", a, b)


class Mat3:
    """kit_mat3: m[9], a 3x3 matrix row by row."""
    __slots__ = ("m",)

    def __init__(self, m=None):
        self.m = list(m) if m is not None else [0] * 9


class Argmin:
    """kit_argmin: value and index."""
    __slots__ = ("value", "index")

    def __init__(self, value=0, index=0):
        self.value, self.index = value, index


def copy_value(x):
    """C's copy of a structure on assignment; other values as they are."""
    if isinstance(x, Mat3):
        return Mat3(x.m)
    if isinstance(x, Argmin):
        return Argmin(x.value, x.index)
    return x


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
    """The block's shared memory, in 4-byte words. The first array a kernel declares starts at
    word 0 (and is this object: sdata of stages 1-7); each later one follows the one before
    (SharedView), as the compiler lays out a block's static arrays."""

    def __init__(self, size, rec):
        self.cells, self.rec, self.size = [0] * size, rec, size
        self.arrays = {}
        rec.shared_name, rec.shared_size = "sdata", size

    def declare(self, name, *dims):
        """__shared__ int name[d0][d1]...: a part of the block's shared memory under that name and shape
        (every thread declares it; the first declaration places it)."""
        if name in self.arrays:
            return self.arrays[name]
        if not dims or not all(isinstance(d, int) and d >= 1 for d in dims):
            raise SimError("shared array %s%s: a size is not a positive number"
                           % (name, "".join("[%s]" % d for d in dims)))
        size = 1
        for d in dims:
            size *= d
        if not self.arrays:
            self.size = size
            self.cells = self.cells[:size] + [0] * max(0, size - len(self.cells))
            view = self if len(dims) == 1 else SharedView(self, 0, dims, name)
            self.rec.shared_name = name
        else:
            base = self.rec.shared_size
            self.cells = self.cells[:base] + [0] * size
            view = SharedView(self, base, dims, name)
            self.rec.shared_name += ", " + name
        self.rec.shared_size = len(self.cells)
        self.arrays[name] = view
        return view

    def check(self, k):
        if not isinstance(k, int) or k < 0 or k >= self.size:
            raise SimError("thread %d touches sdata[%s], outside the %d-slot array"
                           % (self.rec.tid, k, self.size))

    def read(self, k, width=1):
        self.grow(k + width)
        self.rec.add(kind="sread", index=k, width=width)
        return self.cells[k] if width == 1 else Int4(self.cells[k:k + 4])

    def write(self, k, v, width=1):
        self.grow(k + width)
        self.rec.add(kind="swrite", index=k, value=v, width=width)
        if width == 1:
            self.cells[k] = v
        else:
            self.cells[k:k + 4] = [v.x, v.y, v.z, v.w]

    def grow(self, size):
        """The dynamic array (extern __shared__) of a kernel that has static ones too lies after them, as
        large as the launch asks: the cells grow as it is used."""
        if size > len(self.cells):
            if size > 48 * 1024:
                raise SimError("thread %d touches shared word %d, past any block's shared memory" % (self.rec.tid, size))
            self.cells += [0] * (size - len(self.cells))
            self.rec.shared_size = len(self.cells)

    def dynamic(self, name, elem):
        """extern __shared__ int4 name[]: the dynamic array, after every static one (its place is found at
        its first use, when the static arrays are declared)."""
        view = SharedView(self, None, (48 * 1024 // elem,), name, elem)
        self.rec.shared_name += ", " + name if self.rec.shared_name else name
        return view

    def statics_end(self):
        return max([0] + [v.base + v.words() for v in self.arrays.values() if isinstance(v, SharedView)] +
                   [self.size if self.arrays and any(v is self for v in self.arrays.values()) else 0])

    def __getitem__(self, k):
        self.check(k)
        return self.read(k)

    def __setitem__(self, k, v):
        self.check(k)
        self.write(k, v)


class SharedView:
    """A shared array after the first, a row of a two-dimensional one, or a pointer into one (name +
    k, (int *)name): words base.. of Shared, elem words to an element (4 for an int4). base None: the
    dynamic array, placed after the static ones at its first use."""

    def __init__(self, shared, base, dims, name, elem=1):
        self.shared, self._base, self.dims, self.name, self.elem = shared, base, tuple(dims), name, elem

    @property
    def base(self):
        if self._base is None:
            self._base = self.shared.statics_end()
        return self._base

    def words(self):
        size = self.elem
        for d in self.dims:
            size *= d
        return size

    def check(self, k):
        if not isinstance(k, int) or k < 0 or k >= self.dims[0]:
            raise SimError("thread %d touches %s[%s], outside its %d slots"
                           % (self.shared.rec.tid, self.name, k, self.dims[0]))

    def inner(self):
        size = self.elem
        for d in self.dims[1:]:
            size *= d
        return size

    def __add__(self, k):
        return SharedView(self.shared, self.base + k * self.inner(), (self.dims[0] - k,) + self.dims[1:],
                          "%s + %s" % (self.name, k), self.elem)

    def as_words(self):
        return SharedView(self.shared, self.base, (self.dims[0] * self.elem,), "(int *)" + self.name, 1)

    def __getitem__(self, k):
        self.check(k)
        if len(self.dims) > 1:
            return SharedView(self.shared, self.base + k * self.inner(), self.dims[1:], "%s[%d]" % (self.name, k),
                              self.elem)
        return self.shared.read(self.base + k * self.elem, self.elem)

    def __setitem__(self, k, v):
        self.check(k)
        if len(self.dims) > 1:
            raise SimError("%s[%s] = ...: a whole row of a shared array is assigned" % (self.name, k))
        self.shared.write(self.base + k * self.elem, v, self.elem)


def as_words(x):
    """(const int *)p: a shared int4 array as ints."""
    if isinstance(x, SharedView):
        return x.as_words()
    raise SimError("the model reads (int *) only of a shared array")


class Input:
    """The launch's input. layout "scalar" (ints, floats): element k is V({k}); "aos" (kit_mat3):
    element k is a matrix whose component c is V({9k + c}), read as a 36-byte copy; "soa" (9
    planes of n ints): word w is component w / n of matrix w % n, V({9 (w % n) + w / n}). values:
    what the launch reads instead (an earlier pass's results, or stage 12's numbered elements):
    element k, or word w of the planes."""

    def __init__(self, n, rec, values=None, layout="scalar"):
        self.n, self.rec, self.values, self.layout = n, rec, values, layout

    def element(self, k):
        if not 0 <= k < self.n:
            return V(frozenset())
        return self.values[k] if self.values is not None else V(frozenset([k]))

    def __getitem__(self, k):
        if self.layout == "aos":
            # a kit_mat3 is aligned to 4 bytes only, so a copy of one is 9 loads of 4 bytes (the GPU's
            # LDG.32s; no wider load may start at 36 k)
            bad = not (isinstance(k, int) and 0 <= k < self.n)
            for c in range(9):
                self.rec.add(kind="load", index=9 * k + c, width=1, bad=bad, mat=k, comp=c)
            if bad:
                return Mat3([V(frozenset())] * 9)
            return Mat3(self.values[k].m) if self.values is not None else \
                Mat3([V(frozenset([9 * k + c])) for c in range(9)])
        if self.layout == "soa":
            bad = not (isinstance(k, int) and 0 <= k < 9 * self.n)
            self.rec.add(kind="load", index=k, width=1, bad=bad, mat=k % self.n if self.n else 0,
                         comp=k // self.n if self.n else 0)
            if bad:
                return V(frozenset())
            return self.values[k] if self.values is not None else V(frozenset([9 * (k % self.n) + k // self.n]))
        self.rec.add(kind="load", index=k, width=1, bad=not (0 <= k < self.n))
        return self.element(k)

    def int4(self):
        return Int4View(self)


class Int4:
    def __init__(self, vals):
        self.x, self.y, self.z, self.w = vals


class Int4View:
    """The input read 16 bytes at a time ((const int4 *)in), from int4 `offset` on (in4 + offset)."""

    def __init__(self, inp, offset=0):
        self.inp = inp.inp if isinstance(inp, Int4View) else inp
        self.offset = offset + (inp.offset if isinstance(inp, Int4View) else 0)

    def __add__(self, k):
        return Int4View(self.inp, k)

    def __getitem__(self, k):
        base = 4 * (self.offset + k)
        inp = self.inp
        if inp.layout == "aos":   # the words of the matrices, 9 to a matrix: word w is V({w})
            bad = not (0 <= base and base + 3 < 9 * inp.n)
            inp.rec.add(kind="load", index=base, width=4, bad=bad, parts=[(w // 9, w % 9) for w in range(base, base + 4)])
            return Int4([V(frozenset([w])) if 0 <= w < 9 * inp.n else V(frozenset()) for w in range(base, base + 4)])
        bad = not (0 <= base and base + 3 < inp.n)
        inp.rec.add(kind="load", index=base, width=4, bad=bad)
        return Int4([inp.element(base + j) for j in range(4)])


class Output:
    def __init__(self, rec):
        self.rec, self.values = rec, {}

    def __setitem__(self, k, v):
        if isinstance(v, Word):   # a 64-bit word stored into an int: its low 32 bits
            v = v.low32()
        self.rec.add(kind="out", index=k, value=v)
        self.values[k] = v


def u32(x):
    """An unsigned int variable after an assignment: an int wraps; a value of inputs keeps what it is."""
    return cast_u32(x) if isinstance(x, V) else x & 0xFFFFFFFF


def run_block(kernel_fn, n, threads, block, grid, warp, rec, template, values=None, layout="scalar"):
    sdata = Shared(threads, rec)
    inp, out = Input(n, rec, values, layout), Output(rec)
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

    def atomic(op, name, value):
        """atomicAdd, atomicMin, atomicMax, atomicExch on a __device__ variable: returns the old value,
        records what it did (an add as stage 8's picture draws it, kind "atomic"; the others as
        kind "atomic_op")."""
        if op == "add":
            return atomic_add(name, value)
        rec, dev = holder["rec"], env["_dev"]
        old = getattr(dev, name)
        new = value if op == "exch" else reduce_op(op, old, value)
        setattr(dev, name, new)
        rec.add(kind="atomic_op", op=op, name=name, old=old, arg=value, new=new)
        return old

    def fence():
        holder["rec"].add(kind="fence")

    def dev_store(name, value, op=None):
        rec, dev = holder["rec"], env["_dev"]
        if op is not None:
            value = eval("_a %s _b" % op, {}, {"_a": getattr(dev, name), "_b": value})
        setattr(dev, name, value)
        rec.add(kind="store", name=name, value=value)

    env = {"_u32": u32, "_int4": Int4View, "_loop_test": loop_test, "_atomic_add": atomic_add,
           "_atomic": atomic, "_fence": fence, "_words": as_words, "_min": vmin, "_max": vmax, "_Mat3": Mat3, "_Argmin": Argmin,
           "_copy": copy_value, "_dev_store": dev_store, "_cast_u32": cast_u32, "_cast_i32": cast_i32}
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


def simulate(kernel_src, launcher_src, defines, template, threads, warp, n=None, n_limit=3000, values=None,
             layout="scalar"):
    """Runs every block of one launch; n defaults to picture_n(). values: what the launch reads
    (an earlier pass's results), else V({k}) for element k; layout: Input's."""
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
        outs.append(run_block(kernel_fn, n, threads, b, grid, warp, rec, template, values, layout))
        recs.append(rec)
    return n, grid, recs, outs


def written(recs):
    """Every out[k] the launch wrote: {k: value} (the last write of each)."""
    return dict((e["index"], e["value"]) for r in recs for e in r.events if e["kind"] == "out")


def simulate_passes(kernel, threads, n, layout="scalar", values=None):
    """The whole reduction of n inputs as the harness runs a multi-pass stage: the launcher again on
    the partial results until one is left. Returns (the final value: a V, or a Mat3 of them, the
    grid of each pass)."""
    kernel_src, launcher_src, defines, template = kernel
    grids = []
    while True:
        _, grid, recs, _ = simulate(kernel_src, launcher_src, defines, template, threads, REAL_WARP, n=n,
                                    values=values, layout=layout)
        grids.append(grid)
        out = written(recs)
        words = [(c * grid + b) for c in range(9) for b in range(grid)] if layout == "soa" else list(range(grid))
        missing = [k for k in words if k not in out]
        if missing:
            raise SimError("pass %d of %d blocks leaves out[%d] unwritten" % (len(grids), grid, missing[0]))
        if grid == 1:
            return (Mat3([out[c] for c in range(9)]) if layout == "soa" else out[0]), grids
        if len(grids) > 8:
            raise SimError("the passes do not end (%s blocks)" % grids)
        values, n = [out[k] for k in words], grid


def roundings(final):
    """How many additions each input goes through on its way into `final`: {input: the most adds on
    any path from it to final}. An add of two values rounds once (a float add); an add of 0 is exact
    and does not count."""
    memo = {}
    order, stack = [], [final]
    while stack:   # the values final is made of, children before parents (no recursion limit)
        x = stack.pop()
        if id(x) in memo:
            continue
        memo[id(x)] = None
        order.append(x)
        stack.extend(p for p in x.parents if isinstance(p, V))
    depth = {}
    for x in reversed(order):
        parents = [p for p in x.parents if isinstance(p, V)]
        if not parents:
            depth[id(x)] = dict((k, 0) for k in x.leaves)
            continue
        merged = {}
        for p in parents:
            for k, d in depth[id(p)].items():
                merged[k] = max(merged.get(k, -1), d + (1 if len(parents) > 1 else 0))
        depth[id(x)] = merged
    return depth[id(final)]


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
            seqs.setdefault((e["phase"], e["tid"] // warp), {}).setdefault(e["tid"], []).append(
                range(e["index"], e["index"] + e.get("width", 1)))
    out = []
    for (phase, w), lanes in sorted(seqs.items()):
        lanes_of_warp = min(warp, threads - w * warp)
        for k in range(max(len(v) for v in lanes.values())):
            accesses = [v[k] for v in lanes.values() if len(v) > k]
            per_bank = {}
            for word in set(x for a in accesses for x in a):
                per_bank.setdefault(word % banks, set()).add(word)
            out.append((len(accesses), lanes_of_warp, max(len(ws) for ws in per_bank.values())))
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


def counted_launch(kernel, threads=64, problem=None):
    """The launch whose counters a picture shows and the emulator test compares: `threads`
    threads per block (the emulator runs 64 to 1024), n by picture_n(), the real 32-lane warp
    and 32 banks. kernel is translate_kernel()'s result; problem: the stage's (type, op)."""
    kernel_src, launcher_src, defines, template = kernel
    layout, values, n = launch_input(kernel, threads, problem)
    n, grid, recs, _ = simulate(kernel_src, launcher_src, defines, template, threads, REAL_WARP, n=n, values=values,
                                layout=layout)
    return dict(n=n, threads=threads, blocks=grid, counters=counters(recs, n, threads, grid),
                ladder_n=n * (9 if layout in ("aos", "soa") else 1))


# ----------------------------------------------------------------------------- what a stage reduces

STAGES_DEF = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                          "common", "stages.def")


def problem_of(number, path=None, source=""):
    """A stage's (type, op) as common/stages.def says (the one beside the stage file's folder, else
    this kit's), else as its code suggests: ("KIT_INT", "KIT_SUM"), ("KIT_FLOAT", "KIT_SUM"), ..."""
    places = [STAGES_DEF]
    if path:
        places.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(path)))),
                                      "common", "stages.def"))
    for place in places:
        try:
            with open(place, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            continue
        for m in re.finditer(r'^KIT_STAGE\((\d+),\s*\w+,\s*\w+,\s*"[^"]*",\s*\d+,\s*\d+,\s*\w+,\s*(\w+),\s*(\w+),',
                             text, re.M):
            if int(m.group(1)) == number:
                return m.group(2), m.group(3)
    kind = element_type(source) if source else "int"
    text = strip_comments(source)
    op = "KIT_MIN" if re.search(r"(?<![\w.])(?:min|fminf)\s*\(", text) else \
        "KIT_MAX" if re.search(r"(?<![\w.])(?:max|fmaxf)\s*\(", text) else "KIT_SUM"
    return {"float": "KIT_FLOAT", "kit_mat3": "KIT_MAT3"}.get(kind, "KIT_INT"), op


def layout_of(problem):
    return {"KIT_MAT3": "aos", "KIT_MAT3_SOA": "soa"}.get(problem[0] if problem else "KIT_INT", "scalar")


# Stage 12's input: random ints in [-7, 8], and the minimum, -8, planted where its ties teach
# something (the picture's words say where, from the run).
ARGMIN_PLANTS = (300, 520, 700, 813, 1300, 1536, 1545)


def argmin_values(n, seed=12):
    """The numbered elements of stage 12's picture: T(value, {index})."""
    x, vals = seed, []
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        vals.append(-7 + (x >> 16) % 16)
    for k in ARGMIN_PLANTS:
        if k < n:
            vals[k] = -8
    return [T(v, frozenset([k])) for k, v in enumerate(vals)]


def launch_input(kernel, threads, problem):
    """(layout, values, n) of a stage's drawn launch: n by picture_n(), values only for an argmin
    (numbered elements), else None (the model's own V({k}))."""
    layout = layout_of(problem)
    if problem and problem[1] == "KIT_ARGMIN":
        launcher, _, _ = build(*kernel[:3])
        n = picture_n(launcher, threads)
        return layout, argmin_values(n), n
    return layout, None, None


# ----------------------------------------------------------------------------- analysis

def ancestors(v):
    seen, todo = set(), list(v.m) if isinstance(v, Mat3) else [v]
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
        if isinstance(o["value"], T):   # stage 12: a lane keeps one of the two; only what it uses next is known
            o["useful"] = isinstance(shown.get(o["tid"]), T)
            continue
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
                if isinstance(rows[-1]["shown"].get(o["tid"]), T) and not isinstance(v, T):
                    continue   # stage 12: the index stored after the value; the row shows the value
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


def draw_input(cv, y, n, grid, threads, recs, element="int"):
    """The input strip: which block and thread reads each input (for matrices: each matrix, its 9
    ints). Returns (y below, problems)."""
    loads = [e for r in recs for e in r.events if e["kind"] == "load"]
    mats = any("mat" in e or "parts" in e for e in loads)
    unit = 4 if any(e["width"] == 4 for e in loads) and not mats else 1
    n_cells = n if mats else (n + unit - 1) // unit
    if mats:   # one load per matrix part it holds: (matrix, component)
        loads = [dict(e, mat=m, comp=c) for e in loads for m, c in (e.get("parts") or [(e["mat"], e["comp"])])]
    total = max(n_cells, max(((e["mat"] if mats else (e["index"] + e["width"] - 1) // unit) + 1 for e in loads),
                             default=0))
    per_line = min(32, threads)
    pitch = AREA / per_line
    owner, ordinal = {}, {}
    parts = {}   # matrices: (matrix, component) -> how often it was read
    for e in loads:
        key = (e["block"], e["tid"])
        if mats:
            parts[(e["mat"], e["comp"])] = parts.get((e["mat"], e["comp"]), 0) + 1
            if e["mat"] in owner:
                continue   # the thread that reads a matrix's first int numbers its cell
        ordinal[key] = ordinal.get(key, -1) + 1
        owner.setdefault(e["mat"] if mats else e["index"] // unit, []).append((e["block"], e["tid"], ordinal[key],
                                                                             e["bad"]))
    if mats:
        what = "%d matrices of 9 ints (one cell = a matrix, 36 bytes)" % n
    else:
        what = ("%d %ss read as 16-byte %s4s (one cell = 4 %ss)" % (n, element, element, element) if unit == 4 else
                "%d %ss" % (n, element))
    y = cv.paragraph(MARGIN, y, "Input: %s, %d blocks of %d threads. One line = %d cells side by side. "
                     "Colour = block, number = the thread that reads the cell, lighter = a later load by the "
                     "same thread." % (what, grid, threads, per_line), 12.5) + 2
    lines = (total + per_line - 1) // per_line
    for c in range(lines * per_line):
        x = MARGIN + (c % per_line) * pitch
        cy = y + (c // per_line) * (INPUT_H + 3)
        if c in owner:
            b, t, k, bad = owner[c][0]
            again = mats and any(parts.get((c, j), 0) > 1 for j in range(9))
            fill = "#d62728" if bad or len(owner[c]) > 1 or (again and OP["op"] == "sum") else \
                shade(BLOCK_HUES[b % 4], min(0.72, 0.24 * k))
            marked = STYLE.get("marks") and any(k in STYLE["marks"] for k in range(c * unit, (c + 1) * unit))
            cv.rect(x, cy, pitch - 1, INPUT_H, fill, "#1a1a1a" if again or marked else "none",
                    2.4 if marked else 1.6 if again else 1.0)
            cv.number(x, cy + 14.5, pitch - 1, str(t), ink_for(fill), 11.5)
        elif c < n_cells:
            cv.rect(x + 0.75, cy + 0.75, pitch - 2.5, INPUT_H - 1.5, "#ffffff", "#d62728", 1.5)
        else:
            cv.rect(x, cy, pitch - 1, INPUT_H, "#e6e6e6")
    y += lines * (INPUT_H + 3) + 12
    problems = []
    never = [c for c in range(n_cells) if c not in owner]
    twice = [c for c in owner if len(owner[c]) > 1]
    if mats:   # a matrix counts as read when each of its 9 ints is, once
        never += [c for c in range(n_cells) if c in owner and any(parts.get((c, k), 0) == 0 for k in range(9))]
        twice += [c for c in owner if c not in twice and any(parts.get((c, k), 0) > 1 for k in range(9))]
    past = sorted(set(e["index"] for e in loads if e["bad"]))
    if never:
        problems.append("%d input cells are never read (white with a red border)" % len(never))
    again = []
    if twice and OP["op"] != "sum" and mats and all(len(owner[c]) == 1 for c in twice):
        again, twice = twice, []   # min(x, x) = x: a second read of the same int changes nothing
    if twice:
        problems.append("%d input cells are read twice (red)" % len(twice))
    if past:
        problems.append("reads past the end of the input at index %d" % past[0])
    if lines * per_line > n_cells:
        y = cv.paragraph(MARGIN, y, "Grey cells lie past n = %d: no thread reads them." % n, 11.5, color="#555")
    if STYLE.get("marks"):
        y = cv.paragraph(MARGIN, y, "Outlined: the cells that hold the smallest value, at indices %s."
                         % ", ".join(str(k) for k in sorted(STYLE["marks"])), 11.5, color="#555")
    if again:
        y = cv.paragraph(MARGIN, y, "Outlined: %d matrices with ints that two loads read. Harmless for a minimum, "
                         "min(x, x) = x, and free when the second load asks for sectors the warp's same load already "
                         "moves." % len(again), 11.5, color="#555")
    return y, problems


def shift_text(c):
    """A packed constant as the code writes it: 2^48 -> '(1 << 48)'."""
    return "(1 << %d)" % (c.bit_length() - 1) if c > 0 and c & (c - 1) == 0 else "{:,}".format(c)


# What the words of a picture say for each operator: a sum sums, a minimum takes the smallest.
WORDS = {
    "sum": dict(regload="each thread adds what it reads in a register, sum",
                shfl="sum += the sum of lane t %s %s", result="the sum", total="sum", verb="summed",
                of="the sum of"),
    "min": dict(regload="each thread keeps the smallest value it reads in a register",
                shfl="v = min(v, the v of lane t %s %s)", result="the minimum", total="minimum",
                verb="taken the minimum of", of="the minimum of"),
    "argmin": dict(regload="each thread keeps the first smallest value it reads, and its index",
                   shfl="take the pair of lane t %s %s where it comes first", result="the pair",
                   total="first smallest value", verb="kept", of="the first smallest of"),
    "max": dict(regload="each thread keeps the largest value it reads in a register",
                shfl="v = max(v, the v of lane t %s %s)", result="the maximum", total="maximum",
                verb="taken the maximum of", of="the maximum of"),
}
OP = {"op": "sum"}   # the operator of the picture being drawn (draw() sets it)


def words(key):
    return WORDS[OP["op"]][key]


STYLE = {}   # stage 12's picture: "winner", the leaves of the element out[0] holds (draw() sets it)


def cell_label(v):
    """What a slot or register shows: how many inputs its value covers; stage 12, the index of the
    element it holds (an index, as an int, itself)."""
    if STYLE.get("winner") is not None:
        if isinstance(v, T):
            return str(min(v.leaves)) if v.leaves else "-"
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else ""
    return str(cell_count(v))


def row_label(row, step_no, warp=REAL_WARP):
    name = row.get("shared_name", "sdata")
    if row["kind"] == "load":
        return "load", "each thread stores what it read"
    if row["kind"] == "regload":
        return "load", words("regload")
    if row["kind"] == "shfl":
        offs = sorted(set(o["offset"] for o in row["ops"]), reverse=True)
        if any(o.get("mode") == "shfl_xor" for o in row["ops"]):
            return "shuffle", words("shfl") % ("xor", ", ".join(map(str, offs)))
        return "shuffle", words("shfl") % ("+", ", ".join(map(str, offs)))
    if row["kind"] == "out":
        return "write", "out[blockIdx.x] = %s" % words("result")
    if row["kind"] == "store" and OP["op"] == "argmin":
        return "store", "lane 0 of each warp: %s[warp] = its warp's pair" % name.replace(", ", "[warp], ", 1) \
            .replace("[warp][warp]", "[warp]")
    if row["kind"] == "store":
        per_warp = all(o["tid"] % warp == 0 and o["dst"][1] == o["tid"] // warp for o in row["ops"])
        return "store", ("lane 0 of each warp: %s[warp] = its warp's %s" % (name, words("total")) if per_warp else
                         "%s[...] = %s" % (name, "sum" if OP["op"] == "sum" else "v"))
    if row["kind"] == "atomic":
        o0 = row["ops"][0]
        added = o0["value"]
        what = shift_text(added.c) + (" + (unsigned int)sum" if added.lo >= 0 else " + sum") \
            if isinstance(added, Word) else "sum"
        return "atomicAdd", "thread %d: %s += %s" % (o0["tid"], o0["word"]["name"], what)
    if row["kind"] == "register":
        o0 = row["ops"][0]
        terms = ["%s[t%s]" % (name, "" if k == o0["tid"] else " + %d" % (k - o0["tid"])) for _, k in o0["srcs"]]
        slots = sorted(set(k for o in row["ops"] for _, k in o["srcs"]))
        if OP["op"] == "argmin":
            mod = len([k for k in slots if k < 32])
            return "registers", "lane t takes the pair of warp t mod %d: %s" % (
                mod, " and ".join("%s[t mod %d]" % (a, mod) for a in name.split(", ")))
        if OP["op"] != "sum" and len(row["ops"]) > len(slots) and slots == list(range(len(slots))):
            return "registers", "v = %s[t mod %d]: every lane reads a warp's value, some the same one" % (
                name, len(slots))
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
                    shown = row.get("shown", {}).get(col, o["value"])
                    if row["kind"] == "shfl" and col not in row.get("shown", {}):
                        shown = None
                    if STYLE.get("winner") is not None:   # stage 12: strong where the lane holds the smallest value
                        useful = shown is not None
                        strong = isinstance(shown, T) and shown.val == STYLE.get("smallest")
                        cv.rect(x, ly, cell_w, CELL_H, "#ffd27f" if strong else "#fbf0d9",
                                "#c9a04c" if strong else "#e8d7b0", rx=3)
                    else:
                        cv.rect(x, ly, cell_w, CELL_H, "#ffd27f" if useful else "#fbf0d9",
                                "#c9a04c" if useful else "#e8d7b0", rx=3)
                    if shown is not None and useful:
                        cv.number(x, ly + 17, cell_w, cell_label(shown))
                    if STYLE.get("winner") is not None and isinstance(shown, T) and useful and \
                            shown.leaves == STYLE["winner"]:
                        cv.rect(x - 1, ly - 1, cell_w + 2, CELL_H + 2, "none", "#c0392b", 2.2, rx=3)
                else:
                    v = row["after"][col]
                    if o is not None:
                        fill = "#7fb2e5" if o.get("useful", True) else "#d6e5f5"
                    else:
                        fill = "#f4f4f4"
                    hit = col in row["conflict_cells"]
                    cv.rect(x, ly, cell_w, CELL_H, fill, "#d62728" if hit else "#9a9a9a", 2.2 if hit else 0.8)
                    val = cell_label(v) + ("!" if isinstance(v, V) and v.dup else "")
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
    mats = launch.get("ladder_n", launch["n"]) != launch["n"]
    head += ("n = %d%s, %d blocks of %d threads, 32-lane warps, 32 banks of 4-byte words"
             % (launch["n"], " matrices" if mats else "", c["blocks"], c["threads_per_block"]))
    per = c["bank_conflicts_per_request"]
    return [head,
            "global memory: %s loads of the input, %s bytes; bytes per load %s, loads per %s %s, %ss per "
            "thread %s; the emulated GPU holds %s such blocks at once"
            % (fmt_num(c["global_loads"]), fmt_num(c["global_load_bytes"]), fmt_num(c["global_load_width"]),
               "matrix" if mats else "input", fmt_num(c["global_loads_per_element"]), "matrice" if mats else "input",
               fmt_num(c["elements_per_thread"]), fmt_num(c["resident_blocks"])),
            "meetings: %d block barriers (__syncthreads, once per block), %d warp meetings (shuffles and "
            "__syncwarp, once per warp)" % (c["block_barriers"], c["warp_meetings"]),
            "shared memory: %d requests (one per warp instruction), %s lanes at work and %s idle in them, "
            "%d divergent; %d bank conflicts, %s per request"
            % (c["shared_requests"], fmt_num(c["shared_active_lanes"]), fmt_num(c["shared_idle_lanes"]),
               c["divergent_shared_requests"], c["shared_bank_conflicts"], fmt_num(per)),
            "The CPU emulator counts the same: reduce_ladder_emu --stage %d --n %d --threads %d --counters%s"
            % (number, launch.get("ladder_n", launch["n"]), c["threads_per_block"],
               " (its --n counts ints: %d matrices of 9)" % launch["n"] if mats else "")]


def draw(number, title, threads, warp, banks, n, grid, recs, outs, scaled, note=SOURCE_NOTE, launch=None,
         panel=None, problem=("KIT_INT", "KIT_SUM"), values=None):
    """The SVG of one stage: input strip, block 0 step by step, the check, the counters.
    launch: counted_launch()'s result (the counters footer); panel: a function that draws a
    panel under the title, given (canvas, y) and returning the y below it."""
    cv = Canvas()
    y = 62
    if panel:
        y = panel(cv, y) + 14
    element = {"KIT_FLOAT": "float"}.get(problem[0], "int")
    OP["op"] = {"KIT_MIN": "min", "KIT_MAX": "max", "KIT_ARGMIN": "argmin"}.get(problem[1], "sum")
    layout = layout_of(problem)
    mats = layout in ("aos", "soa")
    argmin = OP["op"] == "argmin"
    STYLE.clear()
    smallest = None
    if argmin:   # the places of the smallest value: outlined in the input strip
        smallest = min(T.num(v) for v in values) if values else None
        STYLE["marks"] = set(k for k, v in enumerate(values or []) if T.num(v) == smallest)
        final = written(recs).get(0)
        STYLE["winner"] = final.value.leaves if isinstance(final, Argmin) and isinstance(final.value, T) else \
            frozenset([-1])
        STYLE["smallest"] = smallest
    y, problems = draw_input(cv, y + 16, n, grid, threads, recs, element)
    if argmin:
        return draw_argmin(cv, y, number, title, threads, warp, banks, n, grid, recs, values, problems, scaled,
                           note, launch)
    if mats:
        y = coalescing_panel(cv, y + 4, recs, threads, layout) + 6
        y = exchange_panel(cv, y, recs, threads)
    meets = one_pass_of(recs)
    rows = steps_of(recs[0], threads, warp, banks, block_result(recs[0], outs[0]) if meets else outs[0])
    others = 0
    if mats:
        rows, others = matrix_rows(rows)
    y = cv.paragraph(MARGIN, y + 14, "Block 0, step by step. Each row is the block's shared memory (blue) or its "
                     "threads' registers (yellow) after one step; a number is how many %s that slot or "
                     "register has %s so far, and under it the thread that wrote it. The boxes at the right "
                     "are the block's warps.%s" % ("matrices" if mats else "inputs", words("verb"),
                                                   (" Drawn for component 0 of the matrices, m[0], the top left "
                                                    "entry: each of the other 8 components makes the same steps "
                                                    "on its own values (%d more rows)." % others) if mats else ""),
                     12.5) + 4
    y = draw_rows(cv, y, threads, warp, rows, one_pass_levels(rows, threads, warp, meets) if meets else None)
    if meets:
        y, writer, final = draw_meeting(cv, y + 6, meets, grid, problems)
        y += 16
        if final is not None:
            cv.text(MARGIN, y, "Block %d, the last to add, writes out[0] = the sum of %d inputs."
                    % (writer, cell_count(final)), 13, weight="bold")
        outs = [final]
    elif mats:
        out = written([recs[0]])
        final = out.get(0)
        y += 16
        cv.text(MARGIN, y, "Thread 0 writes the block's 9 minimums, each of %d matrices: %s." % (
            cell_count(final.m[0] if isinstance(final, Mat3) else final),
            "out[blockIdx.x], a kit_mat3" if layout == "aos" else
            "out[c * gridDim.x + blockIdx.x] for c = 0 to 8, component c of result blockIdx.x of 9 planes"),
            13, weight="bold")
        outs = []
    else:
        final = outs[0]
        y += 16
        cv.text(MARGIN, y, "Thread 0 writes out[0] = %s %d inputs." % (words("of"), cell_count(final)), 13,
                weight="bold")
    cover, dup = set(), False
    for v in outs:
        if isinstance(v, V):
            dup = dup or v.dup or bool(cover & v.leaves)
            cover |= v.leaves
    missing = n - len(cover & set(range(n)))
    if mats:
        missing = 0
        out = written(recs)
        comps = [[] for _ in range(9)]
        for k, v in out.items():
            if isinstance(v, Mat3):
                for c in range(9):
                    comps[c].append(v.m[c])
            elif layout == "soa" and k < 9 * grid:
                comps[k // grid].append(v)
        for c in range(9):
            got = set()
            for v in comps[c]:
                if isinstance(v, V):
                    got |= v.leaves
                    outs.append(v)
            lost = n - len(got & set(9 * m + c for m in range(n)))
            if lost or got - set(9 * m + c for m in range(n)):
                problems.append("component %d: %s" % (c, "%d matrices are in no block's minimum" % lost if lost
                                                      else "the blocks' minimums hold another component"))
    if missing:
        problems.append("%d inputs are in no block's %s" % (missing, words("total")))
    if dup and OP["op"] == "sum":
        problems.append("some inputs are counted twice ('!' in a cell)")
    foreign = sorted(set(c for v in outs if isinstance(v, V) for c in v.foreign))
    if foreign:
        problems.append("the constant %s takes part in the %s: a value that is in no input, and it wins whenever "
                        "every input is %s (start from the identity, %s)"
                        % (" and ".join(fmt_num(c) for c in foreign), words("total"),
                           "larger" if OP["op"] == "min" else "smaller",
                           "INT_MAX" if OP["op"] == "min" else "INT_MIN"))
    y += 20
    if problems:
        y = cv.paragraph(MARGIN, y, "Wrong: " + "; ".join(problems) + ".", 12.5, color="#d62728", weight="bold")
    elif meets:
        y = cv.paragraph(MARGIN, y, "Check: out[0] covers in[0..%d) exactly once, the %d blocks' sums added in one "
                         "word, and the word is back to 0 for the next launch." % (n, grid), 12.5, color="#2c7a2c")
    elif mats:
        y = cv.paragraph(MARGIN, y, "Check: for each of the 9 components, the %d blocks' minimums together cover "
                         "the %d matrices, and no constant but the identity took part." % (grid, n), 12.5,
                         color="#2c7a2c")
    elif OP["op"] == "sum":
        y = cv.paragraph(MARGIN, y, "Check: the %d block sums together cover in[0..%d) exactly once." % (grid, n),
                         12.5, color="#2c7a2c")
    else:
        y = cv.paragraph(MARGIN, y, "Check: the %d block %ss together cover in[0..%d), and no constant but the "
                         "identity took part (an input seen twice changes nothing: %s(x, x) = x)."
                         % (grid, words("total"), n, OP["op"]), 12.5, color="#2c7a2c")
    return finish(cv, y, number, title, threads, warp, banks, scaled, note, launch), rows, problems


def finish(cv, y, number, title, threads, warp, banks, scaled, note, launch):
    """The picture's end (the counters, the model, the legend) and its head: the SVG."""
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
    legend = {"sum": "Pale cells: computed but never used for the block's sum (a pale register's number is left "
                     "out: it adds values nobody reads). '!': an input counted twice.",
              "argmin": "Pale yellow: a lane that holds a pair whose value is not the smallest; an empty pale "
                        "register: a lane whose pair nobody reads after the step."}.get(
        OP["op"], "Pale cells: computed but never used for the block's %s (a pale register's number is left out: "
                  "nobody reads it)." % words("total"))
    y = cv.paragraph(MARGIN, y, "Warp boxes: green, all lanes work; orange, some do (a divergent warp); grey, idle. "
                     "Red borders: slots hit by a bank conflict. " + legend, 11.5, color="#555")
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
    return "\n".join(head + cv.arrows + cv.shapes + cv.texts + ["</svg>"]) + "\n"


def draw_argmin(cv, y, number, title, threads, warp, banks, n, grid, recs, values, problems, scaled, note, launch):
    """Stage 12's picture after its input strip: block 0's registers, each with the index of the element
    it holds, the meeting of the blocks in the key word, and the check against the input's first
    smallest value."""
    rec0 = recs[0]
    kept = [e for e in rec0.events if not (e["kind"] in ("reg", "shfl") and not isinstance(e.get("value"), T)
                                           and e.get("value") is not None)
            and e["kind"] not in ("atomic", "atomic_op", "fence", "store")]
    view = Recorder()
    view.events, view.shared_name, view.shared_size = kept, rec0.shared_name, rec0.shared_size
    final = written(recs).get(0)
    rows = steps_of(view, threads, warp, banks, final.value if isinstance(final, Argmin) else None)
    smallest = min(T.num(v) for v in values)
    # after the block's last shuffle, lane 0's pair goes into its key: the row shows that pair
    offered = [e for e in rec0.events if e["kind"] == "atomic_op" and e["op"] == "min"]
    shuffles = [r for r in rows if r["kind"] == "shfl"]
    if offered and shuffles and isinstance(offered[0]["arg"], T):
        v, i = key_fields(offered[0]["arg"])
        shuffles[-1].setdefault("shown", {})[offered[0]["tid"]] = T(int(v) if v.lstrip("-").isdigit() else None,
                                                                   offered[0]["arg"].leaves)
        for o in shuffles[-1]["ops"]:
            o["useful"] = o["tid"] in shuffles[-1]["shown"]
    places = sorted(k for k, v in enumerate(values) if T.num(v) == smallest)
    y = cv.paragraph(MARGIN, y + 14, "Block 0, step by step. The input: random ints in [%d, %d], and the smallest "
                     "value, %d, at the %d indices outlined above. Each row is the block's shared memory (blue) or "
                     "its threads' registers (yellow) after one step; a number is the index of the element whose "
                     "value the slot or register holds (in shared memory, warp_indices holds the index itself), "
                     "and under it the thread that wrote it; strong yellow where that value is %d. A red frame: "
                     "the element out[0] ends up with%s. Each "
                     "shuffle step moves two values, the value and its index; the picture draws one row for both."
                     % (min(T.num(v) for k, v in enumerate(values) if k not in places),
                        max(T.num(v) for v in values), smallest, len(places), smallest,
                        "" if STYLE["winner"] & set(e["index"] + j for e in rec0.events if e["kind"] == "load"
                                                    for j in range(e["width"])) else
                        " (here an element block 0 never reads: no red frame below)"), 12.5) + 4
    y = draw_rows(cv, y, threads, warp, rows)
    y, (writer, result) = draw_key_meeting(cv, y + 6, recs, grid, problems)
    y += 16
    want = places[0] if places else None
    if isinstance(result, Argmin):
        got_v, got_i = T.num(result.value), T.num(result.index)
        cv.text(MARGIN, y, "Block %d, the one that drew the last ticket, writes out[0] = (%s, %s)." % (
            writer, got_v, got_i), 13, weight="bold")
        if (got_v, got_i) != (smallest, want):
            problems.append("out[0] = (%s, %s), but the first smallest value is %d at index %d" % (
                got_v, got_i, smallest, want))
    y += 20
    if problems:
        y = cv.paragraph(MARGIN, y, "Wrong: " + "; ".join(problems) + ".", 12.5, color="#d62728", weight="bold")
    else:
        y = cv.paragraph(MARGIN, y, "Check: out[0] = (%d, %d): the smallest value of in[0..%d) and, of the %d "
                         "indices that hold it (%s), the first; the key word and the ticket count are back where "
                         "the next launch needs them." % (smallest, want, n, len(places),
                                                          ", ".join(str(k) for k in places)), 12.5, color="#2c7a2c")
    return finish(cv, y, number, title, threads, warp, banks, scaled, note, launch), rows, problems


# ----------------------------------------------------------------------------- argmin (stage 12)

def key_fields(key):
    """(value, index) of a 64-bit key (value ^ 0x80000000) << 32 | index, as text."""
    k = T.num(key)
    if not isinstance(k, int):
        return "?", "?"
    value = ((k >> 32) ^ 0x80000000) & 0xFFFFFFFF
    value = value - (1 << 32) if value >= 1 << 31 else value
    index = k & 0xFFFFFFFF
    return ("INT_MAX" if value == (1 << 31) - 1 else "%d" % value), ("none" if index == 0xFFFFFFFF else "%d" % index)


def draw_key(cv, y, key):
    """A 64-bit key as its two fields: the value with its sign bit flipped (high 32 bits), the index."""
    value, index = key_fields(key)
    cv.rect(WORD_X, y, WORD_W / 2, WORD_H, "#c9d9ef", "#7d97bd", 1.0, rx=2)
    cv.rect(WORD_X + WORD_W / 2, y, WORD_W / 2, WORD_H, "#ffd27f", "#c9a04c", 1.0, rx=2)
    cv.text(WORD_X + WORD_W / 4, y + 19, "value %s" % value, 13.5, "middle", "#1a1a1a", weight="bold")
    cv.text(WORD_X + 3 * WORD_W / 4, y + 19, "index %s" % index, 13.5, "middle", "#1a1a1a", weight="bold")


def draw_key_meeting(cv, y, recs, grid, problems):
    """Stage 12's meeting between blocks: each block's atomicMin on the key word, its ticket, and the
    block that draws the last ticket reading the key, putting the word back and writing out[0].
    Returns (y below, the kit_argmin written or None)."""
    events = [(r.block, e) for r in recs for e in r.events
              if e["kind"] in ("atomic_op", "atomic", "store", "out", "fence")]
    ops = [e for _, e in events if e["kind"] == "atomic_op"]
    if not ops:
        return y, None
    name = next(e["name"] for e in ops if e["op"] == "min")
    y = cv.paragraph(MARGIN, y + 10, "Between blocks: the 64-bit word %s through the whole launch. A key holds the "
                     "value with its sign bit flipped in its high 32 bits (so -2^31..2^31-1 become 0..2^32-1, in the "
                     "same order) and the index in the low 32: two keys compare as unsigned numbers exactly as their "
                     "pairs do by the rule, value first, then index. The model runs block 0 first; on a GPU the "
                     "blocks arrive in any order, and the smallest key wins whatever the order." % name, 12.5) + 6
    cv.text(WORD_X + WORD_W / 4, y, "bits 63-32: value ^ 0x80000000", 11.5, "middle", "#444")
    cv.text(WORD_X + 3 * WORD_W / 4, y, "bits 31-0: index", 11.5, "middle", "#444")
    y += 8
    note_x = WORD_X + WORD_W + 14
    first = next(e for e in ops if e["name"] == name)

    def line(label, key, note=None, block=None, color="#222"):
        if block is not None:
            cv.rect(MARGIN, y + 8, 12, 12, BLOCK_HUES[block % 4], rx=2)
        cv.text(MARGIN + (18 if block is not None else 0), y + 19, label, 12.5, color=color)
        if key is not None:
            draw_key(cv, y, key)
        if note:
            cv.paragraph(note_x if key is not None else WORD_X, y + 13, note, 11.5,
                         width=MARGIN + AREA - (note_x if key is not None else WORD_X), color=color, step=14)

    line("before the launch", first["old"], "the identity: after every pair")
    y += WORD_H + 12
    written_out, last_writer = None, None
    for b, e in events:
        if e["kind"] == "atomic_op" and e["op"] == "min":
            v, i = key_fields(e["arg"])
            line("block %d: atomicMin, key of (%s, %s)" % (b, v, i), e["new"],
                 "kept" if T.num(e["new"]) == T.num(e["arg"]) else "the word's key comes first: unchanged", b)
            y += WORD_H + 12
        elif e["kind"] == "atomic" and not isinstance(e["added"], Word):
            last = e["old"] == grid - 1
            line("block %d: ticket %d of %d%s" % (b, e["old"], grid, ": the last" if last else ""), None,
                 "every key is in %s: this block finishes" % name if last else
                 "not the last: this block is done", b, "#222")
            y += 22
        elif e["kind"] == "atomic_op" and e["op"] == "exch":
            v, i = key_fields(e["old"])
            line("block %d: atomicExch reads (%s, %s)" % (b, v, i), e["new"], "and puts the identity back", b)
            y += WORD_H + 12
        elif e["kind"] == "store":
            line("block %d: %s = %s" % (b, e["name"], e["value"]), None,
                 "ready for the next launch" if e["value"] == 0 else None, b)
            y += 22
        elif e["kind"] == "out":
            written_out, last_writer = e["value"], b
    if written_out is None:
        problems.append("no block writes out[0]")
    dev = [e for _, e in events if e["kind"] == "atomic_op" and e["name"] == name]
    if dev and T.num(dev[-1]["new"]) != T.num(first["old"]):
        problems.append("%s is not back to its starting key after the launch: the next launch would start from it"
                        % name)
    stores = [e for _, e in events if e["kind"] == "store"]
    tickets = [e for _, e in events if e["kind"] == "atomic" and not isinstance(e["added"], Word)]
    if tickets and not any(e["value"] == 0 for e in stores):
        problems.append("the ticket counter is not back to 0 after the launch")
    return y, (last_writer, written_out)


# ----------------------------------------------------------------------------- floats (stage 9)

def element_type(source):
    """The type of the kernel's input elements, from its first parameter: 'int', 'float', 'kit_mat3'."""
    text = strip_comments(source)
    m = re.search(r"KIT_REGISTER_STAGE\s*\(\s*(\w+)", text)
    km = m and re.search(r"__global__\s+void\s+%s\s*\(\s*(?:const\s+)?(\w+)" % re.escape(m.group(1)), text)
    return km.group(1) if km else "int"


def float_run_of(path):
    """KIT_FLOAT_RUN of common/kit.h next to the stage file's folder (solutions/../common), or None."""
    kit_h = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(path)))), "common", "kit.h")
    try:
        with open(kit_h, encoding="utf-8") as f:
            m = re.search(r"^#define\s+KIT_FLOAT_RUN\s+(\d+)", f.read(), re.M)
    except OSError:
        return None
    return int(m.group(1)) if m else None


def commas(v):
    return "{:,}".format(int(v))


def float_panel(path, kernel, threads, n):
    """The float stage's panel: where a float sum rounds. Left, the course's example (1 + ... + 10000
    added one by one in float, its error against k); right, how many adds each input of the drawn
    launch goes through, both passes of the kernel's own code, against a running sum."""
    final, grids = simulate_passes(kernel, threads, n)
    depth = roundings(final)
    if len(depth) != n:
        raise SimError("the kernel's result holds %d of the %d inputs" % (len(depth), n))
    most, least = max(depth.values()), min(depth.values())
    run = float_run_of(path)
    # the course's example, float by float
    course = list(range(1, 10001))
    s, exact, errors, first = 0.0, 0, [], None
    for k, x in enumerate(course, 1):
        exact += x
        s = float32_add(s, float(x))
        errors.append(exact - s)
        if first is None and s != exact:
            first = (k, exact)
    tree = pairwise_float_sum(course)
    crossings = [(p, next(k for k, _ in enumerate(course, 1) if k * (k + 1) // 2 >= 2 ** p)) for p in (24, 25)]
    words = ("Every float add rounds its result to 24 significant bits, so the order of the adds decides how much is "
             "lost. Left: the course's example, 1 + 2 + ... + %s added one by one in float (computed when this "
             "picture was drawn). The running sum is exact up to k = %s; at k = %s it reaches %s, past 2^24, where "
             "floats are 2 apart, and from there on adds round (past 2^25 floats are 4 apart). It ends at %s, %s "
             "short of %s. Added as a tree of pairs, the same numbers give %s."
             % (commas(len(course)), commas(first[0] - 1), commas(first[0]), commas(first[1]), commas(s),
                commas(exact - s), commas(exact), commas(tree)))
    right = ("Right: how many adds each of this launch's %s inputs goes through on its way to out[0], counted by "
             "running the kernel's code for both passes (%s blocks, then 1): %s. In a running sum in[0] would go "
             "through %s adds, and half of the inputs through %s or more.%s"
             % (commas(n), grids[0], ("%d for every input" % most) if most == least else
                ("%d to %d" % (least, most)), commas(n - 1), commas(n // 2),
                (" The grader allows ceil(log2 n) + %d = %d per input (kit_float_bound in common/kit.h)."
                 % (run, (max(1, n) - 1).bit_length() + run)) if run else ""))

    def panel(cv, y):
        y += 6
        cv.text(MARGIN, y + 14, "Where a float sum rounds", 15, weight="bold")
        y = cv.paragraph(MARGIN, y + 36, words, 12.5)
        y = cv.paragraph(MARGIN, y + 2, right, 12.5) + 4
        gap, w = 36, (AREA - 36) / 2.0
        h, top = 150, y + 20
        # left: the running sum's error against k
        x0 = MARGIN + 44
        pw = w - 44
        cv.text(MARGIN, y + 8, "exact minus float, adding 1, 2, ..., k", 12, weight="bold")
        top_err = max(errors)
        ys = lambda e: top + h - h * e / float(top_err)
        xs = lambda k: x0 + pw * k / float(len(course))
        for e in (0, top_err // 2, top_err):
            cv.shapes.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#e3e3e3"/>'
                             % (x0, x0 + pw, ys(e), ys(e)))
            cv.text(x0 - 5, ys(e) + 4, commas(e), 11, "end", "#666")
        for p, k in crossings:
            cv.shapes.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#9a6a12" stroke-dasharray="3 3"/>'
                             % (xs(k), xs(k), top, top + h))
            cv.text(xs(k) + (-4 if p == 24 else 4), top + h - 10, "sum passes 2^%d" % p, 11,
                    "end" if p == 24 else "start", "#9a6a12")
        pts = ["%.1f,%.1f" % (xs(k), ys(errors[k - 1])) for k in range(1, len(course) + 1, 20)] + \
              ["%.1f,%.1f" % (xs(len(course)), ys(errors[-1]))]
        cv.shapes.append('<polyline points="%s" fill="none" stroke="#d62728" stroke-width="1.8"/>' % " ".join(pts))
        cv.text(xs(len(course)) - 2, ys(errors[-1]) + 16, "%s at k = %s" % (commas(errors[-1]), commas(len(course))),
                11.5, "end", "#d62728")
        cv.shapes.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#333"/>' % (x0, x0 + pw, top + h, top + h))
        for k in (0, 5000, 10000):
            cv.text(xs(k), top + h + 15, "k = %s" % commas(k), 11, "middle" if k else "start", "#444")
        # right: adds per input, in power-of-two bins
        x1 = MARGIN + w + gap + 40
        pw2 = w - 40
        cv.text(MARGIN + w + gap, y + 8, "inputs by the adds they go through (n = %s)" % commas(n), 12,
                weight="bold")
        bins = (n - 1).bit_length()
        mine = [0] * (bins + 1)
        chain = [0] * (bins + 1)
        for d in depth.values():
            mine[max(0, d).bit_length() - 1 if d > 0 else 0] += 1
        for k in range(n):
            d = n - 1 if k == 0 else n - k
            chain[d.bit_length() - 1] += 1
        topc = float(max(mine + chain))
        bw = pw2 / len(mine)
        yc = lambda c: top + h - h * c / topc
        for c in (0, int(topc) // 2, int(topc)):
            cv.shapes.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#e3e3e3"/>'
                             % (x1, x1 + pw2, yc(c), yc(c)))
            cv.text(x1 - 5, yc(c) + 4, commas(c), 11, "end", "#666")
        for j in range(len(mine)):
            bx = x1 + j * bw
            for off, count, colour, who in ((0.1, mine[j], "#3b6fb6", "this kernel"),
                                            (0.5, chain[j], "#d62728", "a running sum")):
                if count:
                    cv.rect(bx + bw * off, yc(count), bw * 0.38, top + h - yc(count), colour,
                            title="%s: %s inputs through %d to %d adds" % (who, commas(count), 2 ** j,
                                                                          2 ** (j + 1) - 1))
            if j % 2 == 0 or len(mine) <= 8:
                cv.text(bx + bw / 2, top + h + 15, commas(2 ** j), 11, "middle", "#444")
        if run:
            h_run = (max(1, n) - 1).bit_length() + run
            bx = x1 + bw * (h_run.bit_length() - 1) + bw * (h_run - 2 ** (h_run.bit_length() - 1)) / \
                float(2 ** (h_run.bit_length() - 1))
            cv.shapes.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#555" stroke-dasharray="6 4" '
                             'stroke-width="1.4"/>' % (bx, bx, top, top + h))
            cv.text(bx - 4, top + 12, "grader: %d" % h_run, 11, "end", "#555")
        cv.shapes.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#333"/>'
                         % (x1, x1 + pw2, top + h, top + h))
        cv.text(x1, top + h + 31, "adds (bins from 1, 2, 4, ...): blue this kernel, red a running sum", 11, color="#444")
        y = top + h + 44
        cv.shapes.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#cccccc"/>' % (MARGIN, MARGIN + AREA, y, y))
        return y + 4
    return panel


# ----------------------------------------------------------------------------- matrices (stages 13-15)

SECTOR_WORDS, LINE_WORDS = 8, 32   # a 32-byte sector and a 128-byte cache line, in 4-byte words


def warp_requests(recs, threads, count=9):
    """The load instructions of warp 0 of block 0 that read its first 32 matrices (at most `count`):
    the k-th load of each of its lanes, in program order, as the GPU issues them for the whole warp
    at once. Returns [(k, {lane: (words it reads)})]."""
    per_lane = {}
    for e in recs[0].events:
        if e["kind"] == "load" and e["tid"] < min(REAL_WARP, threads):
            per_lane.setdefault(e["tid"], []).append(tuple(range(e["index"], e["index"] + e["width"])))
    out, covered = [], set()
    for k in range(count):
        lanes = dict((t, ws[k]) for t, ws in per_lane.items() if len(ws) > k)
        if not lanes or len(covered) >= 9 * REAL_WARP:
            break
        out.append((k, lanes))
        covered |= set(w for ws in lanes.values() for w in ws)
    return out


def request_text(lanes):
    """(lines, sectors, bytes moved, bytes used) of one warp load."""
    words = set(w for ws in lanes.values() for w in ws)
    sectors = set(w // SECTOR_WORDS for w in words)
    lines = set(w // LINE_WORDS for w in words)
    return lines, sectors, 32 * len(sectors), 4 * len(words)


def coalescing_panel(cv, y, recs, threads, layout):
    """What warp 0's first nine loads touch: for each, the 128-byte lines and 32-byte sectors its 32
    lanes' addresses fall in, drawn line by line (dark: a word a lane asked for; light: the rest of
    a sector the memory moves anyway). Returns the y below."""
    reqs = warp_requests(recs, threads)
    if not reqs:
        return y
    y += 6
    cv.text(MARGIN, y + 14, "What one warp's loads touch", 15, weight="bold")
    total_sectors = sum(len(request_text(lanes)[1]) for _, lanes in reqs)
    moved = sum(request_text(lanes)[2] for _, lanes in reqs)
    used = sum(request_text(lanes)[3] for _, lanes in reqs)
    intro = ("Global memory answers a warp's load in 32-byte sectors of 128-byte lines. A load instruction of a "
             "warp asks for 32 addresses at once, one per lane; the memory moves every sector that holds one of "
             "them. Below: the first %d loads of warp 0 (lanes 0-31 of block 0), each with the lines its "
             "addresses fall in, drawn 32 words to a line: dark, a word a lane asked for; light, the rest of a "
             "sector that moves anyway. Together: %s sectors, %s bytes moved for %s bytes asked for (%s%%)."
             % (len(reqs), commas(total_sectors), commas(moved), commas(used),
                ("%.0f" % (100.0 * used / moved)) if moved else "0"))
    y = cv.paragraph(MARGIN, y + 36, intro, 12.5) + 2
    word_w = min(3.2, (AREA - 8 * 6) / float(9 * LINE_WORDS))
    for k, lanes in reqs:
        lines, sectors, mv, us = request_text(lanes)
        where = [lanes[t][0] for t in sorted(lanes)]
        width = len(lanes[min(lanes)])
        what = "word" if width == 1 else "words %s-%s" % ("%s", "%s")
        step = where[1] - where[0] if len(where) > 1 else 0
        if len(where) > 1 and all(b - a == step for a, b in zip(where, where[1:])):
            span = ("lane l reads word %s + %s" % (commas(where[0]), "l" if step == 1 else "%d l" % step)
                    if width == 1 else "lane l reads words %s + %d l to %s + %d l" % (
                        commas(where[0]), step, commas(where[0] + width - 1), step))
        else:
            span = "%d lanes read %d word%s each, words %s to %s%s" % (
                len(lanes), width, "" if width == 1 else "s", commas(min(where)), commas(max(where) + width - 1),
                " (%d lanes the same as others)" % (len(where) - len(set(where))) if len(set(where)) < len(where)
                else "")
        cv.text(MARGIN, y + 12, "load %d" % (k + 1), 12, weight="bold")
        cv.text(MARGIN + 52, y + 12, "%s: %d line%s, %d sectors, %s bytes moved for %s asked for" % (
            span, len(lines), "" if len(lines) == 1 else "s", len(sectors), commas(mv), commas(us)), 11.5,
            color="#c0392b" if mv > us else "#2c7a2c")
        x = MARGIN
        top = y + 18
        asked = set(w for ws in lanes.values() for w in ws)
        for line in sorted(lines):
            for w in range(line * LINE_WORDS, (line + 1) * LINE_WORDS):
                fill = "#1f4e8c" if w in asked else "#9bb7dd" if w // SECTOR_WORDS in sectors else "#f1f1f1"
                cv.rect(x + (w % LINE_WORDS) * word_w, top, word_w - 0.3, 10, fill)
            for s_ in range(1, LINE_WORDS // SECTOR_WORDS):
                cv.shapes.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#ffffff" stroke-width="1.2"/>'
                                 % (x + s_ * SECTOR_WORDS * word_w - 0.15, x + s_ * SECTOR_WORDS * word_w - 0.15,
                                    top, top + 10))
            cv.rect(x - 0.5, top - 0.5, LINE_WORDS * word_w + 0.7, 11, "none", "#777777", 0.8,
                    title="line %d: words %d to %d" % (line, line * LINE_WORDS, (line + 1) * LINE_WORDS - 1))
            x += LINE_WORDS * word_w + 6
        y = top + 18
    cv.shapes.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#cccccc"/>' % (MARGIN, MARGIN + AREA, y, y))
    return y + 4


def exchange_panel(cv, y, recs, threads):
    """Stage 15's exchange through shared memory, from block 0's run: which lane of warp 0 stores each
    word of the warp's part of shared memory (its coalesced int4 loads, stored as they came), and which
    lane reads it back (lane l takes matrix l). Returns the y below, or y when the kernel stores no
    wide loads in shared memory."""
    warp0 = [e for e in recs[0].events if e["tid"] < min(REAL_WARP, threads)]
    stores = [e for e in warp0 if e["kind"] == "swrite" and e.get("width", 1) == 4]
    if not stores:
        return y
    phase = stores[0]["phase"]
    stores = [e for e in stores if e["phase"] == phase]
    base = min(e["index"] for e in stores)
    stored = {}
    order = {}
    for e in stores:
        k = order.setdefault(e["tid"], 0)
        order[e["tid"]] += 1
        for w in range(e["index"], e["index"] + 4):
            stored[w - base] = (e["tid"], k)
    later = [e for e in warp0 if e["kind"] == "sread" and e["phase"] > phase and base <= e["index"] < base + 288]
    if not later:
        return y
    rphase = later[0]["phase"]
    reads = [e for e in later if e["phase"] == rphase]
    read = dict((e["index"] - base, e["tid"]) for e in reads)
    # the reads' bank conflicts: the k-th read of each lane is one request
    per_lane = {}
    for e in reads:
        per_lane.setdefault(e["tid"], []).append(e["index"])
    worst = 1
    for k in range(max(len(v) for v in per_lane.values())):
        banks = {}
        for v in per_lane.values():
            if len(v) > k:
                banks.setdefault(v[k] % REAL_BANKS, set()).add(v[k])
        worst = max(worst, max(len(x) for x in banks.values()))
    lines = (max(list(stored) + list(read)) // 32) + 1
    y += 6
    cv.text(MARGIN, y + 14, "Through shared memory: the loads as they came, the matrices as the lanes need them", 15,
            weight="bold")
    y = cv.paragraph(MARGIN, y + 36, "Warp 0's part of shared memory in its first group, %d words (%s bytes, the %d "
                     "matrices it read), 32 words to a line. Above: the lane that stores each word, in colour the "
                     "load it came from (%d int4 stores a lane at most, every word once: each store of the warp "
                     "writes consecutive words). Below: the lane that reads it back: lane l takes matrix l, words "
                     "9 l to 9 l + 8, with %s. A __syncwarp() between the two makes the stores visible to the "
                     "reads." % (len(stored), commas(4 * len(stored)), len(stored) // 9, max(order.values()),
                                 "no bank conflict (9 l + j falls in 32 different banks for the 32 lanes: 9 and 32 "
                                 "have no common factor)" if worst == 1 else "%d-way bank conflicts" % worst), 12.5)
    pitch = AREA / 32.0
    colours = ["#3b6fb6", "#e08a1e", "#4c9a4c", "#9b59b6"]
    for side, (title, cells) in enumerate((("stored by lane: colour = its first, second or third int4 load",
                                            dict((w, v[0]) for w, v in stored.items())),
                                           ("read by lane: lane l reads matrix l, words 9 l to 9 l + 8 (one "
                                            "matrix in one shade, the next in the other)", read))):
        cv.text(MARGIN, y + 12, title, 12, weight="bold", color="#444")
        y += 18
        for w in range(lines * 32):
            x = MARGIN + (w % 32) * pitch
            cy = y + (w // 32) * (INPUT_H + 3)
            if w not in cells:
                cv.rect(x, cy, pitch - 1, INPUT_H, "#eeeeee")
                continue
            if side == 0:
                fill = shade(colours[stored[w][1] % 4], 0.2)
            else:
                fill = "#3b6fb6" if (w // 9) % 2 == 0 else "#9bb7dd"
            cv.rect(x, cy, pitch - 1, INPUT_H, fill)
            cv.number(x, cy + 14.5, pitch - 1, str(cells[w]), ink_for(fill), 11.5)
        y += lines * (INPUT_H + 3) + 6
    cv.shapes.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#cccccc"/>' % (MARGIN, MARGIN + AREA, y, y))
    return y + 4


def matrix_rows(rows):
    """Of a matrices stage's rows, those of component 0 (m[0]): the other eight components go through
    the same steps. Returns (the rows kept, how many rows the other components add)."""
    def comps(row):
        found = set()
        for o in row["ops"]:
            v = row.get("shown", {}).get(o["tid"], o["value"])
            if isinstance(v, V):
                found |= set(k % 9 for k in v.leaves)
            elif v is not None:
                found.add("words")   # a row of raw words (stage 15's int4s through shared memory)
        return found
    kept = [r for r in rows if r["kind"] != "out" and comps(r) == {0}]
    return kept, sum(1 for r in rows if r["kind"] != "out") - len(kept)


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


def picture(path, number, title, threads=None, note=SOURCE_NOTE, results_dir=None, require_counters=False,
            problem=None):
    """The SVG of a stage, the rows of block 0 and the problems the check found.
    results_dir: the folder of the GPU ladder results (docs/results), read for stage 6's
    instruction counters; without it that panel says the counters were not given."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    kernel = translate_kernel(source)
    kernel_src, launcher_src, defines, template = kernel
    problem = problem or problem_of(number, path, source)
    # the int sums of stages 1-4 draw in the scaled model of 16 threads where they can; the later
    # problems are written for whole 32-lane warps (warps = blockDim.x / 32): 64 threads
    tries = [threads] if threads else [16, 64] if problem == ("KIT_INT", "KIT_SUM") else [64]
    errors = []
    for b in tries:
        warp = banks = 4 if b == 16 else 32
        try:
            layout, values, n = launch_input(kernel, b, problem)
            n, grid, recs, outs = simulate(kernel_src, launcher_src, defines, template, b, warp, n=n, values=values,
                                           layout=layout)
        except SimError as exc:
            errors.append("with %d threads: %s" % (b, exc))
            continue
        if warp == REAL_WARP:
            launch = dict(n=n, threads=b, blocks=grid, counters=counters(recs, n, b, grid),
                          ladder_n=n * (9 if layout in ("aos", "soa") else 1))
        else:
            launch = counted_launch(kernel, problem=problem)
        panel = instructions_panel(path, number, results_dir, require_counters) if number == 6 else \
            float_panel(path, kernel, b, n) if problem[0] == "KIT_FLOAT" and warp == REAL_WARP else None
        return draw(number, title, b, warp, banks, n, grid, recs, outs, scaled=(warp != REAL_WARP), note=note,
                    launch=launch, panel=panel, problem=problem, values=values)
    raise SimError("; ".join(errors))


def launch_counters(path, threads=64, number=None, problem=None):
    """The counted launch of a stage file (counted_launch()), as --counters-json prints it."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    if number is None:   # the stage's folder says its number: solutions/14_matrices_soa/
        m = re.match(r"(\d+)_", os.path.basename(os.path.dirname(os.path.abspath(path))))
        number = int(m.group(1)) if m else 0
    return counted_launch(translate_kernel(source), threads, problem or problem_of(number, path, source))


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
            launch = launch_counters(args.stage_file, number=args.number)
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
