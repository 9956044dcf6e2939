#!/usr/bin/env python3
"""The similarity check (tests/class/similarity.py, compare50) on a fake class of stage 7, the
kit's stage with the most ways to write it: it must find the planted copies and flag no honest
pair, and the class report must list the copies with links to compare50's side-by-side pages.

The honest students write stage 7 their own way: the reference solution (alice), the kit's valid
kernels tests/valid_kernels/int2_loads.cu, warp_sums_in_shared.cu and atomic_block_sums.cu (bob,
carol, dave: whole files written apart from the skeleton), and four written here into the lab's
skeleton, as a student fills its TODO (erin: plain ints; frank: int4s in a while loop, the tail
spread over the grid; grace: int4s two at a time into two sums; heidi: int2s, a for loop over
pairs). The copies are disguised as a student would: mallory hands in grace's file and oscar
bob's, each with every name of theirs renamed (in the code, not in the comments), independent
lines reordered and comments cut; peggy hands in last year's victor (an archive of 2025) the same
way. Small files only: the whole test takes a few seconds. Without compare50 it skips (exit 77),
naming the install command.
Usage: test_similarity.py   (ctest: similarity_check_finds_disguised_copies_and_flags_no_honest_pair)
"""
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # ctest runs this in the source tree: leave no __pycache__ there
import class_report  # noqa: E402
import grade_class  # noqa: E402
import similarity  # noqa: E402

STAGE = 7
FILE = "07_multi_element/reduce_multi_element.cu"

# Honest stage 7s, each filled into the skeleton's two TODO blocks: (kernel's block, grid's block).
ERIN = ("""    const unsigned int stride = blockSize * gridDim.x;
    for (unsigned int i = blockIdx.x * blockSize + tid; i < n; i += stride)
        sum += in[i];
""", """    unsigned int blocks = resident_blocks(threads);
    if ((size_t)blocks * threads > n)
        blocks = (unsigned int)((n + threads - 1) / threads);
""")
FRANK = ("""    const int4 *vec = reinterpret_cast<const int4 *>(in);
    size_t quads = n >> 2;
    size_t k = (size_t)blockIdx.x * blockSize + tid;
    size_t jump = (size_t)gridDim.x * blockSize;
    while (k < quads) {
        int4 v = vec[k];
        sum += (v.x + v.y) + (v.z + v.w);
        k += jump;
    }
    size_t tail = (quads << 2) + (size_t)blockIdx.x * blockSize + tid; /* the last n % 4, one thread each */
    if (tail < n)
        sum += in[tail];
""", """    size_t want = (n / 4 + threads - 1) / threads;
    unsigned int blocks = want < resident_blocks(threads) ? (unsigned int)want : resident_blocks(threads);
    if (blocks == 0)
        blocks = 1;
""")
GRACE = ("""    const int4 *p = (const int4 *)in; // the input as int4s, 16 bytes a load
    const unsigned int m = n / 4;
    const unsigned int g = gridDim.x * blockSize;
    int s0 = 0, s1 = 0; /* two sums: two loads in flight */
    unsigned int j = blockIdx.x * blockSize + tid;
    for (; j + g < m; j += 2 * g) {
        const int4 x = p[j];
        const int4 y = p[j + g];
        s0 += x.x + x.y + x.z + x.w;
        s1 += y.x + y.y + y.z + y.w;
    }
    if (j < m)
        s0 += p[j].x + p[j].y + p[j].z + p[j].w;
    sum = s0 + s1;
    if (blockIdx.x == gridDim.x - 1 && tid < (n & 3))
        sum += in[n - (n & 3) + tid];
""", """    unsigned int blocks = resident_blocks(threads);
    const size_t needed = (n + 8 * (size_t)threads - 1) / (8 * (size_t)threads);
    if (needed < blocks)
        blocks = needed > 0 ? (unsigned int)needed : 1;
""")
HEIDI = ("""    const int2 *two = reinterpret_cast<const int2 *>(in);
    const unsigned int pairs = n / 2, threads_in_grid = gridDim.x * blockSize;
    for (unsigned int q = blockIdx.x * blockSize + tid; q < pairs; q += threads_in_grid) {
        int2 t = two[q];
        sum += t.x;
        sum += t.y;
    }
    if ((n % 2) && blockIdx.x == 0 && tid == 0)
        sum += in[n - 1]; // odd n: the last int alone
""", """    unsigned int blocks = (unsigned int)((n / 2 + threads - 1) / threads);
    blocks = blocks > resident_blocks(threads) ? resident_blocks(threads) : (blocks ? blocks : 1);
""")
# Last year's student, in the archive: int4s with the loop unrolled by hand and a separate tail loop.
VICTOR = ("""    const int4 *quad = (const int4 *)in;
    unsigned int nq = n >> 2, first = blockIdx.x * blockSize + tid, hop = blockSize * gridDim.x;
    int acc0 = 0, acc1 = 0, acc2 = 0;
    unsigned int w = first;
    while (w + 2 * hop < nq) {
        int4 u0 = quad[w], u1 = quad[w + hop], u2 = quad[w + 2 * hop];
        acc0 += u0.w + u0.z + u0.y + u0.x;
        acc1 += u1.w + u1.z + u1.y + u1.x;
        acc2 += u2.w + u2.z + u2.y + u2.x;
        w += 3 * hop;
    }
    for (; w < nq; w += hop)
        acc0 += quad[w].x + quad[w].y + quad[w].z + quad[w].w;
    for (unsigned int r = 4 * nq + first; r < n; r += hop)
        acc1 += in[r];
    sum = acc0 + acc1 + acc2;
""", """    unsigned int blocks = resident_blocks(threads) / 2;
    if ((size_t)blocks * threads * 12 > n)
        blocks = (unsigned int)(n / (12 * (size_t)threads)) + 1;
""")


