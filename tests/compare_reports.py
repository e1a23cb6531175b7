#!/usr/bin/env python3
"""compare_reports.py BASE_DIR NEW_DIR [DROP] — compare two `planeval run -o`
output directories report by report, after dropping the DROP (default 2)
trailing columns of every NEW report row (the MoE columns ep_comm_s and
mem_experts_gib come after the v1 report's last column; every column before
them must stay byte-identical). Summaries are compared without their timing lines (wall_s,
plans_per_s), the report's CRC (it covers the new columns), the scenario
file's CRC (a comment or fidelity: line changes it) and the zero
count rows of the MoE skip kinds and rules V9-V15. Reports only in
NEW are listed, not compared. Prints one line per difference; exit 1 if any."""
import os
import sys


def strip_tail(line, drop):
    # the dropped cells are numbers or empty: no quotes, no commas
    return line.rsplit(",", drop)[0] if drop else line


VOLATILE = ("wall_s,", "plans_per_s,", "report_crc32,", "scenario_crc32,")
MOE_ROWS = ("skipped: ep and etp apply", '"skipped: ep auto:', "invalid: V9,",
                "invalid: V10,", "invalid: V11,", "invalid: V12,", "invalid: V13,",
                "invalid: V14,", "invalid: V15,")


def summary_lines(lines, new):
    keep = [x for x in lines if not x.startswith(VOLATILE)]
    if new:  # the MoE rows must count 0 on a dense scenario
        keep = [x for x in keep if not (x.startswith(MOE_ROWS) and x.endswith(",0"))]
    return keep


def compare(base, new, drop):
    bad = 0
    for name in sorted(os.listdir(base)):
        b_path, n_path = os.path.join(base, name), os.path.join(new, name)
        if not os.path.exists(n_path):
            print(f"{name}: missing in {new}")
            bad += 1
            continue
        with open(b_path, encoding="utf-8") as f:
            b_lines = f.read().split("\n")
        with open(n_path, encoding="utf-8") as f:
            n_lines = f.read().split("\n")
        if not name.endswith(".csv") or name.endswith(".summary.csv"):
            if summary_lines(b_lines, False) != summary_lines(n_lines, True):
                print(f"{name}: differs")
                bad += 1
            continue
        if len(b_lines) != len(n_lines):
            print(f"{name}: {len(b_lines)} lines, now {len(n_lines)}")
            bad += 1
            continue
        for i, (b, n) in enumerate(zip(b_lines, n_lines), 1):
            if b != (strip_tail(n, drop) if n else n):
                print(f"{name}:{i}: differs")
                bad += 1
                break
    extra = sorted(set(os.listdir(new)) - set(os.listdir(base)))
    if extra:
        print("only in new (not compared): " + " ".join(extra))
    return bad


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    n = compare(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) == 4 else 2)
    print(f"{n} differing files")
    sys.exit(1 if n else 0)
