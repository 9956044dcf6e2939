#!/usr/bin/env python3
"""The class report: what a whole class's grading found, for the instructor, as one HTML page and
one CSV table. tests/class/grade_class.py calls write_report() when the class is done; run it by hand to
report again from the records a class left behind:

  tests/class/class_report.py BUILD_ROOT/results OUT.html OUT.csv [--title TITLE] [--failed-to-run FILE]
                              [--kit KIT.json] [--similarity SIMILARITY.json] [--pseudonyms [--pseudonym-key FILE]]

It reads every *.json record in the folder (one per student, written by tests/class/grade_class.py; a file
that cannot be read or is not a record is skipped with a warning) and writes OUT.html and OUT.csv,
each atomically (a temporary file in the same folder, then os.replace). --failed-to-run names a JSON
list of {"student", "task", "state", "reason"}: Slurm tasks that never wrote a record. --kit names
the kit's description (kit.json, common/kit_description.cmake), for each stage's problem and the
points of its parts; by default BUILD_ROOT/kit.json, which grade_class.py keeps there, where it
exists (without one, the report shows neither). --similarity names what tests/class/similarity.py
found (by default BUILD_ROOT/similarity/similarity.json, where grade_class.py --similarity writes
it, if it is there). --pseudonyms shows the leaderboards by pseudonym and writes them alone to
OUT-leaderboard.html, a page to share with the class, and the pseudonyms to OUT-pseudonyms.csv
(student,pseudonym: to tell each student theirs); they come from a secret key (--pseudonym-key,
by default BUILD_ROOT/pseudonym-key, made once), so they stay the same from report to report and
cannot be told from the names without it. Exit status 0 when the files are written, 1 when they
cannot be written, 2 for bad arguments.

The page (self-contained: inline CSS, no script, no external file; its only links go to the
similarity check's side-by-side pages) has the counts, each stage's problem and points (the kit's
description) and its points histogram with its mean and median, the leaderboards (per stage and
GPU: the stages that passed correctness, by GB/s, with their share of the reference's speed; on
the CPU emulator, which times nothing, a line that says so), the most common failure messages of
each stage, the speedups within the measurement's noise of the requirement, the pairs of similar
files (with --similarity), the submissions that were not graded, the Slurm tasks that failed to
run, what changed for the students graded again (the records' "previous" and "changes"), and a
row per student, whose total says what was reachable where it was graded ("24 of 30 reachable on
the emulator"). Student names, messages and notes come
from submissions and are escaped wherever they are shown.

The CSV is one long table: every row has every column, and `section` says which of them it fills
(the others are empty). Columns, in order:
  section      summary | points | stage-summary | failure | near-threshold | not-graded | failed-to-run |
               leaderboard | similar | changed
  stage        the stage number (points, stage-summary, failure, near-threshold, leaderboard, similar)
  part         failure: the graded part the message is from: correctness, speedup, races (the CPU
               emulator's race check) or sanitizer (compute-sanitizer)
  outcome      summary: students (with a record or a failed task), graded, build failed, timed out,
               no grade report, failed to run (students whose task failed and who have no record);
               not-graded: the record's outcome; leaderboard: "no times" (see rank, gpu, ...)
  points       points: a points value of the stage
  max_points   points, stage-summary: the stage's maximum
  mean, median stage-summary: over the graded students
  students     summary, points, stage-summary, failure, leaderboard: how many students
  message      failure: the message, normalized (see normalize_message) so that one failure of
               several students is one row
  examples     failure: up to EXAMPLES_SHOWN (5) of those students, sorted, separated by ";"
  student      near-threshold, not-graded, failed-to-run, leaderboard, similar
  achieved, required, spread   near-threshold: the speedup measured, the speedup required, the
               measurement's relative spread (IQR / median), as the grader wrote them
  verdict      near-threshold: pass, "pass within noise" (below the requirement, passed on the
               grader's benefit of the doubt) or fail
  notes        not-graded: the record's notes; leaderboard: why a stage has no times
  task, state, reason   failed-to-run: the Slurm task, its final state and why it failed
  problem      stage-summary: the stage's problem in words ("int sum"), from the kit's description
  correctness_points, speedup_points, sanitizer_points
               stage-summary: what each part of the stage is worth (the kit's description, from
               the grading configuration; without a GPU the speedup points cannot be earned)
  rank, gpu, gbps, percent_of_reference
               leaderboard: a row per student whose stage passed correctness and was timed on a
               GPU, per stage and GPU, fastest first (student: the pseudonym with --pseudonyms);
               a stage with no time has one row, outcome "no times", students the correct
               submissions, notes why (the CPU emulator times nothing)
  other, similarity, matched_tokens, view
               similar: a pair of one stage's files above the similarity check's threshold
               (tests/class/similarity.py, compare50): student and other (an archive's as
               ARCHIVE/NAME), the share of the more-covered file's own code that matches the
               other (0-1), the matching tokens of each ("a;b") and the side-by-side page (its
               path from the report's folder)
  reachable_points  stage-summary: the most a stage could reach where the class was graded (on the
               CPU emulator speed is not measured: 8 of 10 by default; the grade records' "reachable")
  points_before     changed: a regraded student's stage that changed since the last grade
               (tests/class/grade_class.py keeps the earlier record in BUILD_ROOT/history/): student,
               stage, points_before, points (now), max_points, notes (what changed: "sanitizer FAIL:
               race (emulated) -> no race (emulated)") and message (the message that explained the
               part then); a row with no stage: the outcome changed (notes "build failed -> graded")
Cells that hold text from a submission and begin with = + - @ get a leading ' so that a spreadsheet
shows them as text instead of running them as formulas.
"""
import argparse
import csv
import glob
import hashlib
import hmac
import html
import io
import json
import os
import re
import statistics
import sys
import tempfile

# The grader's speed rule, tests/grader/speedup_rule.c (kit_speedup_decide): a shortfall below
# max(spread, KIT_MIN_MARGIN) of the requirement is not a clear miss, and on the last attempt a stage
# within min(spread, KIT_NOISE_ALLOWANCE) of it passes on the benefit of the doubt.
KIT_MIN_MARGIN = 0.02
KIT_NOISE_ALLOWANCE = 0.10

OUTCOMES = ("graded", "build failed", "timed out", "no grade report")
EXAMPLES_SHOWN = 5
FAILURES_SHOWN_PER_STAGE = 8
MESSAGE_SHOWN_CHARS = 320

CSV_COLUMNS = ("section", "stage", "part", "outcome", "points", "max_points", "mean", "median", "students",
               "message", "examples", "student", "achieved", "required", "spread", "verdict", "notes",
               "task", "state", "reason", "problem", "correctness_points", "speedup_points", "sanitizer_points",
               "rank", "gpu", "gbps", "percent_of_reference", "other", "similarity", "matched_tokens", "view",
               "reachable_points", "points_before")


# --------------------------------------------------------------------------------- small helpers
def student_sort_key(name):
    return (str(name).casefold(), str(name))


def number_text(value):
    """10.0 as "10", 4.5 as "4.5": points read as the grader's report writes them (%g)."""
    if value is None:
        return ""
    value = float(value)
    return str(int(value)) if value.is_integer() else "%g" % value


def points_of(record, stage):
    value = (record.get("points") or {}).get(str(stage))
    return None if value is None else float(value)


def is_graded(record):
    return record.get("outcome") == "graded"


def described_stages(kit):
    """{number: the stage's entry of the kit's description} (empty without one)."""
    return {int(s["number"]): s for s in (kit or {}).get("stages", [])}