def fill(skeleton, kernel, grid):
    """The skeleton with its TODO blocks filled, the markers kept, as a student hands it in."""
    filled = re.sub(r"(// \[todo\] TODO\(student\)[^\n]*\n).*?(\s*// \[todo\] end of TODO)",
                    lambda m: m.group(1) + kernel.rstrip("\n") + m.group(2), skeleton, count=1, flags=re.S)
    filled = re.sub(r"(// \[todo-grid\] TODO\(student\)[^\n]*\n).*?(\s*// \[todo-grid\] end of TODO)",
                    lambda m: m.group(1) + grid.rstrip("\n") + m.group(2), filled, count=1, flags=re.S)
    assert kernel in filled and grid in filled and "delete this line" not in filled, "the skeleton's TODOs changed"
    return filled


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def disguise(text, renames, swaps):
    """A copy as a student disguises it: each name of RENAMES renamed in the code (never in a
    comment, never a member after '.'), comments other than the TODO markers cut, and each pair of
    SWAPS (the starts of two lines, stripped) exchanged. Every rename and swap must apply."""
    pieces, last = [], 0
    for m in _COMMENT.finditer(text):
        pieces.append(("code", text[last:m.start()]))
        pieces.append(("comment", m.group(0)))
        last = m.end()
    pieces.append(("code", text[last:]))
    out = []
    for kind, piece in pieces:
        if kind == "comment":
            out.append(piece if "[todo" in piece else "")
            continue
        for old, new in renames.items():
            piece = re.sub(r"(?<![\w.])%s\b" % re.escape(old), new, piece)
        out.append(piece)
    copy = "".join(out)
    for old, new in renames.items():
        assert re.search(r"(?<![\w.])%s\b" % re.escape(new), copy), "rename %s -> %s did not apply" % (old, new)
    lines = [line.rstrip() for line in copy.split("\n")]
    for a, b in swaps:
        ia = [i for i, line in enumerate(lines) if line.strip().startswith(a)]
        ib = [i for i, line in enumerate(lines) if line.strip().startswith(b)]
        assert len(ia) == 1 and len(ib) == 1, "swap %r / %r: not one line each (%s, %s)" % (a, b, ia, ib)
        lines[ia[0]], lines[ib[0]] = lines[ib[0]], lines[ia[0]]
    return "\n".join(lines)


