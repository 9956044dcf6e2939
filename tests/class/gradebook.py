#!/usr/bin/env python3
"""The gradebook export: a class's points as a CSV that Canvas and Moodle import, the student ID
from a roster the instructor gives. tests/class/grade_class.py --roster ROSTER writes it beside
the class CSV (CSV-gradebook.csv) after grading; run it alone on the records a class left:

  tests/class/gradebook.py BUILD_ROOT/results ROSTER OUT.csv [--kit KIT.json] [--roster-columns STUDENT,ID]

ROSTER is a CSV with a header row: one row per student, with the student's submission folder
(column "student", as in the class CSV) and the ID the gradebook knows the student by (column
"id"); --roster-columns names other columns ("SIS Login ID,ID" for a roster made from Canvas's
own gradebook export, "Username,ID number" for Moodle's). Every column of the roster is copied
to the export as it is, in its order, so the identity columns a gradebook matches on (Canvas:
Student, ID, SIS User ID, SIS Login ID, Section; Moodle: the one chosen at import, such as ID
number or Email address) arrive unchanged. Then one column per stage, "Stage K (problem)" (the
kit's description, kit.json), and "Total".

A roster student whose submission was graded gets their points; one not graded (no submission,
the build failed, timed out) gets empty cells, which neither Canvas nor Moodle imports as a grade,
so a grade entered by hand stays. A student of the class missing from the roster cannot be
imported without an ID: the export leaves them out and says so in one line naming them. The roster's
header, its two columns, an empty ID and a student or ID listed twice are checked first; each
problem is one line and exit status 2. Exit status 0 when the export is written.
"""
import argparse
import csv
import io
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # run from the source tree: leave no __pycache__ there

DEFAULT_COLUMNS = ("student", "id")


class RosterProblem(Exception):
    """The roster cannot be used, in one line."""


def parse_columns(text):
    """"SIS Login ID,ID" -> ("SIS Login ID", "ID")."""
    parts = [p.strip() for p in (text or "").split(",")]
    if len(parts) != 2 or not all(parts):
        raise RosterProblem("--roster-columns takes two column names, the student's folder and the ID, "
                            "such as student,id (not '%s')" % text)
    return tuple(parts)


def read_roster(path, columns=DEFAULT_COLUMNS):
    """{"header": [...], "rows": {student: row (list)}, "student": index, "id": index} of ROSTER.
    The header's names are matched without regard to case or surrounding spaces."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:  # -sig: Excel's CSVs begin with a BOM
            table = list(csv.reader(f))
    except FileNotFoundError:
        raise RosterProblem("the roster %s does not exist" % path)
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise RosterProblem("the roster %s cannot be read as a UTF-8 CSV: %s" % (path, e))
    table = [row for row in table if any(cell.strip() for cell in row)]
    if not table:
        raise RosterProblem("the roster %s is empty: it needs a header row with the columns %s and %s"
                            % (path, columns[0], columns[1]))
    header = [cell.strip() for cell in table[0]]
    folded = [cell.casefold() for cell in header]
    where = []
    for name in columns:
        if folded.count(name.casefold()) != 1:
            raise RosterProblem("the roster %s has %s column named '%s' (its header: %s); --roster-columns names "
                                "the student's folder and ID columns" % (
                                    path, "no" if name.casefold() not in folded else "more than one", name,
                                    ", ".join(header)))
        where.append(folded.index(name.casefold()))
    rows, ids = {}, {}
    for line, row in enumerate(table[1:], 2):
        row = row + [""] * (len(header) - len(row))
        student, ident = row[where[0]].strip(), row[where[1]].strip()
        if not student:
            raise RosterProblem("the roster %s, line %d: the %s column is empty" % (path, line, columns[0]))
        if not ident:
            raise RosterProblem("the roster %s, line %d: %s has no %s" % (path, line, student, columns[1]))
        if student in rows:
            raise RosterProblem("the roster %s lists %s twice (lines %d and %d)" % (path, student, rows[student][0], line))
        if ident in ids:
            raise RosterProblem("the roster %s gives the %s %s to both %s and %s" % (path, columns[1], ident, ids[ident],
                                                                                    student))
        rows[student] = (line, row[:len(header)])
        ids[ident] = student
    return {"header": header, "rows": {s: r for s, (_, r) in rows.items()}, "student": where[0], "id": where[1],
            "path": path}


def stage_column(k, kit):
    for stage in (kit or {}).get("stages", []):
        if int(stage["number"]) == k:
            return "Stage %d (%s)" % (k, stage["problem"])
    return "Stage %d" % k


def number(value):
    return "%g" % float(value)


def render(roster, records, stages, kit=None, students=()):
    """(CSV text, [students left out: not in the roster], [roster students not graded]).
    records: {student: record} as grade_class.py writes them; students: every submission of the
    class, graded or not (a student with neither record nor roster row is still named)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(roster["header"] + [stage_column(k, kit) for k in stages] + ["Total"])
    not_graded = []
    for student, row in roster["rows"].items():
        record = records.get(student)
        if not record or record.get("outcome") != "graded":
            writer.writerow(row + [""] * (len(stages) + 1))
            not_graded.append(student)
            continue
        points = record.get("points") or {}
        cells = [number(points[str(k)]) if str(k) in points else "" for k in stages]
        writer.writerow(row + cells + [number(record["total"]) if record.get("total") is not None else ""])
    left_out = sorted((set(records) | set(students)) - set(roster["rows"]))
    return out.getvalue(), left_out, not_graded


