#!/usr/bin/env python3
"""published_predictions.py PLANEVAL SOURCE_DIR WORKDIR [--write] — the
"# Predicted (...)" comment block of each scenarios/published file, made
from the current binary so that it cannot go stale.

A block starts with a comment line "# Predicted (fidelity: F[, schedule:
S]) ..." and ends with the first line ending in "GiB (STATUS)."; it states
the step time and its parts and the memory of the file's first plan, as
`planeval run` gives them for a copy of the file with `fidelity: F` (and,
with schedule: S, the plan's schedule S: textbook refuses some). Without
--write the blocks are compared with what the binary gives now and each
stale one is printed ("FILE: stale: ..."), exit 1; with --write they are
rewritten in place. Regenerate after a model change with
    python3 tests/published_predictions.py build/planeval . /tmp/pp --write
"""
import csv
import os
import re
import subprocess
import sys
import textwrap

HEAD = re.compile(r"^# Predicted \(fidelity: (textbook|refined)(?:, schedule: ([a-z0-9]+))?\) ")
END = re.compile(r"GiB \([a-z_]+\)\.$")


def block_text(label, row):
    """The block's lines for one report row."""
    f = lambda k: float(row[k])
    text = ("Predicted (%s) %.2f s = compute %.2f + tensor-parallel communication %.2f"
            " + context-parallel %.2f + bubble %.2f + pipeline sends %.2f + data-parallel"
            " %.2f + optimizer %.2f + expert all-to-all %.2f; memory %.1f GiB (%s)." %
            (label, f("step_time_s"), f("compute_s"), f("tp_comm_s"), f("cp_comm_s"),
             f("bubble_s"), f("pp_comm_s"), f("dp_comm_s"), f("optimizer_s"),
             f("ep_comm_s"), f("mem_total_gib"), row["status"]))
    return ["# " + line for line in textwrap.wrap(text, 76, break_on_hyphens=False)]


def variant(lines, fidelity, schedule):
    """The scenario's text under the given fidelity (and plan schedule)."""
    out, seen = [], False
    for line in lines:
        if line.startswith("fidelity:"):
            line, seen = "fidelity: %s" % fidelity, True
        if schedule and line.lstrip().startswith("- {"):
            line = re.sub(r"schedule: *[a-z0-9]+", "schedule: " + schedule, line)
        out.append(line)
    if not seen:
        out.insert(0, "fidelity: %s" % fidelity)
    return out


def first_row(planeval, path, work):
    os.makedirs(work, exist_ok=True)
    subprocess.run([planeval, "run", "--quiet", "-o", work, path], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    name = next(l.split(":", 1)[1].strip().split()[0] for l in open(path, encoding="utf-8")
                if l.startswith("name:"))
    with open(os.path.join(work, name + ".csv"), newline="", encoding="utf-8") as fh:
        return next(csv.DictReader(fh))


def main(argv):
    planeval, src, work = argv[:3]
    write = "--write" in argv[3:]
    os.makedirs(work, exist_ok=True)
    pub = os.path.join(src, "scenarios", "published")
    stale = blocks = 0
    for name in sorted(os.listdir(pub)):
        if not name.endswith(".yaml"):
            continue
        path = os.path.join(pub, name)
        lines = open(path, encoding="utf-8").read().split("\n")
        starts = [i for i, l in enumerate(lines) if HEAD.match(l)]
        if not starts:
            continue
        for i in reversed(starts):
            m = HEAD.match(lines[i])
            j = i
            while j < len(lines) and not END.search(lines[j]):
                j += 1
            if j == len(lines):
                print("%s:%d: a Predicted block without its closing \"GiB (status).\"" % (name, i + 1))
                stale += 1
                continue
            copy = os.path.join(work, "variant-" + name)
            open(copy, "w", encoding="utf-8").write("\n".join(variant(lines, m.group(1), m.group(2))))
            label = "fidelity: " + m.group(1) + (", schedule: " + m.group(2) if m.group(2) else "")
            want = block_text(label, first_row(planeval, copy, os.path.join(work, "out")))
            blocks += 1
            if lines[i:j + 1] != want:
                stale += 1
                if not write:
                    print("%s:%d: stale: %s\n  now: %s" % (name, i + 1, " ".join(lines[i:j + 1]),
                                                          " ".join(want)))
                lines[i:j + 1] = want
        if write:
            open(path, "w", encoding="utf-8").write("\n".join(lines))
    print("%d blocks, %d %s" % (blocks, stale, "rewritten" if write else "stale"), file=sys.stderr)
    return 0 if write or (stale == 0 and blocks > 0) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