def stage_heading(k, kit):
    """"Stage 2: int sum" with the kit's description, "Stage 2" without."""
    s = described_stages(kit).get(k)
    return "Stage %d: %s" % (k, s["problem"]) if s else "Stage %d" % k


def stage_worth(k, kit):
    """"7 points for correctness, 2 for speed, 2 for races and memory errors" (the kit's description), or ""."""
    s = described_stages(kit).get(k)
    if not s:
        return ""
    p = s["points"]
    return ("%s points for correctness, %s for speed, %s for races and memory errors"
            % (number_text(p["correctness"]), number_text(p["speedup"]), number_text(p["sanitizer"])))


def reachable_total(record, kit=None):
    """The most the record's grade could reach where it was graded: the grade record's "reachable"
    (grade.json, tests/grader/report.c: without a GPU speed is not measured, unless the grading
    configuration scales the emulated grade, emulated.full_marks = scale), or for a record without
    it, on the CPU emulator, the kit description's emulated_points; else its max_total."""
    if record.get("reachable_total") is not None:
        return float(record["reachable_total"])
    stages = described_stages(kit)
    graded = [int(k) for k in record.get("points") or {}]
    if record.get("graded_on") == "emulator" and graded and all((stages.get(k) or {}).get("emulated_points") for k in graded):
        return float(sum(stages[k]["emulated_points"]["total"] for k in graded))
    return None if record.get("max_total") is None else float(record["max_total"])


def reachable_points(record, stage, kit=None):
    """reachable_total() for one stage (grade.json's stage "reachable", else kit.json's emulated_points)."""
    value = (record.get("reachable") or {}).get(str(stage))
    if value is not None:
        return float(value)
    s = described_stages(kit).get(int(stage))
    if record.get("graded_on") == "emulator" and s and s.get("emulated_points"):
        return float(s["emulated_points"]["total"])
    value = (record.get("max_points") or {}).get(str(stage))
    return None if value is None else float(value)


def where_graded(record):
    """ "on the emulator" or "here" (a GPU), for "24 of 30 reachable on the emulator"."""
    on_emulator = record.get("graded_on") == "emulator" or (record.get("where") or {}).get("gpu") == "emulator"
    return "on the emulator" if on_emulator else "here"


# ------------------------------------------------------------------------------------ regrades
def changes_of(record):
    """What a regrade changed: [{stage, before, now, max, what, was}], stage None for the
    outcome (a build that failed then and was graded now). From the record's "previous" (the
    earlier record's summary; tests/class/grade_class.py keeps the whole earlier record in
    BUILD_ROOT/history/STUDENT/) and "changes" (the grade record's, grade.json's: each stage and
    points category that changed, as the kit's C report decided it, tests/grader/report.c
    kit_report_changes; nothing here reads a report's text). Without "changes" (the earlier
    grading left no result files) the points of each stage are compared. [] when the record is
    no regrade or nothing changed."""
    previous = record.get("previous")
    if not isinstance(previous, dict):
        return []
    rows = []
    if previous.get("outcome") != record.get("outcome"):
        rows.append({"stage": None, "before": None, "now": None, "max": None,
                     "what": "%s -> %s" % (previous.get("outcome") or "no outcome", record.get("outcome") or "no outcome"),
                     "was": ""})
    if isinstance(record.get("changes"), list):
        for change in record["changes"]:
            parts = change.get("parts") or []
            what = "; ".join("%s %s -> %s" % (p["part"], p["cell_before"], p["cell"]) if p.get("cell_before") != p.get("cell")
                             else "%s %s -> %s points" % (p["part"], number_text(p.get("score_before")),
                                                          number_text(p.get("score")))
                             for p in parts)
            was = "; ".join(" ".join(str(p["message_before"]).split()) for p in parts
                            if p.get("status_before") not in ("pass", None) and p.get("message_before"))
            # A file that did not compile, or was missing, was graded as the unfilled skeleton: its
            # messages then were the skeleton's ("fill in the TODO"); why it stood in comes first.
            stood_in = (previous.get("replaced") or {}).get(str(change["stage"]))
            if stood_in:
                was = "%s (graded as unfilled)" % " ".join(str(stood_in).split())
            rows.append({"stage": int(change["stage"]), "before": change.get("score_before"), "now": change.get("score"),
                         "max": change.get("max_score"), "what": what, "was": was})
    elif previous.get("outcome") == "graded" and is_graded(record):
        for k in sorted(set(record.get("points") or {}) | set(previous.get("points") or {}), key=int):
            before, now = (previous.get("points") or {}).get(k), (record.get("points") or {}).get(k)
            if before != now:
                rows.append({"stage": int(k), "before": before, "now": now,
                             "max": (record.get("max_points") or {}).get(k), "what": "", "was": ""})
    return rows


def change_line(change, was_chars=160):
    """ "stage 8: 0 -> 8 points (sanitizer FAIL: race (emulated) -> no race (emulated); was: ...)" """
    if change["stage"] is None:
        return "outcome " + change["what"]
    inside = [change["what"]] if change["what"] else []
    if change["was"]:
        was = change["was"]
        inside.append("was: " + (was if len(was) <= was_chars else was[:was_chars - 3] + "..."))
    return "stage %d: %s -> %s points%s" % (change["stage"], number_text(change["before"]) or "?",
                                           number_text(change["now"]) or "?",
                                           " (%s)" % "; ".join(inside) if inside else "")


def change_note(record):
    """The class CSV's note for a regrade: when the earlier grade finished and what changed since,
    or that nothing did; "" for a first grade."""
    previous = record.get("previous")
    if not isinstance(previous, dict):
        return ""
    when = " (%s)" % previous["finished"] if previous.get("finished") else ""
    changes = changes_of(record)
    if not changes:
        return "regraded: nothing changed since the last grade%s" % when
    return "changed since the last grade%s: %s" % (when, ", ".join(change_line(c) for c in changes))


def stages_of(records):
    stages = set()
    for record in records:
        for k in record.get("stages") or []:
            stages.add(int(k))
        for k in (record.get("points") or {}):
            stages.add(int(k))
    return sorted(stages)


# ------------------------------------------------------------------------------- failure messages
# What makes one student's message differ from another's for the same failure: the path of the
# submission's copy of a stage file, the counts and sizes of the runs that failed, timings, seeds,
# line numbers, hex values. "stage K", "pass 1" and "2^20 + 7" say which failure it is and stay, and
# so does a system header (<cub/device/device_reduce.cuh>): the same in every submission that has it.
_PATH = re.compile(r"(?<![\w/.~<-])[\w.+~-]*(?:/[\w.+~-]+){2,}")
_HEX = re.compile(r"\b0x[0-9a-fA-F]+\b")
# A number stands alone or is a speedup ("1.62x"); digits in a name (int4, sm_90, 01_naive) are not one.
_KEPT_OR_NUMBER = re.compile(r"(?P<kept>\bstage \d+|\bpass \d+\b|\b\d+\^\d+(?: [+-] \d+)?)"
                             r"|(?<!\w)(?<!\w\.)(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?=x\b|[^\w]|$)")


def _last_two_components(match):
    return ".../" + "/".join(match.group(0).split("/")[-2:])


def normalize_message(message, student=None):
    """One line that is the same for the same failure of different students: a path becomes its last
    two components (the stage's folder and file: the same whoever submitted it), a hex value 0x...,
    a number N except in "stage K", "pass K" and powers such as 2^20 + 7, the student's own name
    <student>; lines are joined with " | " and runs of spaces become one."""
    text = " | ".join(line.strip() for line in str(message).splitlines() if line.strip())
    text = _PATH.sub(_last_two_components, text)
    text = _KEPT_OR_NUMBER.sub(lambda m: m.group("kept") or "N", text)
    text = _HEX.sub("0x...", text)  # after the numbers, whose rule would read 0x... as N followed by x
    if student and len(student) >= 3:  # shorter names are words of the messages too
        text = re.sub(r"(?<![\w])" + re.escape(student) + r"(?![\w])", "<student>", text)
    return re.sub(r"\s+", " ", text).strip()


