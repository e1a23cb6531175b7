#!/usr/bin/env python3
"""design_rows.py — what the design-axis tests (tests/test_design_*.sh) ask of
a design-sweep report, in one place.

  design_rows.py same REPORT COL[,COL...] ONE.csv...
      Each ONE.csv is the report of a scenario that fixes the design axes COL
      to the values its file name gives after "one-" ("one-25-5-450.csv":
      COL values 25, 5, 450; a single COL takes the whole rest, so names may
      hold "-"). The rows of REPORT whose COL cells hold those values must be
      that report's rows, but for rank, scenario and plan_index. Prints "ok"
      or what differs (at most three items).
  design_rows.py distinct REPORT COL...
      The sorted set of (COL, ...) tuples over REPORT's rows that are not
      invalid, as Python prints it.
"""
import csv
import sys

SKIP = ("rank", "scenario", "plan_index")


def rows_of(path):
    with open(path, newline="") as fp:
        return list(csv.DictReader(fp))


def keep(row):
    return str({k: v for k, v in row.items() if k not in SKIP})


def same(report, cols, ones):
    rows = rows_of(report)
    bad = []
    for path in ones:
        stem = path.rsplit("/", 1)[-1][len("one-"):-len(".csv")]
        want = stem.split("-", len(cols) - 1)
        mine = sorted(keep(r) for r in rows if [r[c] for c in cols] == want)
        one = rows_of(path)
        if not one or mine != sorted(map(keep, one)):
            bad.append("%s: %d rows against %d" % ("/".join(want), len(mine), len(one)))
        if any([r[c] for c in cols] != want for r in one):
            bad.append("%s: the one-value report's columns" % "/".join(want))
    return "ok" if not bad else "; ".join(bad[:3])


def distinct(report, cols):
    return str(sorted({tuple(r[c] for c in cols) for r in rows_of(report) if r["status"] != "invalid"}))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "same":
        print(same(sys.argv[2], sys.argv[3].split(","), sys.argv[4:]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "distinct":
        print(distinct(sys.argv[2], sys.argv[3:]))
    else:
        sys.exit(__doc__)