def read(*path):
    with open(os.path.join(KIT, *path), encoding="utf-8") as f:
        return f.read()


def the_class():
    """{student: stage 7 file}, and the archive's {student: file}."""
    skeleton = read("labs", FILE)
    honest = {"alice": read("solutions", FILE), "bob": read("tests", "valid_kernels", "int2_loads.cu"),
              "carol": read("tests", "valid_kernels", "warp_sums_in_shared.cu"),
              "dave": read("tests", "valid_kernels", "atomic_block_sums.cu"),
              "erin": fill(skeleton, *ERIN), "frank": fill(skeleton, *FRANK), "grace": fill(skeleton, *GRACE),
              "heidi": fill(skeleton, *HEIDI)}
    copies = {
        "mallory": disguise(honest["grace"], {"p": "vin", "m": "count", "g": "span", "s0": "lo", "s1": "hi", "j": "at",
                                              "x": "first", "y": "second", "needed": "wanted", "sum": "total",
                                              "tid": "me", "sdata": "partial"},
                            [("const unsigned int count", "const unsigned int span"),
                             ("const int4 first", "const int4 second"),
                             ("lo += first.x", "hi += second.x")]),
        "oscar": disguise(honest["bob"], {"pairs": "duo", "npairs": "how_many", "grid": "span", "p": "idx",
                                          "pair_sum": "add_two", "sdata": "cache", "wave_of": "one_wave",
                                          "per_block": "chunk", "sum": "acc", "int2_loads": "reduce7"},
                          [("const int2 b", "const int2 c"), ("const unsigned int how_many", "const unsigned int span"),
                           ("int device = 0", "static unsigned int wave = 0")]),
    }
    # walter handed in victor's file last year: were the archive compared within itself, they would pair
    archive = {"victor": fill(skeleton, *VICTOR), "walter": fill(skeleton, *VICTOR)}
    copies["peggy"] = disguise(archive["victor"], {"quad": "q4", "nq": "quads", "first": "start", "hop": "step",
                                                   "acc0": "a", "acc1": "b", "acc2": "c", "w": "pos", "u0": "e",
                                                   "u1": "f", "u2": "g", "r": "rest"},
                               [("a += e.w", "b += f.w"), ("int4 e = ", "int a = 0")])
    return dict(honest, **copies), archive


def write_class(folder, files):
    for student, text in files.items():
        os.makedirs(os.path.join(folder, student, os.path.dirname(FILE)))
        with open(os.path.join(folder, student, FILE), "w", encoding="utf-8") as f:
            f.write(text)


class SimilarityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.python = similarity.compare50_python()
        if not cls.python:
            print("SKIP: " + similarity.INSTALL)
            sys.exit(77)
        cls.folder = tempfile.mkdtemp(prefix="similarity_test.")
        files, archive = the_class()
        cls.submissions = os.path.join(cls.folder, "class")
        cls.archive = os.path.join(cls.folder, "2025")
        write_class(cls.submissions, files)
        write_class(cls.archive, archive)
        cls.out = os.path.join(cls.folder, "root", "similarity")
        skeletons = {FILE: grade_class.committed_skeleton(FILE)}
        cls.found = similarity.check(cls.submissions, cls.out, {STAGE: FILE}, skeletons, [cls.archive],
                                     python=cls.python)
        # {(student, other): pair}: two of the class in name order; the class's, then ARCHIVE/NAME
        cls.pairs = {}
        for p in cls.found["stages"][str(STAGE)]["pairs"]:
            a, b = class_report.similarity_label(p, "a"), class_report.similarity_label(p, "b")
            cls.pairs[(a, b) if p.get("b_archive") or a < b else (b, a)] = p

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder, ignore_errors=True)

    def test_the_disguised_copies_are_found_and_no_honest_pair_is_flagged(self):
        shown = "\n".join("%s: %.2f" % (k, p["similarity"]) for k, p in self.pairs.items())
        self.assertEqual(sorted(self.pairs), [("bob", "oscar"), ("grace", "mallory"), ("peggy", "2025/victor"),
                                              ("peggy", "2025/walter")], shown)
        for pair in self.pairs.values():
            self.assertGreaterEqual(pair["similarity"], 0.7, pair)  # well above the threshold (0.5), not by luck
        highest = self.found["stages"][str(STAGE)]["highest_below"]
        self.assertLess(highest["similarity"], 0.4, "an honest pair comes close to the threshold: %s" % highest)

    def test_last_years_copy_is_named_with_its_archive_and_the_archive_is_not_compared_within_itself(self):
        peggy = self.pairs[("peggy", "2025/victor")]
        self.assertEqual((peggy["a"], peggy["a_archive"], peggy["b"], peggy["b_archive"]),
                         ("peggy", None, "victor", "2025"))
        # walter handed in victor's very file last year, but the archive's own pairs are never compared
        self.assertFalse([k for k in self.pairs if k[0].startswith("2025/")], self.pairs)
        self.assertEqual(self.found["stages"][str(STAGE)]["archive"], 2)

    def test_every_listed_pair_links_to_its_own_side_by_side_page(self):
        for (a, b), pair in self.pairs.items():
            self.assertTrue(pair["view"].startswith(os.path.join(self.out, "stage7", "match_")), pair["view"])
            with open(pair["view"], encoding="utf-8") as f:
                page = f.read()
            self.assertIn(os.path.join(self.submissions, pair["a"]), page)

    def test_the_class_report_lists_the_pairs_with_links_from_its_own_folder(self):
        records = [{"student": s, "outcome": "graded", "stages": [STAGE], "points": {"7": 8.0},
                    "max_points": {"7": 10.0}, "total": 8.0, "max_total": 10.0, "grade": [], "speed": {}}
                   for s in sorted(os.listdir(self.submissions))]
        html, table = os.path.join(self.folder, "class-report.html"), os.path.join(self.folder, "class-report.csv")
        class_report.write_report(records, html, table, "Class", kit=None, similarity=self.found)
        with open(html, encoding="utf-8") as f:
            page = f.read()
        section = page[page.index("<h2>Similar submissions</h2>"):page.index("<h2>Not graded</h2>")]
        links = re.findall(r'<a href="([^"]+)">side by side</a>', section)
        self.assertEqual(len(links), 4, section)
        for link in links:
            self.assertFalse(os.path.isabs(link), link)
            self.assertTrue(os.path.isfile(os.path.join(self.folder, link)), link)
        self.assertIn("2025/victor", section)
        with open(table, encoding="utf-8") as f:
            similar = [row for row in class_report.csv.DictReader(f) if row["section"] == "similar"]
        self.assertEqual(sorted((r["student"], r["other"]) for r in similar),
                         [("bob", "oscar"), ("grace", "mallory"), ("peggy", "2025/victor"), ("peggy", "2025/walter")])
        for row in similar:
            self.assertTrue(os.path.isfile(os.path.join(self.folder, row["view"])), row)

    def test_running_again_writes_over_its_own_folder_and_refuses_anyone_elses(self):
        skeletons = {FILE: grade_class.committed_skeleton(FILE)}
        again = similarity.check(self.submissions, self.out, {STAGE: FILE}, skeletons, [self.archive],
                                 python=self.python)
        self.assertEqual(len(again["stages"]["7"]["pairs"]), len(self.found["stages"]["7"]["pairs"]))
        other = os.path.join(self.folder, "notes")
        os.makedirs(other)
        with open(os.path.join(other, "mine.txt"), "w") as f:
            f.write("an instructor's file")
        with self.assertRaisesRegex(similarity.Problem, "is not a folder this command wrote"):
            similarity.check(self.submissions, other, {STAGE: FILE}, skeletons, python=self.python)
        with self.assertRaisesRegex(similarity.Problem, "--threshold must be above 0"):
            similarity.check(self.submissions, self.out, {STAGE: FILE}, skeletons, threshold=1.5, python=self.python)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