def report_lines(roster, left_out, not_graded, out_path):
    """What the export could not do, one line each: never a student dropped in silence."""
    lines = []
    if left_out:
        lines.append("gradebook: %d student(s) of the class are not in the roster %s, so %s leaves them out: %s (add "
                     "them with their ID and export again)" % (len(left_out), roster["path"], os.path.basename(out_path),
                                                               ", ".join(left_out)))
    if not_graded:
        lines.append("gradebook: %d student(s) of the roster have no grade (no submission, or not graded): their "
                     "cells are empty: %s" % (len(not_graded), ", ".join(sorted(not_graded))))
    return lines


def write(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), dir=folder)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.chmod(temporary, 0o644)
    os.replace(temporary, path)


def export(roster, records, stages, out_path, kit=None, students=()):
    """Writes the gradebook CSV; returns the lines to print (students left out, not graded)."""
    text, left_out, not_graded = render(roster, records, stages, kit, students)
    write(out_path, text)
    return report_lines(roster, left_out, not_graded, out_path)


class _Arguments(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print("gradebook.py: %s" % message, file=sys.stderr)
        sys.exit(2)


def main(argv):
    parser = _Arguments(prog="tests/class/gradebook.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", help="the folder of student records: BUILD_ROOT/results")
    parser.add_argument("roster", help="the roster: a CSV with the student's folder and ID columns")
    parser.add_argument("out", help="the gradebook CSV to write")
    parser.add_argument("--kit", metavar="KIT.json", help="the kit's description, for the stage columns' names "
                        "(default: the kit.json beside the folder of records)")
    parser.add_argument("--roster-columns", metavar="STUDENT,ID", default=",".join(DEFAULT_COLUMNS))
    args = parser.parse_args(argv)
    if not os.path.isdir(args.results):
        parser.error("%s is not a folder of records" % args.results)
    try:
        roster = read_roster(args.roster, parse_columns(args.roster_columns))
    except RosterProblem as e:
        parser.error(str(e))
    import class_report  # its reader of records: a record that cannot be read is skipped with a warning
    records = {r["student"]: r for r in class_report.read_records(args.results)}
    kit_path = args.kit or os.path.join(os.path.dirname(os.path.abspath(args.results)), "kit.json")
    kit = None
    if args.kit or os.path.exists(kit_path):
        try:
            with open(kit_path, encoding="utf-8") as f:
                kit = json.load(f)
        except (OSError, ValueError) as e:
            parser.error("--kit: cannot read %s: %s" % (kit_path, e))
    stages = sorted({int(k) for r in records.values() for k in (r.get("stages") or [])})
    try:
        lines = export(roster, records, stages, args.out, kit)
    except OSError as e:
        print("gradebook.py: cannot write %s: %s" % (args.out, e), file=sys.stderr)
        return 1
    print("gradebook: %s (%d student(s) of the roster, stage(s) %s)" % (
        args.out, len(roster["rows"]), ",".join(map(str, stages)) or "none"))
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
