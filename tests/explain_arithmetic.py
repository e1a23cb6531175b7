#!/usr/bin/env python3
"""explain_arithmetic.py [--skip ID,ID...] EXPLAIN.txt... — every equation
`explain` prints as three lines,

    ID   what = formula
           = substitution   (an optional note after two spaces)
           = value unit     [source]

whose substitution is plain arithmetic (numbers, · + − / ( ) [ ], min, max)
is evaluated and compared with the value printed below it, to the six
significant digits printed (a relative 2e-5). A substitution with words in
it (a case, a label) is not arithmetic and is passed over. Prints one
"FILE:LINE: ID: substitution = got, printed value" line per disagreement and
"checked N, mismatched M" on stderr; exits 1 on any disagreement. --skip
names the ids not checked (their substitutions are known to show terms other
than those their value holds)."""
import re
import sys

NUM = r"-?[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?"
ID = re.compile(r"^([A-Z][A-Za-z0-9'′_:]*)\s+\S.* = ")
ARITH = re.compile(r"^(?:[0-9.+\-*/(), ]|e[+-]?[0-9]|min|max)+$")


def expression(subst):
    """The substitution as a Python expression, or None when it is not arithmetic."""
    s = re.sub(r"\s{2,}\(.*$", "", subst.strip())  # the note after two spaces
    s = re.sub(r",? in the optimizer phase$", "", s)
    e = s.replace("·", "*").replace("−", "-").replace("[", "(").replace("]", ")")
    return e if e and ARITH.match(e) and re.search(r"[0-9]", e) else None


def evaluate(e):
    try:
        v = eval(e, {"__builtins__": {}}, {"min": min, "max": max})  # noqa: S307 (arithmetic only)
    except (SyntaxError, ZeroDivisionError, TypeError):
        return None
    return v if isinstance(v, (int, float)) else None


def main(argv):
    skip = set()
    if len(argv) > 1 and argv[0] == "--skip":
        skip = set(argv[1].split(","))
        argv = argv[2:]
    checked = bad = 0
    for path in argv:
        lines = open(path, encoding="utf-8").read().split("\n")
        for i in range(len(lines) - 2):
            m = ID.match(lines[i])
            sub, val = lines[i + 1], lines[i + 2]
            if not m or m.group(1) in skip or not sub.startswith("       = ") or not val.startswith("       = "):
                continue
            e = expression(sub[9:])
            got = evaluate(e) if e else None
            mv = re.match(r"^\s*= (" + NUM + r")(?: |$)", val)
            if got is None or not mv:
                continue
            want = float(mv.group(1))
            checked += 1
            if abs(got - want) > 2e-5 * abs(want) + 1e-300:
                bad += 1
                print("%s:%d: %s: %s = %.6g, printed %.6g" % (path, i + 1, m.group(1), e, got, want))
    print("checked %d, mismatched %d" % (checked, bad), file=sys.stderr)
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