def counted_failures(record):
    """[(stage, part, message)] of one record: the parts that lost points for a reason of their own.
    Not counted: a speed or race part that passed, or did not run, and lost its points only because
    the stage was not correct (tests/grader/report.c gives them only on top of correctness), and
    speed not measured because there was no GPU (the class was graded on the CPU emulator). Each
    part's status and message come from the grade record (grade.json), as the kit's C report
    decided them: nothing here reads the report's text."""
    parts = record.get("grade") or []
    incorrect = {p["stage"] for p in parts if p["part"] == "correctness" and p["status"] != "pass"}
    failures = []
    for p in parts:
        stage, part, status, message = p["stage"], p["part"], p["status"], p.get("message", "")
        if status in ("pass", "not measured", "partial") or (status == "pass" and p["score"] >= p["max_score"]):
            continue
        if part != "correctness" and stage in incorrect and (status != "fail" or message.startswith("not timed")
                                                             or message.startswith("not checked")):
            continue  # "not timed, because the stage is not correct": its correctness failure says why
        failures.append((stage, part, message))
    # A stage file that was missing or did not compile was graded as the unfilled skeleton: its
    # failure is that, not the skeleton's "fill in the TODO" (tests/class/grade_class.py, "replaced").
    replaced = {int(k): "%s: graded as the unfilled skeleton" % why for k, why in (record.get("replaced") or {}).items()
                if str(k).isdigit() and int(k) in {f[0] for f in failures}}
    if replaced:
        failures = [f for f in failures if f[0] not in replaced]
        failures += [(stage, "correctness", message) for stage, message in replaced.items()]
        failures.sort(key=lambda f: f[0])
    return failures


def failure_groups(records):
    """[{stage, part, message, students}] of the graded records: one per normalized message,
    each student once; most students first, then by stage, part and message."""
    groups = {}
    for record in records:
        if not is_graded(record):
            continue
        student = str(record.get("student", ""))
        for stage, part, message in counted_failures(record):
            key = (stage, part, normalize_message(message, student))
            groups.setdefault(key, set()).add(student)
    rows = [{"stage": stage, "part": part, "message": message, "students": sorted(names, key=student_sort_key)}
            for (stage, part, message), names in groups.items()]
    rows.sort(key=lambda g: (g["stage"], -len(g["students"]), g["part"], g["message"]))
    return rows


# ------------------------------------------------------------------------------- near the threshold
def near_threshold(achieved, required, spread):
    """Whether a measured speedup is within the measurement's noise of the requirement. Mirrors
    tests/grader/speedup_rule.c, kit_speedup_decide:
        double margin = s->spread > KIT_MIN_MARGIN ? s->spread : KIT_MIN_MARGIN;
        else if (quiet && s->achieved < s->required * (1.0 - margin))  -> a clear miss
    so below the requirement, a speedup is within the noise down to required x (1 - margin); the
    same margin above it marks the passes that the same noise could have put below."""
    if achieved is None or required is None or required <= 0:
        return False
    margin = max(spread or 0.0, KIT_MIN_MARGIN)
    return required * (1.0 - margin) <= achieved < required * (1.0 + margin)


def speed_verdict(speed):
    """pass, "pass within noise" (below the requirement: the benefit of the doubt that
    kit_speedup_decide gives on the last attempt, within min(spread, KIT_NOISE_ALLOWANCE)) or fail."""
    status = speed.get("status")
    if status == "pass":
        return "pass within noise" if speed["achieved"] < speed["required"] else "pass"
    return "fail" if status == "fail" else str(status or "not measured")


def near_threshold_rows(records):
    rows = []
    for record in records:
        if not is_graded(record):
            continue
        for stage, speed in (record.get("speed") or {}).items():
            if not isinstance(speed, dict) or speed.get("achieved") is None or speed.get("required") is None:
                continue
            achieved, required = float(speed["achieved"]), float(speed["required"])
            spread = float(speed.get("spread") or 0.0)
            if near_threshold(achieved, required, spread):
                rows.append({"stage": int(stage), "student": str(record.get("student", "")), "achieved": achieved,
                             "required": required, "spread": spread,
                             "verdict": speed_verdict(dict(speed, achieved=achieved, required=required))})
    rows.sort(key=lambda r: (r["stage"], student_sort_key(r["student"])))
    return rows


# ------------------------------------------------------------------------------------ the numbers
def points_distribution(records, stage):
    """{points: students} of the graded records for one stage."""
    counts = {}
    for record in records:
        value = points_of(record, stage) if is_graded(record) else None
        if value is not None:
            counts[value] = counts.get(value, 0) + 1
    return dict(sorted(counts.items()))


def stage_summary(records, stage, kit=None):
    values = [points_of(r, stage) for r in records if is_graded(r) and points_of(r, stage) is not None]
    maxima = [float((r.get("max_points") or {}).get(str(stage))) for r in records
              if is_graded(r) and (r.get("max_points") or {}).get(str(stage)) is not None]
    reachable = [reachable_points(r, stage, kit) for r in records if is_graded(r) and points_of(r, stage) is not None]
    reachable = [value for value in reachable if value is not None]
    return {"students": len(values), "mean": statistics.mean(values) if values else None,
            "median": statistics.median(values) if values else None,
            "max_points": max(maxima) if maxima else None, "reachable": max(reachable) if reachable else None}


def counts_of(records, failed_to_run):
    """How many students, and how many of them per outcome. A student whose task failed to run and
    who has no record counts as failed to run; one with a record counts by the record's outcome."""
    with_record = {str(r.get("student", "")) for r in records}
    failed_only = {str(f.get("student", "")) for f in failed_to_run} - with_record
    counts = {"students": len(with_record | failed_only)}
    for outcome in OUTCOMES:
        counts[outcome] = sum(1 for r in records if r.get("outcome") == outcome)
    counts["other"] = sum(1 for r in records if r.get("outcome") not in OUTCOMES)
    counts["failed to run"] = len(failed_only)
    # graded_on: what the grade report says graded it (a GPU lent to it may not have answered)
    counts["on the CPU emulator"] = sum(1 for r in records if is_graded(r) and
                                        (r.get("graded_on") == "emulator" or
                                         (r.get("where") or {}).get("gpu") == "emulator"))
    return counts


def not_graded_records(records):
    rows = [r for r in records if not is_graded(r)]
    rows.sort(key=lambda r: (str(r.get("outcome")), student_sort_key(r.get("student", ""))))
    return rows


def sorted_failed_to_run(failed_to_run):
    return sorted(failed_to_run, key=lambda f: (student_sort_key(f.get("student", "")), str(f.get("task", ""))))


# ------------------------------------------------------------------------------------ leaderboards
# The speed case's n is drawn for each run (half to twice the stage's base n), so GB/s, the
# input's bytes over the median time, is what compares students timed at different n; "% of the
# reference" is the reference stage's median over the student's, timed in the same run.
def correct_stages(record):
    """The stages whose correctness part passed (the grade record's status, as the C report set it)."""
    return {int(p["stage"]) for p in record.get("grade") or []
            if p.get("part") == "correctness" and p.get("status") == "pass"}


def graded_on_emulator(record):
    return record.get("graded_on") == "emulator" or (record.get("where") or {}).get("gpu") == "emulator"


