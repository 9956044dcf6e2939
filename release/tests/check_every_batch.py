#!/usr/bin/env python3
"""Runs the no-answer check on every batch of the course (check_no_answers.py --batches).

Usage: check_every_batch.py KIT [FILE...]
For each batch: the labs it hands out, and every FILE (the text an edition ships with each
batch: docs/emulator.md, release/README.student.md), checked with that batch's stages handed
out and the earlier ones closed. Exit status 1 when any batch shows an open answer (the
check's lines say where), 0 when none does. The HTML pages of a batch are checked when its
edition is written (student-release) and in the docs tests of the build's own edition."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import check_no_answers as check  # noqa: E402


def main(argv):
    if not argv:
        print(__doc__.strip().split("\n\n")[0], file=sys.stderr)
        return 2
    kit, files = argv[0], argv[1:]
    solutions, labs = os.path.join(kit, "solutions"), os.path.join(kit, "labs")
    stages = check.read_stages(os.path.join(kit, "common", "stages.def"))
    folders = {number: directory for number, directory, _ in stages}
    need = check.prerequisites(solutions, labs, stages, check.public_code(kit))
    failed = 0
    for number, (batch, closed) in enumerate(check.batches(need), 1):
        print("== batch %d: stages %s, closed %s" % (number, check.numbers(batch), check.numbers(closed)))
        paths = [os.path.join(labs, folders[k]) for k in batch] + files
        code = check.main(["--solutions", solutions, "--labs", labs, "--stages", check.numbers(batch),
                           "--closed", ",".join(str(k) for k in closed), "--public-code-of", kit] + paths)
        failed |= code != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
