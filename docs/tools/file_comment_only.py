#!/usr/bin/env python3
"""Doxygen input filter for the CPU emulator's sources (emu/): keeps only the file comment.

The emulator re-implements CUDA's own API (cudaMalloc, dim3, __syncthreads, the shuffles,
...) on the host; those names are NVIDIA's and documented by NVIDIA. So that the kit's docs
list the emulator's files, with their description and their full source (the source browser
reads the unfiltered file), without documenting CUDA again, doxygen sees only the first
comment block that contains \\file. Line numbers are kept. In that comment a zero-width space
goes between the two colons of `::`, so that a mention like `::emu::here(...)` reads as
written instead of becoming a link request to a name doxygen was not shown.
Usage (from the Doxyfile's FILTER_PATTERNS): file_comment_only.py FILE
"""
import re
import sys


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8", errors="replace") as f:
        text = f.read()
    sys.stdout.reconfigure(encoding="utf-8")
    for m in re.finditer(r"/\*[*!].*?\*/", text, re.S):
        if re.search(r"[\\@]file\b", m.group(0)):
            before = text[:m.start()].count("\n")
            sys.stdout.write("\n" * before + m.group(0).replace("::", ":\u200b:") + "\n")
            break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