def leaderboards(records, names=None):
    """{stage: {"boards": [{"gpu", "rows": [{rank, student, gbps, percent, n}]}], "emulator": count,
    "untimed": count}} over the graded records. Only a stage that passed correctness is ranked, and
    only where a GPU timed it: one board per GPU (a GB/s of one GPU says nothing of another's), its
    rows fastest first, equal GB/s sharing a rank. "emulator" counts the correct stages graded on
    the CPU emulator, which times nothing; "untimed" the correct ones a GPU graded without a time
    (the speed case did not run or failed to time). names: {student: the name shown} (pseudonyms)."""
    boards = {}
    for record in records:
        if not is_graded(record):
            continue
        student = str(record.get("student", ""))
        for k in sorted(correct_stages(record)):
            stage = boards.setdefault(k, {"boards": {}, "emulator": 0, "untimed": 0})
            speed = (record.get("speed") or {}).get(str(k)) or {}
            if not speed.get("gbps"):
                stage["emulator" if graded_on_emulator(record) else "untimed"] += 1
                continue
            gpu = str(speed.get("device") or record.get("graded_on") or "a GPU")
            percent = (100.0 * float(speed["achieved"]) / float(speed["reference"])
                       if speed.get("reference") and speed.get("achieved") else None)
            stage["boards"].setdefault(gpu, []).append(
                {"student": (names or {}).get(student, student), "gbps": float(speed["gbps"]), "percent": percent,
                 "n": speed.get("n")})
    result = {}
    for k, stage in sorted(boards.items()):
        shown = []
        for gpu, rows in sorted(stage["boards"].items(), key=lambda item: (-len(item[1]), item[0])):
            rows.sort(key=lambda r: (-round(r["gbps"], 1), student_sort_key(r["student"])))
            for i, row in enumerate(rows):
                same = i and round(row["gbps"], 1) == round(rows[i - 1]["gbps"], 1)
                row["rank"] = rows[i - 1]["rank"] if same else i + 1
            shown.append({"gpu": gpu, "rows": rows})
        result[k] = {"boards": shown, "emulator": stage["emulator"], "untimed": stage["untimed"]}
    return result


def no_times_reason(stage):
    """Why a stage's board has no times, in words (stage: an entry of leaderboards())."""
    why = []
    if stage["emulator"]:
        why.append("%d correct submission(s) were graded on the CPU emulator, which does not time kernels"
                   % stage["emulator"])
    if stage["untimed"]:
        why.append("%d correct submission(s) had no speed case timed on their GPU" % stage["untimed"])
    return "; ".join(why) or "no submission passed correctness"


# ------------------------------------------------------------------------------------- pseudonyms
# A pseudonym is HMAC-SHA256 of the student's name under a secret key kept by the instructor
# (BUILD_ROOT/pseudonym-key, made once): the same student gets the same pseudonym in every report
# made with that key, and no one without the key can tell whose it is, even knowing every name.
ADJECTIVES = ("amber", "bold", "brisk", "calm", "clever", "coral", "crisp", "dapper", "deft", "eager", "fabled",
              "fierce", "gentle", "gilded", "glad", "golden", "grand", "hardy", "hazel", "humble", "ivory", "jade",
              "jolly", "keen", "kind", "lively", "lucky", "lunar", "mellow", "merry", "mighty", "misty", "nimble",
              "noble", "olive", "opal", "plucky", "polar", "proud", "quick", "quiet", "rapid", "royal", "ruby",
              "rustic", "sable", "sage", "scarlet", "shy", "silver", "sly", "snowy", "solar", "steady", "stormy",
              "sunny", "swift", "tawny", "teal", "tidy", "vivid", "wise", "witty", "zesty")
ANIMALS = ("badger", "bison", "bobcat", "crane", "cougar", "coyote", "dingo", "dolphin", "eagle", "egret", "falcon",
           "ferret", "finch", "fox", "gazelle", "gecko", "gibbon", "heron", "hornet", "ibex", "ibis", "jackal",
           "jaguar", "kestrel", "kiwi", "koala", "lemur", "leopard", "lynx", "magpie", "marten", "mink", "moose",
           "narwhal", "newt", "ocelot", "orca", "osprey", "otter", "owl", "panda", "panther", "parrot", "pelican",
           "puffin", "quail", "raven", "robin", "salmon", "seal", "shrike", "sparrow", "stoat", "swan", "tapir",
           "tern", "tiger", "toucan", "trout", "viper", "walrus", "weasel", "wombat", "yak")
KEY_BYTES = 32


def pseudonym_key(path):
    """The secret key in PATH (hex), made there (mode 0600) when the file does not exist yet."""
    try:
        with open(path, encoding="ascii") as f:
            key = bytes.fromhex(f.read().strip())
    except FileNotFoundError:
        key = os.urandom(KEY_BYTES)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(key.hex() + "\n")
        return key
    except ValueError:
        raise SystemExit("class_report.py: %s is not a pseudonym key (64 hex digits): remove it to make a new key "
                         "(every pseudonym then changes) or name the right file" % path)
    if len(key) < 16:
        raise SystemExit("class_report.py: %s holds a key of %d bytes; a pseudonym key has %d (remove it to make "
                         "a new one)" % (path, len(key), KEY_BYTES))
    return key


def _pseudonym_from(digest):
    return "%s-%s-%03d" % (ADJECTIVES[digest[0] % len(ADJECTIVES)], ANIMALS[digest[1] % len(ANIMALS)],
                           int.from_bytes(digest[2:4], "big") % 1000)


def _spells_login(name, student):
    """Whether pseudonym \p name shows the student's login (case aside). A login of one or two
    letters is left alone: most names would contain it."""
    login = str(student).lower()
    return len(login) >= 3 and login in name


def _pseudonym_hiding_the_login(student, key):
    """(digest, name): the first name drawn from the student's HMAC that does not spell out the login
    ("bob" would be readable in "wise-bobcat-352"). The first draw keeps the key's earlier names; each
    further one hashes the login with a counter, so the name still depends only on the student and
    the key (_spells_login() says which logins count)."""
    digest = hmac.new(key, student.encode("utf-8"), hashlib.sha256).digest()
    for attempt in range(1, 64):
        name = _pseudonym_from(digest)
        if not _spells_login(name, student):
            return digest, name
        digest = hmac.new(key, ("%s\0%d" % (student, attempt)).encode("utf-8"), hashlib.sha256).digest()
    raise SystemExit("class_report.py: every pseudonym drawn for %r contains the login; rename the student "
                     "in the roster" % student)


def pseudonyms(students, key):
    """{student: "amber-otter-417"}: adjective, animal and a number from the student's HMAC (4
    million of them). Two students of the class with the same one (in about one class of 300 in
    90) both get 6 more hex digits of theirs, so each pseudonym stays unique and still depends
    only on the student and the key."""
    digests, names = {}, {}
    for s in students:
        digests[s], names[s] = _pseudonym_hiding_the_login(str(s), key)
    taken = {}
    for s, name in names.items():
        taken.setdefault(name, []).append(s)
    for name, holders in taken.items():
        if len(holders) > 1:
            for s in holders:
                digest = digests[s]
                for at in range(4, len(digest) - 2):  # hex digits may spell a login too ("bad", "cafe")
                    names[s] = "%s-%s" % (name, digest[at:at + 3].hex())
                    if not _spells_login(names[s], s):
                        break
    return names


# ------------------------------------------------------------------------------------------ CSV
def _spreadsheet_safe(text):
    text = "" if text is None else str(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def similarity_view_link(pair, links_from):
    """The side-by-side page of a pair, as a link from the report's folder (or as recorded)."""
    view = pair.get("view") or ""
    if view and links_from and os.path.isabs(view):
        return os.path.relpath(view, links_from)
    return view


def similarity_label(pair, side):
    """A pair's student on one side: the class's by name, an archive's as ARCHIVE/NAME."""
    archive = pair.get(side + "_archive")
    return "%s/%s" % (archive, pair[side]) if archive else str(pair[side])


def render_csv(records, failed_to_run=(), kit=None, similarity=None, names=None, links_from=None):
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    counts = counts_of(records, failed_to_run)
    for outcome in ("students",) + OUTCOMES + ("failed to run",):
        writer.writerow({"section": "summary", "outcome": outcome, "students": counts[outcome]})
    stages = stages_of(records)
    for k in stages:
        summary = stage_summary(records, k, kit)
        for value, students in points_distribution(records, k).items():
            writer.writerow({"section": "points", "stage": k, "points": number_text(value),
                             "max_points": number_text(summary["max_points"]), "students": students})
        row = {"section": "stage-summary", "stage": k, "students": summary["students"],
               "max_points": number_text(summary["max_points"]), "reachable_points": number_text(summary["reachable"]),
               "mean": "" if summary["mean"] is None else "%.2f" % summary["mean"],
               "median": number_text(summary["median"])}
        described = described_stages(kit).get(k)
        if described:
            row["problem"] = described["problem"]
            for part in ("correctness", "speedup", "sanitizer"):
                row[part + "_points"] = number_text(described["points"][part])
        writer.writerow(row)
    for group in failure_groups(records):
        writer.writerow({"section": "failure", "stage": group["stage"], "part": group["part"],
                         "message": _spreadsheet_safe(group["message"]), "students": len(group["students"]),
                         "examples": _spreadsheet_safe(";".join(group["students"][:EXAMPLES_SHOWN]))})
    for row in near_threshold_rows(records):
        writer.writerow({"section": "near-threshold", "stage": row["stage"],
                         "student": _spreadsheet_safe(row["student"]), "achieved": "%.4f" % row["achieved"],
                         "required": "%.4f" % row["required"], "spread": "%.4f" % row["spread"],
                         "verdict": row["verdict"]})
    for record in not_graded_records(records):
        writer.writerow({"section": "not-graded", "student": _spreadsheet_safe(record.get("student", "")),
                         "outcome": record.get("outcome") or "", "notes": _spreadsheet_safe(record.get("notes", ""))})
    for failed in sorted_failed_to_run(failed_to_run):
        writer.writerow({"section": "failed-to-run", "student": _spreadsheet_safe(failed.get("student", "")),
                         "task": _spreadsheet_safe(failed.get("task", "")),
                         "state": _spreadsheet_safe(failed.get("state", "")),
                         "reason": _spreadsheet_safe(failed.get("reason", ""))})
    for k, stage in leaderboards(records, names).items():
        if not stage["boards"]:
            writer.writerow({"section": "leaderboard", "stage": k, "outcome": "no times",
                             "students": stage["emulator"] + stage["untimed"], "notes": no_times_reason(stage)})
        for board in stage["boards"]:
            for row in board["rows"]:
                writer.writerow({"section": "leaderboard", "stage": k, "rank": row["rank"],
                                 "gpu": _spreadsheet_safe(board["gpu"]), "student": _spreadsheet_safe(row["student"]),
                                 "gbps": "%.1f" % row["gbps"],
                                 "percent_of_reference": "" if row["percent"] is None else "%.1f" % row["percent"]})
    for k, stage in sorted((similarity or {}).get("stages", {}).items(), key=lambda item: int(item[0])):
        for pair in stage.get("pairs", []):
            writer.writerow({"section": "similar", "stage": int(k), "student": _spreadsheet_safe(similarity_label(pair, "a")),
                             "other": _spreadsheet_safe(similarity_label(pair, "b")),
                             "similarity": "%.2f" % pair["similarity"],
                             "matched_tokens": "%d;%d" % tuple(pair["matched"]),
                             "view": _spreadsheet_safe(similarity_view_link(pair, links_from))})
    for record in sorted(records, key=lambda r: student_sort_key(r.get("student", ""))):
        for change in changes_of(record):
            writer.writerow({"section": "changed", "student": _spreadsheet_safe(record.get("student", "")),
                             "stage": "" if change["stage"] is None else change["stage"],
                             "outcome": record.get("outcome") or "", "points_before": number_text(change["before"]),
                             "points": number_text(change["now"]), "max_points": number_text(change["max"]),
                             "notes": _spreadsheet_safe(change["what"]), "message": _spreadsheet_safe(change["was"])})
    return out.getvalue()


# ----------------------------------------------------------------------------------------- HTML
def esc(value):
    return html.escape("" if value is None else str(value), quote=True)


STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328;
       background: #f6f8fa; margin: 0; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 20px 48px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 34px 0 10px; padding-bottom: 4px; border-bottom: 1px solid #d0d7de; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.sub { color: #57606a; margin: 0 0 18px; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; }
.card { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 10px 16px; min-width: 110px; }
.card b { display: block; font-size: 24px; }
.card span { color: #57606a; font-size: 13px; }
.card.bad b { color: #cf222e; } .card.good b { color: #1a7f37; } .card.warn b { color: #9a6700; }
.stages { display: grid; grid-template-columns: repeat(auto-fill, minmax(270px, 1fr)); gap: 12px; }
.stage { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 10px 14px; }
.stage h3 { margin-top: 0; }
.bar-row { display: grid; grid-template-columns: 44px 1fr 34px; align-items: center; gap: 6px; margin: 3px 0; }
.bar-row .v { text-align: right; color: #57606a; font-variant-numeric: tabular-nums; }
.bar-row .n { font-variant-numeric: tabular-nums; }
.bar { height: 14px; background: #0969da; border-radius: 3px; min-width: 2px; }
.bar.full { background: #1a7f37; } .bar.zero { background: #cf222e; }
.stats { color: #57606a; font-size: 13px; margin-top: 6px; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid #d0d7de; }
th, td { padding: 6px 10px; border-bottom: 1px solid #eaeef2; text-align: left; vertical-align: top; }
th { background: #f0f3f6; font-weight: 600; }
tr:nth-child(even) td { background: #fafbfc; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.msg { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; word-break: break-word; }
td.notes { font-size: 12.5px; color: #57606a; word-break: break-word; }
.pts-full { color: #1a7f37; font-weight: 600; } .pts-zero { color: #cf222e; } .pts-part { color: #9a6700; }
.tag { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12.5px; background: #eaeef2;
       white-space: nowrap; }
.tag.pass { background: #dafbe1; color: #116329; } .tag.fail { background: #ffebe9; color: #a40e26; }
.tag.noise { background: #fff8c5; color: #7d4e00; }
.empty { color: #57606a; font-style: italic; }
table.board { width: auto; min-width: 460px; margin: 6px 0 12px; }
table.board caption { text-align: left; color: #57606a; font-size: 13px; padding: 2px 0 4px; }
a { color: #0969da; }
details summary { cursor: pointer; color: #0969da; }
p.note { color: #57606a; font-size: 13px; }
"""


def _card(count, label, kind=""):
    return '<div class="card %s"><b>%d</b><span>%s</span></div>' % (kind, count, esc(label))


def _points_class(value, maximum):
    if value is None:
        return ""
    if maximum and value >= maximum:
        return "pts-full"
    return "pts-zero" if value == 0 else "pts-part"


def _message_cell(message):
    if len(message) <= MESSAGE_SHOWN_CHARS:
        return '<td class="msg">%s</td>' % esc(message)
    return ('<td class="msg">%s <details><summary>the whole message</summary>%s</details></td>'
            % (esc(message[:MESSAGE_SHOWN_CHARS].rstrip() + " ..."), esc(message)))


def _examples(names):
    shown = ", ".join(esc(n) for n in names[:EXAMPLES_SHOWN])
    more = len(names) - EXAMPLES_SHOWN
    return shown + (" and %d more" % more if more > 0 else "")


def _verdict_tag(verdict):
    kind = "noise" if "noise" in verdict else "pass" if verdict == "pass" else "fail"
    return '<span class="tag %s">%s</span>' % (kind, esc(verdict))


def _board_table(board, who):
    rows = ['<table class="board"><caption>on %s</caption><tr><th class="num">#</th><th>%s</th>'
            '<th class="num">GB/s</th><th class="num">%% of the reference</th><th class="num">n timed</th></tr>'
            % (esc(board["gpu"]), esc(who))]
    for row in board["rows"]:
        rows.append('<tr><td class="num">%d</td><td>%s</td><td class="num">%.1f</td><td class="num">%s</td>'
                    '<td class="num">%s</td></tr>'
                    % (row["rank"], esc(row["student"]), row["gbps"],
                       "" if row["percent"] is None else "%.0f%%" % row["percent"],
                       "" if not row.get("n") else "{:,}".format(int(row["n"]))))
    rows.append("</table>")
    return "".join(rows)


def render_leaderboards(records, kit=None, names=None):
    """The leaderboards' part of a page: per stage, a board per GPU, or why there are no times."""
    parts = ["<h2>Leaderboards</h2>",
             '<p class="note">Per stage, the submissions whose stage passed correctness, ranked by the GB/s of '
             "their speed case on the GPU that graded them (the input's bytes over the median time; each run "
             "draws its n, half to twice the stage's base size) and that speed as a share of the reference "
             "stage's in the same run. One board per GPU: times on different GPUs do not compare.%s</p>"
             % (" Students are shown by pseudonym." if names else "")]
    boards = leaderboards(records, names)
    if not boards:
        parts.append('<p class="empty">No stage passed correctness: nothing to rank.</p>')
    for k, stage in boards.items():
        parts.append("<h3>%s</h3>" % esc(stage_heading(k, kit)))
        if not stage["boards"]:
            parts.append('<p class="empty">No times, so no ranking: %s.</p>' % esc(no_times_reason(stage)))
            continue
        who = "pseudonym" if names else "student"
        parts.extend(_board_table(board, who) for board in stage["boards"])
        if stage["emulator"] or stage["untimed"]:
            parts.append('<p class="note">Not ranked: %s.</p>' % esc(no_times_reason(stage)))
    return parts


def render_leaderboard_page(records, title, kit=None, names=None):
    """A page of the leaderboards alone, to share with the class (with names: the pseudonyms)."""
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>%s</title><style>%s</style></head><body><main>" % (esc(title), STYLE),
             "<h1>%s</h1>" % esc(title)]
    parts += render_leaderboards(records, kit, names)
    parts.append("</main></body></html>\n")
    return "\n".join(parts)


def render_similarity(similarity, kit=None, links_from=None):
    """The similarity check's part of the page: the pairs above its threshold, per stage, each with
    a link to compare50's side-by-side view."""
    parts = ["<h2>Similar submissions</h2>"]
    archives = similarity.get("archives") or []
    parts.append('<p class="note">Each stage\'s files compared across the class%s by %s (its %s pass: '
                 "whitespace, comments and names do not count), the skeletons handed out (%s) left out as "
                 "distributed code. Similarity is the share of a file's own code, the part not in the skeleton, "
                 "that matches the other file's, for the file of the pair more covered; a pair is listed at "
                 "%.0f%% or more with at least %d matching tokens. A listed pair is a reason to read the two files "
                 "side by side, not a verdict: a short TODO leaves little room, and a loop can come out the same "
                 "twice.</p>"
                 % (" and against %s" % ", ".join(archives) if archives else "", similarity.get("tool", "compare50"),
                    similarity.get("pass", "structure"), similarity.get("distro", "labs/"),
                    100 * float(similarity.get("threshold", 0)), int(similarity.get("min_tokens", 0))))
    stages = sorted(similarity.get("stages", {}).items(), key=lambda item: int(item[0]))
    if not stages:
        parts.append('<p class="empty">No stage was compared.</p>')
    for k, stage in stages:
        pairs = stage.get("pairs") or []
        heading = stage_heading(int(k), kit)
        if not pairs:
            highest = stage.get("highest_below")
            most = (" (the most similar: %s and %s, %.0f%%)" % (similarity_label(highest, "a"), similarity_label(highest, "b"),
                                                                100 * highest["similarity"]) if highest else "")
            parts.append('<h3>%s</h3><p class="empty">No pair above the threshold among %d file(s)%s.</p>'
                         % (esc(heading), stage.get("submissions", 0), esc(most)))
            continue
        parts.append('<h3>%s</h3><table><tr><th>student</th><th>other</th><th class="num">similarity</th>'
                     '<th class="num">matching tokens</th><th>compare50</th></tr>' % esc(heading))
        for pair in pairs:
            link = similarity_view_link(pair, links_from)
            parts.append('<tr><td>%s</td><td>%s</td><td class="num">%.0f%%</td><td class="num">%d / %d</td>'
                         '<td>%s</td></tr>'
                         % (esc(similarity_label(pair, "a")), esc(similarity_label(pair, "b")), 100 * pair["similarity"],
                            pair["matched"][0], pair["matched"][1],
                            '<a href="%s">side by side</a>' % esc(link) if link else "no view"))
        parts.append("</table>")
    for problem in similarity.get("problems") or []:
        parts.append('<p class="note">%s</p>' % esc(problem))
    return parts


def render_html(records, title, failed_to_run=(), kit=None, similarity=None, names=None, links_from=None):
    stages = stages_of(records)
    counts = counts_of(records, failed_to_run)
    finished = sorted(str(r["finished"]) for r in records if r.get("finished"))
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>%s</title><style>%s</style></head><body><main>" % (esc(title), STYLE),
             "<h1>%s</h1>" % esc(title)]
    sub = "%d student record(s)" % len(records)
    if stages:
        sub += ", stage(s) %s" % ", ".join(str(k) for k in stages)
    if finished:
        sub += "; the last one finished %s" % finished[-1]
    parts.append('<p class="sub">%s</p>' % esc(sub))

    parts.append('<div class="cards">')
    parts.append(_card(counts["students"], "students"))
    parts.append(_card(counts["graded"], "graded", "good"))
    parts.append(_card(counts["build failed"], "build failed", "bad" if counts["build failed"] else ""))
    parts.append(_card(counts["timed out"], "timed out", "bad" if counts["timed out"] else ""))
    if counts["no grade report"]:
        parts.append(_card(counts["no grade report"], "no grade report", "bad"))
    if counts["other"]:
        parts.append(_card(counts["other"], "no outcome", "bad"))
    parts.append(_card(counts["failed to run"], "failed to run", "warn" if counts["failed to run"] else ""))
    parts.append("</div>")
    if counts["on the CPU emulator"]:
        parts.append('<p class="note">%d graded on the kit\'s CPU emulator: correctness and races only; speed '
                     'was not measured there and earned no points.</p>' % counts["on the CPU emulator"])

    if not records and not failed_to_run:
        parts.append('<p class="empty">This class has no student records: nothing was graded yet.</p>')

    # ---- points
    parts.append("<h2>Points per stage</h2>")
    if not any(points_distribution(records, k) for k in stages):
        parts.append('<p class="empty">No graded submission: no points to show.</p>')
    else:
        parts.append('<div class="stages">')
        for k in stages:
            distribution = points_distribution(records, k)
            summary = stage_summary(records, k, kit)
            parts.append('<div class="stage"><h3>%s</h3>' % esc(stage_heading(k, kit)))
            if stage_worth(k, kit):
                parts.append('<div class="stats">%s</div>' % esc(stage_worth(k, kit)))
            if not distribution:
                parts.append('<p class="empty">no graded submission</p></div>')
                continue
            most = max(distribution.values())
            for value, students in distribution.items():
                kind = ("full" if summary["max_points"] and value >= summary["max_points"]
                        else "zero" if value == 0 else "")
                parts.append('<div class="bar-row"><span class="v">%s</span><div><div class="bar %s" '
                             'style="width:%.1f%%"></div></div><span class="n">%d</span></div>'
                             % (esc(number_text(value)), kind, 100.0 * students / most, students))
            reachable = ""
            if summary["reachable"] is not None and summary["max_points"] and summary["reachable"] < summary["max_points"]:
                reachable = " (%s of %s reachable on the emulator: speed is graded on a GPU)" % (
                    number_text(summary["reachable"]), number_text(summary["max_points"]))
            parts.append('<div class="stats">%d student(s): mean %.2f, median %s of %s points%s</div></div>'
                         % (summary["students"], summary["mean"], esc(number_text(summary["median"])),
                            esc(number_text(summary["max_points"])), esc(reachable)))
        parts.append("</div>")

    parts += render_leaderboards(records, kit, names)

    # ---- failures
    parts.append("<h2>Most common failures</h2>")
    groups = failure_groups(records)
    parts.append('<p class="note">Messages are normalized so that one failure of several students reads as one: '
                 "paths keep their last two parts (the stage's folder and file), numbers read N (but not stage and "
                 "pass numbers), hex values 0x... A speed or race part that lost its points only because the "
                 "stage was not correct is not counted; its correctness failure is.</p>")
    if not groups:
        parts.append('<p class="empty">No failures in the graded submissions.</p>')
    for k in stages:
        of_stage = [g for g in groups if g["stage"] == k]
        if not of_stage:
            continue
        parts.append("<h3>%s</h3><table><tr><th class=\"num\">students</th><th>part</th><th>message</th>"
                     "<th>for example</th></tr>" % esc(stage_heading(k, kit)))
        for group in of_stage[:FAILURES_SHOWN_PER_STAGE]:
            parts.append('<tr><td class="num">%d</td><td>%s</td>%s<td>%s</td></tr>'
                         % (len(group["students"]), esc(group["part"]), _message_cell(group["message"]),
                            _examples(group["students"])))
        parts.append("</table>")
        if len(of_stage) > FAILURES_SHOWN_PER_STAGE:
            parts.append('<p class="note">and %d less common message(s): see the CSV.</p>'
                         % (len(of_stage) - FAILURES_SHOWN_PER_STAGE))

    # ---- near the threshold
    parts.append("<h2>Speedups within the noise of the requirement</h2>")
    parts.append('<p class="note">Measured within max(spread, %g) of the required speedup, below or above it: '
                 "the grader's margin for a clear miss (tests/grader/speedup_rule.c). Below the requirement a "
                 "stage passes on the last attempt when it is within min(spread, %g) of it.</p>"
                 % (KIT_MIN_MARGIN, KIT_NOISE_ALLOWANCE))
    near = near_threshold_rows(records)
    if not near:
        parts.append('<p class="empty">None.</p>')
    else:
        parts.append('<table><tr><th class="num">stage</th><th>student</th><th class="num">achieved</th>'
                     '<th class="num">required</th><th class="num">spread</th><th>verdict</th></tr>')
        for row in near:
            parts.append('<tr><td class="num">%d</td><td>%s</td><td class="num">%.2fx</td><td class="num">%.2fx</td>'
                         '<td class="num">%.1f%%</td><td>%s</td></tr>'
                         % (row["stage"], esc(row["student"]), row["achieved"], row["required"],
                            100 * row["spread"], _verdict_tag(row["verdict"])))
        parts.append("</table>")

    if similarity is not None:
        parts += render_similarity(similarity, kit, links_from)

    # ---- not graded, failed to run
    parts.append("<h2>Not graded</h2>")
    ungraded = not_graded_records(records)
    if not ungraded:
        parts.append('<p class="empty">Every submission with a record was graded.</p>')
    else:
        parts.append("<table><tr><th>student</th><th>outcome</th><th>notes</th></tr>")
        for record in ungraded:
            parts.append('<tr><td>%s</td><td><span class="tag fail">%s</span></td><td class="notes">%s</td></tr>'
                         % (esc(record.get("student", "")), esc(record.get("outcome") or "no outcome"),
                            esc(record.get("notes", ""))))
        parts.append("</table>")
    parts.append("<h2>Failed to run</h2>")
    if not failed_to_run:
        parts.append('<p class="empty">Every task ran.</p>')
    else:
        parts.append('<p class="note">Slurm tasks that never wrote a record: not a verdict on the submission; '
                     "grade them again.</p>")
        parts.append("<table><tr><th>student</th><th>task</th><th>state</th><th>reason</th></tr>")
        for failed in sorted_failed_to_run(failed_to_run):
            parts.append('<tr><td>%s</td><td>%s</td><td>%s</td><td class="notes">%s</td></tr>'
                         % (esc(failed.get("student", "")), esc(failed.get("task", "")), esc(failed.get("state", "")),
                            esc(failed.get("reason", ""))))
        parts.append("</table>")

    # ---- regrades
    changed = [(record, change) for record in sorted(records, key=lambda r: student_sort_key(r.get("student", "")))
               for change in changes_of(record)]
    regraded = [record for record in records if isinstance(record.get("previous"), dict)]
    if regraded:
        parts.append("<h2>Changed since the last grade</h2>")
        parts.append('<p class="note">%d student(s) graded again (a changed submission, kit or options, or --fresh); '
                     "each earlier record is kept in the build folder's history/STUDENT/. What changed, as the kit's "
                     "grade record says it:</p>" % len(regraded))
        if not changed:
            parts.append('<p class="empty">Nothing changed in their grades.</p>')
        else:
            parts.append('<table><tr><th>student</th><th class="num">stage</th><th class="num">points</th>'
                         "<th>what changed</th><th>was</th></tr>")
            for record, change in changed:
                points = ("%s &rarr; %s" % (esc(number_text(change["before"])), esc(number_text(change["now"])))
                          if change["stage"] is not None else "")
                parts.append('<tr><td>%s</td><td class="num">%s</td><td class="num">%s</td><td>%s</td>'
                             '<td class="notes">%s</td></tr>'
                             % (esc(record.get("student", "")), "" if change["stage"] is None else change["stage"],
                                points, esc(change["what"] if change["stage"] is not None else "outcome " + change["what"]),
                                esc(change["was"])))
            parts.append("</table>")

    # ---- students
    parts.append("<h2>Students</h2>")
    if not records:
        parts.append('<p class="empty">No student records.</p>')
    else:
        header = "".join('<th class="num">stage %d</th>' % k for k in stages)
        parts.append("<table><tr><th>student</th>%s<th class=\"num\">total</th><th>outcome</th><th>notes</th></tr>"
                     % header)
        for record in sorted(records, key=lambda r: student_sort_key(r.get("student", ""))):
            cells = []
            for k in stages:
                value = points_of(record, k) if is_graded(record) else None
                maximum = (record.get("max_points") or {}).get(str(k))
                cells.append('<td class="num %s">%s</td>' % (_points_class(value, maximum), esc(number_text(value))))
            total = ("%s / %s" % (number_text(record.get("total")), number_text(record.get("max_total")))
                     if record.get("total") is not None else "")
            reachable = reachable_total(record, kit) if record.get("total") is not None else None
            if reachable is not None and record.get("max_total") is not None and reachable < float(record["max_total"]):
                total += " (%s of %s reachable %s)" % (number_text(reachable), number_text(record["max_total"]),
                                                      where_graded(record))
            outcome = record.get("outcome") or "no outcome"
            parts.append('<tr><td>%s</td>%s<td class="num">%s</td><td><span class="tag %s">%s</span></td>'
                         '<td class="notes">%s</td></tr>'
                         % (esc(record.get("student", "")), "".join(cells), esc(total),
                            "pass" if outcome == "graded" else "fail", esc(outcome), esc(record.get("notes", ""))))
        parts.append("</table>")
    parts.append("</main></body></html>\n")
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------- files
def write_atomically(path, text):
    """A temporary file in the same folder, renamed over PATH: a reader never sees half a report,
    and a failure leaves the previous report as it was and no temporary file behind."""
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def write_report(records, html_path, csv_path, title, failed_to_run=(), kit=None, similarity=None, names=None,
                 leaderboard_path=None):
    """Writes the class report: the page to HTML_PATH, the table to CSV_PATH (each atomically).
    records: the students' records (tests/class/grade_class.py); failed_to_run: [{student, task, state,
    reason}] of the Slurm tasks that wrote none; kit: the kit's description (kit.json), for each
    stage's problem and points, or None; similarity: what tests/class/similarity.py found (its
    similarity.json), or None when the class was not checked; names: {student: pseudonym} for the
    leaderboards, or None for the students' own names; leaderboard_path: where to write the
    leaderboards alone as a page to share (with pseudonyms), or None. Everything is rendered
    before any file is written."""
    records = list(records)
    failed_to_run = list(failed_to_run or ())
    links_from = os.path.dirname(os.path.abspath(html_path))
    page = render_html(records, title, failed_to_run, kit, similarity, names, links_from)
    table = render_csv(records, failed_to_run, kit, similarity, names, links_from)
    board = render_leaderboard_page(records, "Leaderboards: " + title, kit, names) if leaderboard_path else None
    write_atomically(html_path, page)
    write_atomically(csv_path, table)
    if board is not None:
        write_atomically(leaderboard_path, board)


def read_records(folder, warn=None):
    """The records in FOLDER/*.json, sorted by student; a file that cannot be read or is not a
    record is skipped, with a line to warn()."""
    warn = warn or (lambda line: print(line, file=sys.stderr))
    records = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        try:
            with open(path, encoding="utf-8") as f:
                record = json.load(f)
        except (OSError, ValueError) as e:
            warn("class_report.py: skipping %s: %s" % (path, e))
            continue
        if not isinstance(record, dict) or not record.get("student"):
            warn("class_report.py: skipping %s: not a student record (no \"student\")" % path)
            continue
        records.append(record)
    records.sort(key=lambda r: student_sort_key(r["student"]))
    return records


def read_similarity(path, error):
    """similarity.json, as tests/class/similarity.py writes it; error(message) when it is not one."""
    try:
        with open(path, encoding="utf-8") as f:
            similarity = json.load(f)
    except (OSError, ValueError) as e:
        error("--similarity: cannot read %s: %s" % (path, e))
    if not isinstance(similarity, dict) or similarity.get("format") != 1 or not isinstance(similarity.get("stages"), dict):
        error("--similarity: %s is not what tests/class/similarity.py writes (format 1)" % path)
    return similarity


def write_pseudonyms(path, names):
    """The instructor's key to the leaderboards: student,pseudonym (to tell each student theirs)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", "pseudonym"])
    for student in sorted(names, key=student_sort_key):
        writer.writerow([_spreadsheet_safe(student), names[student]])
    write_atomically(path, out.getvalue())


class _Arguments(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print("class_report.py: %s" % message, file=sys.stderr)
        sys.exit(2)


def main(argv=None):
    parser = _Arguments(description="The class report (HTML and CSV) from the records of tests/class/grade_class.py.")
    parser.add_argument("results", help="the folder of student records: BUILD_ROOT/results")
    parser.add_argument("html", help="the page to write")
    parser.add_argument("csv", help="the table to write")
    parser.add_argument("--title", default="Class report", help="the page's title")
    parser.add_argument("--failed-to-run", metavar="FILE",
                        help="a JSON list of {student, task, state, reason}: tasks that wrote no record")
    parser.add_argument("--kit", metavar="KIT.json",
                        help="the kit's description, for each stage's problem and points (default: the "
                             "kit.json beside the folder of records, where grade_class.py keeps it)")
    parser.add_argument("--similarity", metavar="SIMILARITY.json",
                        help="what tests/class/similarity.py found (default: similarity/similarity.json beside "
                             "the folder of records, where grade_class.py --similarity writes it, if it is there)")
    parser.add_argument("--pseudonyms", action="store_true",
                        help="show students by pseudonym on the leaderboards, and write them alone to "
                             "OUT-leaderboard.html (to share) and the pseudonyms to OUT-pseudonyms.csv")
    parser.add_argument("--pseudonym-key", metavar="FILE",
                        help="the secret the pseudonyms come from (default: pseudonym-key beside the folder of "
                             "records; made there once): the same key gives every student the same pseudonym")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.results):
        parser.error("%s is not a folder of records" % args.results)
    failed_to_run = []
    if args.failed_to_run:
        try:
            with open(args.failed_to_run, encoding="utf-8") as f:
                failed_to_run = json.load(f)
        except (OSError, ValueError) as e:
            parser.error("--failed-to-run: cannot read %s: %s" % (args.failed_to_run, e))
        if not isinstance(failed_to_run, list) or not all(isinstance(f, dict) for f in failed_to_run):
            parser.error("--failed-to-run: %s is not a list of {student, task, state, reason}" % args.failed_to_run)
    kit = None
    kit_path = args.kit or os.path.join(os.path.dirname(os.path.abspath(args.results)), "kit.json")
    if args.kit or os.path.exists(kit_path):
        try:
            with open(kit_path, encoding="utf-8") as f:
                kit = json.load(f)
        except (OSError, ValueError) as e:
            parser.error("--kit: cannot read %s: %s" % (kit_path, e))
        if not isinstance(kit, dict) or kit.get("format") != 1:
            parser.error("--kit: %s is not a kit description of format 1" % kit_path)
    root = os.path.dirname(os.path.abspath(args.results))
    similarity = None
    similarity_path = args.similarity or os.path.join(root, "similarity", "similarity.json")
    if args.similarity or os.path.exists(similarity_path):
        similarity = read_similarity(similarity_path, parser.error)
    if args.pseudonym_key and not args.pseudonyms:
        parser.error("--pseudonym-key goes with --pseudonyms")
    records = read_records(args.results)
    names = board = None
    if args.pseudonyms:
        names = pseudonyms([r["student"] for r in records],
                           pseudonym_key(args.pseudonym_key or os.path.join(root, "pseudonym-key")))
        stem = os.path.splitext(args.html)[0]
        board = stem + "-leaderboard.html"
    try:
        write_report(records, args.html, args.csv, args.title, failed_to_run, kit, similarity, names, board)
        if names:
            write_pseudonyms(stem + "-pseudonyms.csv", names)
    except OSError as e:
        print("class_report.py: cannot write the report: %s" % e, file=sys.stderr)
        return 1
    print("class report: %s, %s (%d records)%s" % (args.html, args.csv, len(records),
                                                  "; leaderboards by pseudonym: %s" % board if board else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
