#!/usr/bin/env python3
"""hostile_fuzz.py — a hostile-input campaign against planeval.

    python3 tests/hostile_fuzz.py PLANEVAL SOURCE_DIR WORKDIR [--seed S]
                                  [--cases N] [--timeout SECONDS] [--jobs J]
                                  [--keep]

From a seed, each case takes one input the tool reads — a bundled scenario
(scenarios/, tests/golden, tests/bad), a catalog file, a grading key or
submission, a calibration RUNS.csv or priors file, a report CSV given to
check --golden, merge, html or compare — or a command line, mutates it
(numbers to 0, -1, 1e308, .nan, 2**64, "0x10", ..., values at and just
beyond each key's documented range, 1 MB strings, 10^4-deep nesting,
aliases and merge keys, tags, duplicate keys, several documents, NUL and
invalid UTF-8 bytes, BOM, CRLF/CR, tabs, truncation, empty files; CSV:
missing header, wrong column counts, quoted newlines, 100k-char fields,
duplicate columns, numeric garbage; a directory, /dev/null, a FIFO or a
missing path in place of a file, an output that cannot be written; option
values empty, negative, huge, non-numeric, repeated or unknown; a real
checkpoint of an interrupted sweep edited line by line and re-signed) and runs
each command that reads it with a timeout. A finding is:

  crash       a signal, or sanitizer output on stderr
  timeout     no answer within the timeout (a hang)
  status      an exit status outside the documented set (0, 1 for check,
              2, 3 only where the output cannot be written)
  garbage     exit 0 with nan/inf in a report, or a negative figure in a
              column that cannot be negative
  format      exit 2 on a scenario file with a stderr line that is not
              `FILE:LINE:COL: error: ...` (or the "... and N more" line)
  stdout      output on stdout while refusing (exit 2)
  leftover    a report file left in the output directory after a refusal
  clobbered   a device or FIFO given as an output replaced by a file
  wrong       run --resume took a forged checkpoint (edited, its CRC-32 redone)
              and wrote no report, or one with another row count, a plan
              twice, or without a row of the uninterrupted run's that the
              resumed part found (the one forgery no check can see, a kept
              row swapped for a worse plan of its status, loses only rows
              of the done prefix)

Exit status 0: no finding; 1: findings (one line each on stdout, the
reproducer kept under WORKDIR/findings/); 77: no binary. Python 3 stdlib
only.
"""
import argparse
import collections
import csv
import io
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor

# ------------------------------------------------------------ hostile values
NUMBERS = [
    "0", "-1", "1e308", "-1e308", "1e-320", "5e-324", ".nan", ".NaN", ".inf",
    "-.inf", "9223372036854775808", "18446744073709551616",
    "18446744073709551615", "9223372036854775807", "4294967296",
    "2147483648", "9007199254740993", "0x10", "0o17", "0b101", "010",
    "1_000", "  3", "1:30", "1e400", "-0", "-0.0", "0.0", "1.", ".5", "+1",
    "1e", "--1", "1.7976931348623157e308", "2.2250738585072014e-308",
    "NaN", "inf", "Infinity", "1e-308", "0.5", "1.5", "3.0000000001",
    "999999999999999999999999999999", "-9223372036854775809",
]
STRINGS = [
    '""', "''", "~", "null", "yes", "no", "on", "off", "!!binary aGVsbG8=",
    "!!python/object/apply:os.system ['true']", "!!str 3", "!custom x",
    "!!int 3", "!!float 1", "!!null ''", "[]", "{}", "[[]]", "{a: }",
    "auto", "'auto'", "&a 1", "*undefined_alias", "? complex\n: key",
    "|\n  block", ">-\n  folded", '"\\u0000"', '"\\xff"', "\"a\\\nb\"",
    "%TAG ! tag:x,2000:", "-", "- - -", "@reserved", "`tick",
]
BAD_BYTES = [b"\x00", b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xef\xbb\xbf",
             b"\xf4\x90\x80\x80", b"\x80", b"\r", b"\t", b"\x1b[2J", b"\xc0\xaf"]
CSV_GARBAGE = ["nan", "inf", "-inf", "1e999", "-1e999", "", " ", "-0", "1,5",
               "0x10", "1_000", "abc", "1e308", "-1", "0", "5e-324",
               "18446744073709551616", "\"", "\"\"", "=cmd|' /C calc'!A0",
               "1.2.3", "+", "e5", "\x00", "\xff"]
CLI_VALUES = ["", "-1", "0", "-0", "1e308", "nan", "inf", "abc", "1/0",
              "0/0", "3/2", "2/2", "0/2", "-1/2", "18446744073709551616",
              "99999999999999999999", "9223372036854775807", "0x10", " 3",
              "3 ", "1.5", "1e3", "2147483648", "4294967297", "/", "{D}/null",
              "/nonexistent/x", "x" * 5000, "--top", "-", "1,2", ",", "a,b,,"]

SANITIZER = re.compile(r"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|"
                       r"runtime error:|MemorySanitizer|ThreadSanitizer|stack-overflow|"
                       r"Segmentation fault|Assertion .* failed|double free|malloc\(\)")
NONFINITE = re.compile(r"(?<![A-Za-z_])[-+]?(nan|inf|infinity)(?![A-Za-z_])", re.I)
# A figure printed as nan or inf (not the word inside an echoed text).
NONFINITE_FIGURE = re.compile(r"(?:^|(?<=[\s=:]))[-+]?(nan|inf|infinity)(?=$|[\s,;)])", re.I | re.M)
# Columns that may hold a negative figure (docs/scenarios.md "The report").
SIGNED_COLUMN = re.compile(r"headroom|delta|error|residual|signed|diff|change|"
                           r"slack|margin|bias|offset|log|z_?score", re.I)


class Case:
    """One mutated input and the command lines that read it."""

    def __init__(self, ident, kind, note):
        self.ident = ident
        self.kind = kind
        self.note = note
        self.files = {}      # name -> bytes, written into the case dir
        self.special = []    # (name, what): 'dir', 'fifo', 'devnull', 'missing', 'loop'
        self.commands = []   # (label, argv with {D} for the case dir, flags)


# ---------------------------------------------------------------- mutators
NUM_TOKEN = re.compile(rb"(?<=[:\[,{-] )(-?\d+(\.\d+)?([eE][-+]?\d+)?)(?=\s*[,\]}\n#]|$)", re.M)
VALUE_TOKEN = re.compile(rb"(?<=: )([^\s\[\]{},#][^\n,\]}#]*)", re.M)
KEY_TOKEN = re.compile(rb"^(\s*-?\s*)([a-z_0-9]+):", re.M)


def doc_ranges(src):
    """key -> (lo, hi, whole) from the key tables of docs/scenarios.md."""
    ranges = {}
    try:
        text = open(os.path.join(src, "docs", "scenarios.md"), encoding="utf-8").read()
    except OSError:
        return ranges
    for m in re.finditer(r"^\| `([a-z_0-9]+)` \| ([^|]*)\|", text, re.M):
        key, kind = m.group(1), m.group(2)
        r = re.search(r"a number from ([-0-9.e+]+) to ([-0-9.e+]+)", kind)
        if r:
            ranges.setdefault(key, (float(r.group(1)), float(r.group(2)), False))
            continue
        r = re.search(r"a number in \[([-0-9.e+]+), ([-0-9.e+]+)\]", kind)
        if r:
            ranges.setdefault(key, (float(r.group(1)), float(r.group(2)), False))
            continue
        r = re.search(r"a whole number from (\d+) to (\d+)", kind)
        if r:
            ranges.setdefault(key, (float(r.group(1)), float(r.group(2)), True))
            continue
        r = re.search(r"a whole number >= (\d+)", kind)
        if r:
            ranges.setdefault(key, (float(r.group(1)), 9007199254740992.0, True))
            continue
        r = re.search(r"a number >= ([-0-9.e+]+)", kind)
        if r:
            ranges.setdefault(key, (float(r.group(1)), 1e308, False))
    return ranges


def edge_values(lo, hi, whole):
    vals = [lo, hi]
    if whole:
        vals += [lo - 1, hi + 1, lo + 1]
        return [str(int(v)) for v in vals]
    eps = lambda v: max(abs(v) * 1e-9, 1e-12)
    vals += [lo - eps(lo), hi + eps(hi), (lo + hi) / 2 if hi < 1e300 else lo * 2 + 1]
    return [repr(float(v)) for v in vals]


def swap_span(data, m, new):
    return data[:m.start(1)] + new + data[m.end(1):]


def mut_number(rng, data, ctx):
    hits = list(NUM_TOKEN.finditer(data))
    if not hits:
        return data, "no number"
    m = rng.choice(hits)
    v = rng.choice(NUMBERS)
    return swap_span(data, m, v.encode()), f"number {m.group(1).decode()} -> {v}"


def mut_all_numbers(rng, data, ctx):
    v = rng.choice(NUMBERS).encode()
    return NUM_TOKEN.sub(lambda m: v, data), f"every number -> {v.decode()}"


def mut_range(rng, data, ctx):
    """A key with a documented range at or just beyond its bounds."""
    hits = [m for m in KEY_TOKEN.finditer(data) if m.group(2).decode() in ctx["ranges"]]
    if not hits:
        return mut_number(rng, data, ctx)
    m = rng.choice(hits)
    key = m.group(2).decode()
    lo, hi, whole = ctx["ranges"][key]
    v = rng.choice(edge_values(lo, hi, whole))
    end = data.find(b"\n", m.end())
    end = len(data) if end < 0 else end
    rest = data[m.end():end]
    # Keep a flow mapping's closing characters.
    tail = re.search(rb"[,}\]].*$", rest)
    new = b" " + v.encode() + (tail.group(0) if tail and b"[" not in rest and b"{" not in rest else b"")
    return data[:m.end()] + new + data[end:], f"{key}: {v} (range {lo}..{hi})"


def mut_corner(rng, data, ctx):
    """Every key with a documented range at one of its bounds (a corner of
    the input space: the largest or smallest of everything at once)."""
    side = rng.randrange(3)

    def edge(m):
        lo, hi, whole = ctx["ranges"][m.group(2).decode()]
        v = {0: lo, 1: hi, 2: rng.choice([lo, hi])}[side]
        return m.group(1) + m.group(2) + b": " + (str(int(v)) if whole else repr(v)).encode()

    pat = re.compile(rb"^(\s*-?\s*)([a-z_0-9]+): (-?\d+(\.\d+)?([eE][-+]?\d+)?)\s*$", re.M)
    new = pat.sub(lambda m: edge(m) if m.group(2).decode() in ctx["ranges"] else m.group(0), data)
    # Flow mappings: `key: number` inside braces.
    flow = re.compile(rb"([{,]\s*)([a-z_0-9]+): (-?\d+(\.\d+)?([eE][-+]?\d+)?)(?=\s*[,}])")
    new = flow.sub(lambda m: edge(m) if m.group(2).decode() in ctx["ranges"] else m.group(0), new)
    return new, "every ranged key at its " + ("lower", "upper", "lower or upper")[side] + " bound"


def mut_value(rng, data, ctx):
    hits = list(VALUE_TOKEN.finditer(data))
    if not hits:
        return data, "no value"
    m = rng.choice(hits)
    v = rng.choice(STRINGS + NUMBERS)
    return swap_span(data, m, v.encode()), f"value {m.group(1)[:30]!r} -> {v!r}"


def mut_huge_string(rng, data, ctx):
    hits = list(VALUE_TOKEN.finditer(data))
    big = rng.choice([b"x" * (1 << 20), b"a" * 70000, b'"' + b"\\u00e9" * 200000 + b'"',
                      b"9" * 100000, b"1." + b"0" * 100000 + b"1"])
    if not hits:
        return data + b"\nname: " + big + b"\n", "huge name appended"
    m = rng.choice(hits)
    return swap_span(data, m, big), f"value {m.group(1)[:30]!r} -> {len(big)}-byte string"


def mut_deep(rng, data, ctx):
    n = rng.choice([65, 100, 1000, 10000])
    form = rng.choice(["flowseq", "flowmap", "block"])
    if form == "flowseq":
        deep = b"[" * n + b"1" + b"]" * n
    elif form == "flowmap":
        deep = b"{a: " * n + b"1" + b"}" * n
    else:
        deep = b"".join(b"  " * i + b"a:\n" for i in range(min(n, 3000))) + b"  " * min(n, 3000) + b"1"
        return data + b"\nextra:\n" + b"\n".join(b"  " + l for l in deep.split(b"\n")) + b"\n", f"block nesting {min(n, 3000)}"
    hits = list(VALUE_TOKEN.finditer(data))
    if not hits:
        return data + b"\nx: " + deep + b"\n", f"{form} nesting {n} appended"
    m = rng.choice(hits)
    return swap_span(data, m, deep), f"{form} nesting {n}"


def mut_alias(rng, data, ctx):
    form = rng.randrange(4)
    if form == 0:
        lol = b"a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + b"".join(
            b"a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n" % ((i, i) + (i - 1,) * 10)
            for i in range(1, 9))
        return lol + data, "billion laughs prepended"
    if form == 1:
        lines = data.split(b"\n")
        idx = [i for i, l in enumerate(lines) if re.match(rb"^[a-z_]+:\s*\S", l)]
        if idx:
            i = rng.choice(idx)
            k = lines[i].split(b":")[0]
            lines.append(b"extra_alias: *" + b"anc")
            lines[i] = lines[i].replace(b": ", b": &anc ", 1)
            return b"\n".join(lines), f"anchor on {k.decode()} and an alias"
    if form == 2:
        return data.replace(b"\nmodel:", b"\nbase: &base {layers: 2}\nmodel:\n  <<: *base", 1), "merge key <<"
    # An alias to an undefined anchor, or a self-referencing one.
    return data.replace(b": ", b": *nowhere ", 1), "undefined alias"


def mut_tag(rng, data, ctx):
    hits = list(VALUE_TOKEN.finditer(data))
    if not hits:
        return data, "no value"
    m = rng.choice(hits)
    tag = rng.choice([b"!!binary ", b"!!python/object:os.system ", b"!!str ", b"!!int ",
                      b"!!float ", b"!!map ", b"!foo ", b"!<tag:yaml.org,2002:str> "])
    return data[:m.start(1)] + tag + data[m.start(1):], f"tag {tag.decode().strip()}"


def mut_dup_line(rng, data, ctx):
    lines = data.split(b"\n")
    if len(lines) < 2:
        return data + data, "doubled"
    i = rng.randrange(len(lines))
    lines.insert(i, lines[i])
    return b"\n".join(lines), f"line {i + 1} duplicated"


def mut_delete_line(rng, data, ctx):
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    del lines[i]
    return b"\n".join(lines), f"line {i + 1} deleted"


def mut_documents(rng, data, ctx):
    form = rng.randrange(4)
    if form == 0:
        return data + b"\n---\n" + data, "two documents"
    if form == 1:
        return b"---\n" + data + b"\n...\n", "explicit document markers"
    if form == 2:
        return b"%YAML 1.1\n---\n" + data, "YAML 1.1 directive"
    return data + b"\n---\n", "trailing empty document"


def mut_bytes(rng, data, ctx):
    b = rng.choice(BAD_BYTES)
    pos = rng.randrange(len(data) + 1)
    return data[:pos] + b + data[pos:], f"byte {b!r} at {pos}"


def mut_bom(rng, data, ctx):
    return rng.choice([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf\xef\xbb\xbf"]) + data, "BOM"


def mut_newlines(rng, data, ctx):
    form = rng.randrange(3)
    if form == 0:
        return data.replace(b"\n", b"\r\n"), "CRLF"
    if form == 1:
        return data.replace(b"\n", b"\r"), "CR only"
    return data.replace(b"\n", b"\n\r", 1), "stray CR"


def mut_tabs(rng, data, ctx):
    if rng.randrange(2):
        return re.sub(rb"^  ", b"\t", data, count=rng.randrange(1, 5), flags=re.M), "tab indentation"
    return data.replace(b": ", b":\t", 3), "tab after colon"


def mut_truncate(rng, data, ctx):
    pos = rng.randrange(len(data) + 1)
    return data[:pos], f"truncated at {pos}"


def mut_empty(rng, data, ctx):
    return rng.choice([b"", b"\n", b"   \n", b"#only a comment\n", b"---\n", b"~\n", b"[]\n", b"{}\n", b"3\n"]), "empty-ish file"


def mut_model_zero(rng, data, ctx):
    key = rng.choice([b"layers", b"heads", b"vocab", b"hidden", b"seq_len", b"kv_heads",
                      b"ffn_hidden", b"experts", b"global_batch", b"nodes", b"gpus_per_node"])
    val = rng.choice([b"0", b"1", b"9007199254740992", b"4294967296", b"1000000000000",
                      b"18446744073709551615", b"1e15", b"3"])
    new, n = re.subn(rb"(\b" + key + rb": )[^\s,}\]#]+", rb"\g<1>" + val, data)
    if n == 0:
        return mut_range(rng, data, ctx)
    return new, f"{key.decode()} -> {val.decode()}"


def mut_sweep_overflow(rng, data, ctx):
    """A sweep whose combination count reaches 2^64 or more (refused), or
    explicit plans whose GPU product or degrees overflow."""
    keys = [b"tp", b"pp", b"cp", b"micro_batch", b"virtual_stages", b"dp", b"first_stage_layers",
            b"last_stage_layers"]
    form = rng.randrange(4)
    if form == 3:
        big = rng.choice([b"4294967296", b"9007199254740992", b"2147483648", b"65536", b"18446744073709551615"])
        plan = b"  - { name: huge-plan, dp: %s, tp: %s, pp: %s, cp: %s }\n" % (
            big, big, rng.choice([b"1", big]), rng.choice([b"1", big]))
        new, n = re.subn(rb"^plans:\n", b"plans:\n" + plan, data, count=1, flags=re.M)
        return (new if n else data.rstrip(b"\n") + b"\nplans:\n" + plan), "plan degrees overflow"
    n, k = [(65536, 4), (4096, 6), (1 << 16, 5), (256, 8)][form if form < 3 else 0]
    vals = b"[" + b", ".join(str(i + 1).encode() for i in range(n)) + b"]"
    sweep = b"sweep:\n" + b"".join(b"  " + key + b": " + vals + b"\n" for key in keys[:k])
    data = re.sub(rb"^sweep:.*\n([ #].*\n)*", b"", data, flags=re.M)
    return data.rstrip(b"\n") + b"\n" + sweep, f"sweep of {n}^{k} combinations"


def mut_big_model(rng, data, ctx):
    text = (b"model:\n  layers: %d\n  hidden: %d\n  heads: %d\n  vocab: %d\n  seq_len: %d\n" %
            (rng.choice([1, 96, 10 ** 6, 2 ** 31, 2 ** 40]), rng.choice([64, 12288, 2 ** 24, 2 ** 31, 2 ** 40]),
             rng.choice([1, 96, 2 ** 20, 2 ** 32]), rng.choice([1, 51200, 2 ** 31, 2 ** 40]),
             rng.choice([1, 2048, 2 ** 24, 2 ** 31, 2 ** 40])))
    new, n = re.subn(rb"^model:.*\n(  .*\n)*", text, data, count=1, flags=re.M)
    return (new if n else data + b"\n" + text), "huge model"


def mut_unknown_key(rng, data, ctx):
    k = rng.choice([b"trainig", b"nodes", b"x" * 300, b"\xc3\xa9", b'"quoted key"', b"? [a, b]", b"1", b"null", b"true", b"~"])
    lines = data.split(b"\n")
    i = rng.randrange(len(lines) + 1)
    indent = re.match(rb"^\s*", lines[i - 1] if i else b"").group(0)
    lines.insert(i, indent + k + b": 1")
    return b"\n".join(lines), f"key {k[:20]!r} inserted"


YAML_MUTATORS = [mut_number, mut_number, mut_all_numbers, mut_range, mut_range, mut_range,
                 mut_range, mut_corner, mut_corner, mut_value,
                 mut_value, mut_huge_string, mut_deep, mut_alias, mut_tag, mut_dup_line,
                 mut_delete_line, mut_documents, mut_bytes, mut_bom, mut_newlines, mut_tabs,
                 mut_truncate, mut_truncate, mut_empty, mut_model_zero, mut_model_zero,
                 mut_sweep_overflow, mut_big_model, mut_unknown_key]


def csv_rows(data):
    return data.split(b"\n")


def csv_mutate(rng, data):
    lines = csv_rows(data.rstrip(b"\n"))
    form = rng.randrange(16)
    if form == 0 and lines:
        return b"\n".join(lines[1:]) + b"\n", "header removed"
    if form == 1 and len(lines) > 1:
        i = rng.randrange(1, len(lines))
        lines[i] += b",extra"
        return b"\n".join(lines) + b"\n", f"row {i + 1} has a column too many"
    if form == 2 and len(lines) > 1:
        i = rng.randrange(1, len(lines))
        lines[i] = lines[i].rsplit(b",", 1)[0]
        return b"\n".join(lines) + b"\n", f"row {i + 1} has a column too few"
    if form == 3 and len(lines) > 1:
        i = rng.randrange(1, len(lines))
        cells = lines[i].split(b",")
        j = rng.randrange(len(cells))
        cells[j] = b'"a\nb"'
        lines[i] = b",".join(cells)
        return b"\n".join(lines) + b"\n", f"quoted newline in row {i + 1}"
    if form == 4 and len(lines) > 1:
        i = rng.randrange(1, len(lines))
        cells = lines[i].split(b",")
        j = rng.randrange(len(cells))
        cells[j] = rng.choice([b"x" * 100000, b"9" * 100000, b'"' + b"y" * 100000 + b'"'])
        lines[i] = b",".join(cells)
        return b"\n".join(lines) + b"\n", f"100k-char field in row {i + 1}"
    if form == 5 and lines:
        cols = lines[0].split(b",")
        j = rng.randrange(len(cols))
        cols.insert(j, cols[j])
        lines[0] = b",".join(cols)
        for i in range(1, len(lines)):
            c = lines[i].split(b",")
            if j < len(c):
                c.insert(j, c[j])
            lines[i] = b",".join(c)
        return b"\n".join(lines) + b"\n", f"duplicate column {cols[j][:30]!r}"
    if form in (6, 7, 8) and len(lines) > 1:
        i = rng.randrange(1, len(lines))
        cells = lines[i].split(b",")
        j = rng.randrange(len(cells))
        g = rng.choice(CSV_GARBAGE).encode("latin-1")
        cells[j] = g
        lines[i] = b",".join(cells)
        return b"\n".join(lines) + b"\n", f"row {i + 1} cell {j + 1} -> {g[:20]!r}"
    if form == 9:
        pos = rng.randrange(len(data) + 1)
        return data[:pos], f"truncated at {pos}"
    if form == 10:
        return rng.choice([b"", b"\n", lines[0] + b"\n" if lines else b"", b"\r\n", b",,,\n"]), "empty or header only"
    if form == 11:
        return rng.choice([b"\xef\xbb\xbf" + data, data.replace(b"\n", b"\r\n"), data.replace(b"\n", b"\r")]), "BOM or CR"
    if form == 12:
        pos = rng.randrange(len(data) + 1)
        b = rng.choice(BAD_BYTES)
        return data[:pos] + b + data[pos:], f"byte {b!r} at {pos}"
    if form == 13 and len(lines) > 1:
        i = rng.randrange(1, len(lines))
        lines[i] = lines[i] + b',"unterminated'
        return b"\n".join(lines) + b"\n", "unterminated quote"
    if form == 14 and len(lines) > 1:
        i = rng.randrange(1, len(lines))
        return b"\n".join(lines + [lines[i]] * rng.choice([1, 2, 50])) + b"\n", f"row {i + 1} repeated"
    if form == 15 and lines:
        lines[0] = lines[0].replace(b",", b";", 1) if rng.randrange(2) else lines[0].upper()
        return b"\n".join(lines) + b"\n", "header misspelt"
    cells_all = [m for m in re.finditer(rb"(?<=,)-?\d+(\.\d+)?(?=[,\n])", data)]
    if cells_all:
        m = rng.choice(cells_all)
        g = rng.choice(CSV_GARBAGE).encode("latin-1")
        return data[:m.start()] + g + data[m.end():], f"number -> {g[:20]!r}"
    return data + b"garbage\n", "garbage row"


# ------------------------------------------------------------------ seeds
def read(path):
    with open(path, "rb") as f:
        return f.read()


def gather_seeds(src):
    yaml_files = []
    for top in ("scenarios", os.path.join("tests", "golden"), os.path.join("tests", "bad"),
                os.path.join("tests", "grade")):
        for root, dirs, files in os.walk(os.path.join(src, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".yaml", ".yml")):
                    yaml_files.append(os.path.join(root, f))
    scen = [p for p in yaml_files if "/catalog/" not in p and "/grade/" not in p]
    catalog = [p for p in yaml_files if "/catalog/" in p]
    subs = [p for p in yaml_files if "/grade/" in p]
    keys = [os.path.join(src, "scenarios", "drills", f) for f in sorted(os.listdir(os.path.join(src, "scenarios", "drills")))
            if f.endswith(".yaml") and b"questions:" in read(os.path.join(src, "scenarios", "drills", f))]
    return scen, catalog, subs, keys


def plan_names(data):
    names = re.findall(rb"(?:^\s*-\s*|\{\s*)name:\s*([A-Za-z0-9_.+-]+)", data, re.M)
    top = re.search(rb"^name:\s*(\S+)", data, re.M)
    return [n.decode("latin-1") for n in names if not top or n != top.group(1)] or ["baseline"]


class Seeds:
    def __init__(self, args):
        self.src = args.src
        self.scen, self.catalog, self.subs, self.keys = gather_seeds(args.src)
        self.ranges = doc_ranges(args.src)
        # Small scenarios first: the mutated ones must evaluate within the timeout.
        self.small_scen = [p for p in self.scen if os.path.getsize(p) < 6000]
        cal = os.path.join(args.src, "scenarios", "calibration")
        pub = os.path.join(args.src, "scenarios", "published") + "/"
        self.runs = []
        for f in sorted(os.listdir(cal)):
            if f.endswith(".csv"):
                lines = read(os.path.join(cal, f)).split(b"\n")
                # Three rows (two fit, one predict where possible): calibrate stays fast.
                body = [l.replace(b"../published/", pub.encode()) for l in lines[1:] if l]
                if body:
                    self.runs.append(lines[0] + b"\n" + b"\n".join(body[:3]) + b"\n")
        pri = os.path.join(cal, "priors")
        self.priors = [read(os.path.join(pri, f)) for f in sorted(os.listdir(pri)) if f.endswith(".csv")]
        self.reports = {}
        self.shards = []

    def make_reports(self, planeval, work):
        """Reports, summaries and shard reports of two drills, as run writes them."""
        rep = os.path.join(work, "seed-reports")
        shutil.rmtree(rep, ignore_errors=True)
        os.makedirs(rep)
        scen = os.path.join(self.src, "scenarios", "drills", "01-fit-the-model.yaml")
        subprocess.run([planeval, "run", "--quiet", "-o", rep, scen], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        for i in (1, 2):
            d = os.path.join(rep, f"shard{i}")
            subprocess.run([planeval, "run", "--quiet", "--shard", f"{i - 1}/2", "-o", d, scen],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
            files = {}
            for f in sorted(os.listdir(d)):
                files[f] = read(os.path.join(d, f))
            self.shards.append(files)
        for f in sorted(os.listdir(rep)):
            if f.endswith(".csv"):
                self.reports[f] = read(os.path.join(rep, f))
        for f in sorted(os.listdir(os.path.join(self.src, "tests", "golden"))):
            if f.endswith(".csv"):
                self.reports["golden-" + f] = read(os.path.join(self.src, "tests", "golden", f))

    def make_checkpoint(self, planeval, work, env):
        """A real checkpoint to forge: a top-K run of one shard of the big
        benchmark sweep, sized to take about 0.6 s here (a sanitizer build
        gets a smaller shard), interrupted by SIGINT, and the report the
        same run writes uninterrupted. None when the run finished first."""
        self.resume = None
        big = os.path.join(self.src, "tests", "bench", "gpt3-4096-lists.yaml")
        base = os.path.join(work, "seed-checkpoint")
        shutil.rmtree(base, ignore_errors=True)
        os.makedirs(base)

        def run(shards, out, interrupt_after=None):
            argv = [planeval, "run", "--quiet", "--threads", "1", "--top", "5", "--shard",
                    f"0/{shards}", "-o", out, big]
            t0 = time.monotonic()
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, env=env)
            if interrupt_after is not None:
                time.sleep(interrupt_after)
                proc.send_signal(signal.SIGINT)
            try:
                rc = proc.wait(timeout=300)
            except subprocess.TimeoutExpired:
                proc.kill()
                return None, 0.0
            return rc, time.monotonic() - t0

        shards = 4096
        while shards > 1:  # the shard count that takes at least 0.3 s
            rc, took = run(shards, os.path.join(base, "probe"))
            if rc != 0 or took >= 0.3:
                break
            shards //= 2
        rc, took = run(shards, os.path.join(base, "ref"))
        if rc != 0:
            return
        name = f"bench-gpt3-4096-lists.shard-0-of-{shards}"
        rc, _ = run(shards, os.path.join(base, "ck"), interrupt_after=took * 0.4)
        ck = os.path.join(base, "ck", name + ".checkpoint")
        if rc != 130 or not os.path.isfile(ck):
            return
        pristine = read(ck)
        m = re.search(rb"^next (\d+)$", pristine, re.M)
        if not m:
            return
        self.resume = {"scenario": big, "shards": shards, "name": name,
                       "checkpoint": pristine, "next": int(m.group(1)),
                       "report": read(os.path.join(base, "ref", name + ".csv"))}


# ------------------------------------------------------------ case makers
def yaml_mutant(rng, seeds, data):
    ctx = {"ranges": seeds.ranges}
    notes = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        data, note = rng.choice(YAML_MUTATORS)(rng, data, ctx)
        notes.append(note)
    return data, "; ".join(notes)


def scenario_commands(case, fname, plans, rng):
    p = "{D}/" + fname
    case.commands += [
        ("validate", ["validate", p], {"scenario": True}),
        ("run", ["run", "--quiet", "-o", "{D}/out", p], {"scenario": True, "outdir": "{D}/out"}),
        ("explain", ["explain", p, "--plan", rng.choice(plans)], {"scenario": True}),
        ("check", ["check", "--quiet", p], {"scenario": True, "check": True}),
    ]
    if rng.randrange(4) == 0:
        case.commands.append(("run-html", ["run", "--quiet", "--html", "--pareto", "--top", "3", "-o", "{D}/out2", p],
                              {"scenario": True, "outdir": "{D}/out2"}))


def case_scenario(rng, seeds, ident):
    path = rng.choice(seeds.small_scen if rng.randrange(4) else seeds.scen)
    data, note = yaml_mutant(rng, seeds, read(path))
    case = Case(ident, "scenario", f"{os.path.relpath(path, seeds.src)}: {note}")
    name = rng.choice(["s.yaml", "s.yaml", "Bad Stem.yaml", "s.yml"])
    case.files[name] = data
    scenario_commands(case, name, plan_names(read(path)), rng)
    if b"sweep of" in note.encode() or data.count(b",") > 20000:
        # A sweep that still loads may be 2^60 valid plans: evaluating them
        # is work, not a hang (docs/sweeps.md); only the loading is attacked.
        case.commands = [c for c in case.commands if c[0] in ("validate", "explain")]
    return case


def case_catalog(rng, seeds, ident):
    path = rng.choice(seeds.catalog)
    data, note = yaml_mutant(rng, seeds, read(path))
    case = Case(ident, "catalog", f"{os.path.relpath(path, seeds.src)}: {note}")
    case.files["cat/" + os.path.basename(path)] = data
    scen = os.path.join(seeds.src, "scenarios", "drills", "01-fit-the-model.yaml")
    case.commands += [
        ("validate", ["validate", "--catalog", "{D}/cat", scen], {"scenario": True, "catalog": True}),
        ("run", ["run", "--quiet", "--catalog", "{D}/cat", "-o", "{D}/out", scen],
         {"scenario": True, "catalog": True, "outdir": "{D}/out"}),
        ("memory", ["memory", "--catalog", "{D}/cat", "--model", "gpt3-175b", "--tp", "8", "--pp", "8"], {"catalog": True}),
    ]
    return case


def case_grade(rng, seeds, ident):
    key = rng.choice(seeds.keys)
    sub = rng.choice(seeds.subs)
    case = Case(ident, "grade", "")
    if rng.randrange(3) == 0:
        data, note = yaml_mutant(rng, seeds, read(key))
        case.files["key.yaml"] = data
        case.files["sub.yaml"] = read(sub)
        case.note = f"key {os.path.relpath(key, seeds.src)}: {note}"
    else:
        data, note = yaml_mutant(rng, seeds, read(sub))
        case.files["key.yaml"] = read(key)
        case.files["sub.yaml"] = data
        case.note = f"submission {os.path.relpath(sub, seeds.src)}: {note}"
    case.commands.append(("grade", ["grade", "--quiet", "{D}/key.yaml", "{D}/sub.yaml", "-o", "{D}/out/g.csv",
                                    "--gradebook", "{D}/out/book.csv"], {"outdir": "{D}/out", "yamlfile": True}))
    return case


def case_calibrate(rng, seeds, ident):
    case = Case(ident, "calibrate", "")
    runs = rng.choice(seeds.runs)
    if rng.randrange(3) == 0 and seeds.priors:
        pri, note = csv_mutate(rng, rng.choice(seeds.priors))
        case.files["runs.csv"] = runs
        case.files["priors.csv"] = pri
        case.note = "priors: " + note
        case.commands.append(("calibrate", ["calibrate", "{D}/runs.csv", "--priors", "{D}/priors.csv"], {}))
    else:
        data, note = csv_mutate(rng, runs)
        if rng.randrange(5) == 0:
            # A run naming a hostile scenario path.
            target = rng.choice([b"/dev/null", b"/nonexistent.yaml", b"/", b"{D}/fifo", b"", b"{D}"])
            data = re.sub(rb"\n[^,\n]*,", b"\n" + target + b",", data, count=1)
            note += f"; scenario path {target!r}"
            case.special.append(("fifo", "fifo"))
        case.files["runs.csv"] = data
        case.note = "runs: " + note
        case.commands.append(("calibrate", ["calibrate", "{D}/runs.csv"], {}))
    return case


def case_report(rng, seeds, ident):
    case = Case(ident, "report", "")
    which = rng.randrange(5)
    if which <= 1 and seeds.shards:
        # merge: mutate one shard report or summary.
        names = []
        for i, files in enumerate(seeds.shards):
            for f, data in files.items():
                case.files[f"shard{i + 1}/{f}"] = data
                if f.endswith(".csv") and "summary" not in f:
                    names.append(f"{{D}}/shard{i + 1}/{f}")
        victim = rng.choice(sorted(case.files))
        case.files[victim], note = csv_mutate(rng, case.files[victim])
        if "summary" not in victim and rng.randrange(2):
            # Re-sign it: the summary's CRC-32 then holds, and what is read
            # after the checksum is tested too.
            summ = victim[:-4] + ".summary.csv"
            if summ in case.files:
                crc = b"%08x" % zlib.crc32(case.files[victim])
                case.files[summ] = re.sub(rb"report_crc32,[0-9a-f]+", b"report_crc32," + crc, case.files[summ])
                note += " (re-signed)"
        case.note = f"merge, {victim}: {note}"
        args = ["merge", "--quiet", *names, "-o", "{D}/out/m.csv"]
        if rng.randrange(2):
            args.insert(2, "--allow-partial")
        case.commands.append(("merge", args, {"outdir": "{D}/out"}))
        return case
    name = rng.choice(sorted(seeds.reports))
    data, note = csv_mutate(rng, seeds.reports[name])
    case.note = f"{name}: {note}"
    fname = "01-fit-the-model.csv" if "summary" not in name else "01-fit-the-model.summary.csv"
    if which == 2:
        # check --golden with a mutated golden report.
        case.files["golden/" + fname] = data
        scen = os.path.join(seeds.src, "scenarios", "drills", "01-fit-the-model.yaml")
        case.commands.append(("check-golden", ["check", "--quiet", "--golden", "{D}/golden", scen], {"check": True}))
    else:
        case.files["r/" + fname] = data
        case.commands.append(("html", ["html", "--quiet", "{D}/r/" + fname, "-o", "{D}/out"], {"outdir": "{D}/out"}))
        case.commands.append(("compare", ["compare", "{D}/r/" + fname, "-o", "{D}/out/c.html"], {"outdir": "{D}/out"}))
    return case


CLI_OPTIONS = {
    "run": ["-o", "--top", "--threads", "--shard", "--status", "--digits", "--progress", "--catalog"],
    "check": ["--golden", "--top", "--threads", "--rel-tol", "--abs-tol", "--rank-tol", "--max-lines", "--format"],
    "memory": ["--tp", "--pp", "--dp", "--cp", "--ep", "--etp", "--zero", "--micro-batch", "--layers", "--hidden",
               "--heads", "--kv-heads", "--vocab", "--seq-len", "--ffn-hidden", "--nodes", "--gpus-per-node",
               "--hbm-gib", "--reserve-gib", "--virtual-stages", "--first-stage-layers", "--last-stage-layers",
               "--params", "--global-batch", "--param-bytes", "--grad-bytes", "--optimizer-bytes", "--lora-rank",
               "--lora-dropout", "--model", "--cluster", "--gpu", "--schedule", "--recompute", "--finetune",
               "--lora-targets", "--offload-optimizer", "--sequence-parallel", "--attention", "--mlp", "--norm",
               "--position", "--base-quant"],
    "collective": ["--bytes", "--group", "--op", "--stride", "--links", "--link-gb-s", "--nic-gb-s",
                   "--bandwidth-gb-s", "--intra-latency-us", "--inter-latency-us", "--gpus-per-node",
                   "--topology", "--cluster"],
    "bubble": ["--pp", "--microbatches", "--schedule", "--virtual-stages", "--tf", "--tb"],
    "calibrate": ["--plan", "--step-time", "--peak-memory", "--fit", "--priors"],
    "merge": ["--top", "-o", "--shard"],
    "grade": ["-o", "--gradebook", "--threads"],
    "explain": ["--plan"],
    "validate": ["--catalog"],
    "html": ["-o"],
    "compare": ["-o"],
}


def case_cli(rng, seeds, ident):
    cmd = rng.choice(sorted(CLI_OPTIONS))
    scen = os.path.join(seeds.src, "scenarios", "drills", "01-fit-the-model.yaml")
    base = {
        "run": ["run", "--quiet", "-o", "{D}/out", scen],
        "check": ["check", "--quiet", scen],
        "memory": ["memory", "--model", "gpt3-175b", "--tp", "8", "--pp", "8"],
        "collective": ["collective", "--op", "all_reduce", "--bytes", "1e9", "--group", "8"],
        "bubble": ["bubble", "--pp", "8", "--microbatches", "16"],
        "calibrate": ["calibrate", scen, "--plan", "baseline", "--step-time", "10"],
        "merge": ["merge", "{D}/shard1/01-fit-the-model.csv", "{D}/shard2/01-fit-the-model.csv", "-o", "{D}/out/m.csv"],
        "grade": ["grade", "--quiet", seeds.keys[0], rng.choice(seeds.subs), "-o", "{D}/out/g.csv"],
        "explain": ["explain", scen, "--plan", "baseline"],
        "validate": ["validate", scen],
        "html": ["html", "--quiet", "{D}/r/01-fit-the-model.csv", "-o", "{D}/out"],
        "compare": ["compare", "{D}/r/01-fit-the-model.csv", "-o", "{D}/out/c.html"],
    }[cmd]
    argv = list(base)
    notes = []
    extra_paths = False  # a word that becomes one more input path
    for _ in range(rng.choice([1, 1, 2, 3])):
        form = rng.randrange(6)
        if form <= 2:
            opt = rng.choice(CLI_OPTIONS[cmd])
            val = rng.choice(CLI_VALUES)
            argv += [opt, val]
            notes.append(f"{opt} {val[:20]!r}")
        elif form == 3:
            opt = rng.choice(CLI_OPTIONS[cmd])
            argv.append(opt)
            notes.append(f"{opt} without a value")
            # a later option word may become its value, and that word's
            # value one more path
            extra_paths = True
        elif form == 4:
            opt = rng.choice(["--bogus", "-x", "--", "---", "-", "--top=3", "--tp=8", "--help", "--version", "-oo"])
            argv.insert(rng.randrange(1, len(argv) + 1), opt)
            notes.append(f"option {opt!r}")
            extra_paths |= opt in ("-", "--", "---")
        else:
            i = rng.randrange(1, len(argv))
            argv.insert(i, argv[i])
            notes.append(f"argument {argv[i][:20]!r} repeated")
            extra_paths = True
    case = Case(ident, "cli", f"{cmd}: " + ", ".join(notes))
    if seeds.shards:
        for i, files in enumerate(seeds.shards):
            for f, data in files.items():
                case.files[f"shard{i + 1}/{f}"] = data
    case.files["r/01-fit-the-model.csv"] = seeds.reports.get("01-fit-the-model.csv", b"")
    outdir = "{D}/out" if cmd in ("run", "merge", "grade", "html", "compare") else None
    # The same scenario twice is two files of one name: the first runs
    # (docs/scenarios.md), so its report and ok line are no finding.
    # Likewise a word that became one more path ("-", or what follows "--"):
    # a missing file is reported and the others still run.
    # explain and calibrate read one scenario: there a second path is
    # refused whole, nothing printed.
    multi = extra_paths and cmd not in ("explain", "calibrate")
    case.commands.append((cmd, argv, {"outdir": None if multi else outdir, "check": cmd == "check",
                                      "cli": True, "multi": multi}))
    return case


def case_filesystem(rng, seeds, ident):
    what = rng.choice(["dir", "emptydir", "fifo", "devnull", "missing", "loop", "outfile", "devfull", "outmissing"])
    case = Case(ident, "filesystem", what)
    scen = os.path.join(seeds.src, "scenarios", "drills", "01-fit-the-model.yaml")
    target = "{D}/s.yaml"
    if what == "dir":
        # Only a directory named like a scenario inside: nothing to run.
        case.files["s.yaml/sub.yaml/x"] = b""
    elif what == "emptydir":
        case.special.append(("s.yaml", "dir"))
    elif what == "fifo":
        case.special.append(("s.yaml", "fifo"))
    elif what == "devnull":
        case.special.append(("null", "null"))
        target = "{D}/null"
    elif what == "missing":
        target = "{D}/does-not-exist.yaml"
    elif what == "loop":
        case.special.append(("s.yaml", "loop"))
    else:
        case.files["s.yaml"] = read(scen)
    if what in ("outfile", "devfull", "outmissing"):
        case.files["blocker"] = b"a file"
        case.special += [("full", "full"), ("fifo", "fifo")]
        out = {"outfile": "{D}/blocker/sub", "devfull": "{D}/full", "outmissing": "/proc/planeval-no"}[what]
        case.commands += [
            ("run", ["run", "--quiet", "-o", out, target], {"io": True}),
            ("grade", ["grade", "--quiet", seeds.keys[0], seeds.subs[0], "-o", out if what != "devfull" else "{D}/full"], {"io": True}),
            ("grade-fifo", ["grade", "--quiet", seeds.keys[0], seeds.subs[0], "-o", "{D}/fifo"], {"io": True}),
            ("merge", ["merge", "--quiet", "{D}/shard1/01-fit-the-model.csv", "{D}/shard2/01-fit-the-model.csv",
                       "-o", (out + "/m.csv") if what != "devfull" else "{D}/full"], {"io": True}),
        ]
        for i, files in enumerate(seeds.shards):
            for f, data in files.items():
                case.files[f"shard{i + 1}/{f}"] = data
        return case
    kinds = {"scenario": True, "fs": True}
    case.commands += [
        ("validate", ["validate", target], kinds),
        ("run", ["run", "--quiet", "-o", "{D}/out", target], dict(kinds, outdir="{D}/out")),
        ("explain", ["explain", target, "--plan", "baseline"], kinds),
        ("check", ["check", "--quiet", target], dict(kinds, check=True)),
        ("catalog", ["validate", "--catalog", target, scen], kinds),
        ("grade", ["grade", "--quiet", seeds.keys[0], target, "-o", "{D}/out/g.csv"], dict(kinds, outdir="{D}/out")),
        ("calibrate", ["calibrate", target], kinds),
        ("merge", ["merge", "--quiet", target, "-o", "{D}/out/m.csv"], dict(kinds, outdir="{D}/out")),
        ("html", ["html", "--quiet", target, "-o", "{D}/out"], dict(kinds, outdir="{D}/out")),
        ("compare", ["compare", target, "-o", "{D}/out/c.html"], dict(kinds, outdir="{D}/out")),
    ]
    return case


def resign(body):
    """A checkpoint body with its CRC-32 line (zlib), as checkpoint_write ends it."""
    return body + b"crc32 %08x\n" % zlib.crc32(body)


def forge_checkpoint(rng, data):
    """One edit of a checkpoint's lines, re-signed (mostly): the checksum
    holds, so only the reader's own checks stand between it and a report."""
    what = rng.choice(["number", "number", "number", "drop", "dup", "swap", "row", "key",
                       "truncate", "blank", "huge", "unsigned"])
    if what == "unsigned":  # the last line kept as it was: a plain damaged file
        return data[: rng.randrange(len(data))] if data else data, "cut, not re-signed"
    lines = data.split(b"\n")
    body = lines[:-2] if lines[-1] == b"" else lines[:-1]  # without the crc32 line
    i = rng.randrange(len(body)) if body else 0
    if what in ("number", "huge") and body:
        nums = [(k, m) for k, l in enumerate(body) for m in re.finditer(rb"-?\d+", l)]
        if nums:
            k, m = rng.choice(nums)
            v = int(m.group(0))
            new = rng.choice([str(v + 1), str(v - 1), "0", "-1", str(2 * v + 1), str(v // 2),
                              "18446744073709551615", "18446744073709551616", "99999999999999999999"]
                             if what == "number" else ["1e308", "nan", "0x10", "", "1.5", "+3"])
            body[k] = body[k][:m.start()] + new.encode() + body[k][m.end():]
    elif what == "drop" and body:
        del body[i]
    elif what == "dup" and body:
        body.insert(i, body[i])
    elif what == "swap" and len(body) > 1:
        j = rng.randrange(len(body))
        body[i], body[j] = body[j], body[i]
    elif what == "row":
        body.insert(i, str(rng.choice([0, 1, 7, 4095, 2 ** 32, 2 ** 63 - 1, 2 ** 64 - 1])).encode())
    elif what == "key" and body:
        body[i] = re.sub(rb"^[a-z_]+", lambda m: rng.choice([b"", m.group(0).upper(), m.group(0) + b"x",
                                                            b"rows", b"next"]), body[i])
    elif what == "truncate" and body:
        joined = b"\n".join(body)
        body = joined[:rng.randrange(len(joined))].split(b"\n")
    elif what == "blank":
        body.insert(i, rng.choice([b"", b" ", b"\t", b"\x00", b"\xff"]))
    return resign(b"\n".join(body) + b"\n"), f"re-signed after: {what} at line {i + 1}"


def report_shape(data):
    """A report's row count, whether its plans are distinct, and its plan
    indices: what a taken checkpoint must keep."""
    rows = list(csv.reader(io.StringIO(data.decode("utf-8", "replace"))))
    if not rows or "plan_index" not in rows[0]:
        return (0, False, ())
    at = rows[0].index("plan_index")
    idx = tuple(r[at] for r in rows[1:] if len(r) > at)
    return (len(rows) - 1, len(set(idx)) == len(idx), idx)


def case_resume(rng, seeds, ident):
    r = seeds.resume
    if not r:
        return case_cli(rng, seeds, ident)
    data, note = forge_checkpoint(rng, r["checkpoint"])
    case = Case(ident, "resume", note)
    case.files[f"out/{r['name']}.checkpoint"] = data
    case.commands.append(("resume", ["run", "--quiet", "--resume", "--threads", "1", "--top", "5",
                                     "--shard", f"0/{r['shards']}", "-o", "{D}/out", r["scenario"]],
                          {"resume": r}))
    return case


MAKERS = [(case_scenario, 10), (case_catalog, 2), (case_grade, 2), (case_calibrate, 2),
          (case_report, 3), (case_cli, 4), (case_filesystem, 1), (case_resume, 1)]


def make_case(seed, index, seeds):
    rng = random.Random(f"{seed}:{index}")
    makers = [m for m, w in MAKERS for _ in range(w)]
    return rng.choice(makers)(rng, seeds, index)


# ---------------------------------------------------------------- running
def materialise(case, d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for name, data in case.files.items():
        p = os.path.join(d, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data.replace(b"{D}", d.encode()) if name.endswith(".csv") else data)
    for name, what in case.special:
        p = os.path.join(d, name)
        if what == "dir":
            os.makedirs(p, exist_ok=True)
        elif what == "fifo":
            if not os.path.exists(p):
                os.mkfifo(p)
        elif what == "loop":
            os.symlink(p, p)
        elif what in ("null", "full"):
            # A private copy of /dev/null or /dev/full: never the machine's
            # own, which a writer that renames over its output would replace.
            try:
                os.mknod(p, 0o666 | stat.S_IFCHR, os.makedev(1, 3 if what == "null" else 7))
            except OSError:
                os.mkfifo(p)


def signed_columns_ok(header, col):
    return bool(SIGNED_COLUMN.search(header[col])) if col < len(header) else True


# Columns that echo what a user wrote (a submission's answer, a message).
TEXT_COLUMN = {"submitted", "error", "feedback", "file", "note", "reason", "plan", "student",
               "question", "scenario", "basis", "source"}
HTML_NONFINITE = re.compile(r'="[^"]*(?<![A-Za-z_])-?(nan|inf|NaN|Infinity)(?![A-Za-z_])[^"]*"')


def scan_outputs(root):
    """Problems in report files (nan/inf anywhere, negatives where not signed)."""
    problems = []
    for r, _, files in os.walk(root):
        for f in files:
            p = os.path.join(r, f)
            if f.endswith(".html"):
                try:
                    m = HTML_NONFINITE.search(open(p, encoding="utf-8", errors="replace").read())
                except OSError:
                    m = None
                if m:
                    problems.append(f"{f}: {m.group(0)[:80]}")
                continue
            if not f.endswith(".csv"):
                continue
            try:
                text = open(p, encoding="utf-8", errors="replace").read()
            except OSError:
                continue
            lines = text.split("\n")
            header = lines[0].split(",") if lines else []
            for ln, line in enumerate(lines[1:], 2):
                # Plain split: a quoted cell with a comma only shifts the check.
                for col, cell in enumerate(line.split(",")):
                    c = cell.strip('"')
                    if col < len(header) and header[col] in TEXT_COLUMN:
                        continue
                    if NONFINITE.fullmatch(c):
                        problems.append(f"{f}:{ln}: {header[col] if col < len(header) else col}={c}")
                    elif re.fullmatch(r"-\d+(\.\d*)?([eE][-+]?\d+)?", c) and float(c) != 0 \
                            and not signed_columns_ok(header, col):
                        problems.append(f"{f}:{ln}: {header[col]}={c}")
    return problems


def run_one(planeval, argv, d, timeout, env):
    try:
        proc = subprocess.Popen([planeval] + argv, cwd=d, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                start_new_session=True)
    except OSError as e:
        return None, b"", str(e).encode(), False
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err, False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return proc.returncode, out, err, True


POSITION_LINE = re.compile(r"^(.+):(\d+):(\d+): error: \S.*$")
MORE_LINE = re.compile(r"^(.+): error: \.\.\. and \d+ more errors?$")
FILE_LINE = re.compile(r"^(.+): error: \S.*$")


def classify(case, label, argv, flags, rc, out, err, timed_out, d):
    findings = []
    errtext = err.decode("utf-8", "replace")
    if timed_out:
        return [("timeout", "no answer within the timeout")]
    if SANITIZER.search(errtext):
        m = re.search(r"SUMMARY: \S+: (.*)|runtime error: (.*)|ERROR: (\S+: \S+)", errtext)
        sig = next((g for g in m.groups() if g), "") if m else "sanitizer"
        return [("crash", re.sub(r"0x[0-9a-f]+|\d+", "N", sig)[:160])]
    if rc is None or rc < 0 or rc >= 128:
        return [("crash", f"signal or status {rc}")]
    allowed = {0, 2, 3} if flags.get("io") else {0, 2}
    if flags.get("check"):
        allowed.add(1)
    if rc not in allowed:
        last = errtext.strip().splitlines()[-1] if errtext.strip() else ""
        findings.append(("status", f"exit {rc}: " + re.sub(r"/\S*/", "DIR/", last)[:160]))
    resume = flags.get("resume")
    if resume:
        # A forged checkpoint is refused (2, said, no report written), or
        # taken, and then the report is the uninterrupted run's, byte for byte.
        report = os.path.join(d, "out", resume["name"] + ".csv")
        if rc == 0 and not os.path.isfile(report):
            findings.append(("wrong", "a checkpoint was taken and no report written"))
        elif rc == 0 and read(report) != resume["report"]:
            # Taken, and another report: only a forgery no check short of
            # evaluating the done prefix again can see (a kept row swapped
            # for another plan of its status: docs/sweeps.md) may do that.
            # Such a plan ranks below every row it replaces (the kept rows
            # were the prefix's best), so the rows the resumed part found
            # (plan_index >= next) all stay, and the count stays.
            got, want = report_shape(read(report)), report_shape(resume["report"])
            lost = [i for i in want[2] if int(i) >= resume["next"] and i not in got[2]]
            if got[0] != want[0] or not got[1] or lost:
                findings.append(("wrong", f"a forged checkpoint was taken: {got[0]} rows (the run: "
                                          f"{want[0]}), distinct {got[1]}, rows of the resumed "
                                          f"part lost: {lost[:3]}"))
        if rc == 2 and os.path.exists(report):
            findings.append(("leftover", "a report beside a refused checkpoint"))
        if rc == 2 and not errtext.strip():
            findings.append(("format", "no message on stderr"))
        return findings
    outdir = flags.get("outdir")
    outdir = outdir.replace("{D}", d) if outdir else None
    if rc == 0:
        for p in scan_outputs(outdir) if outdir and os.path.isdir(outdir) else []:
            findings.append(("garbage", p))
            break
        if NONFINITE_FIGURE.search(out.decode("utf-8", "replace")) and label in ("explain", "memory", "collective", "bubble", "calibrate"):
            findings.append(("garbage", "nan/inf on stdout"))
    if rc in (2, 3) and not flags.get("io"):
        if out.strip() and not flags.get("multi") and not (flags.get("check") and re.fullmatch(rb"0 passed, 0 failed.*\n?", out.strip())):
            findings.append(("stdout", out.decode("utf-8", "replace").strip().splitlines()[0][:120]))
        if not errtext.strip():
            findings.append(("format", "no message on stderr"))
        if flags.get("scenario") and not flags.get("fs") and not flags.get("catalog"):
            for line in errtext.splitlines():
                if "warning:" in line and ": error:" not in line:
                    continue
                if label == "explain" and FILE_LINE.match(line) and "plan" in line:
                    continue  # --plan names no plan of the scenario: an option's mistake
                if not (POSITION_LINE.match(line) or MORE_LINE.match(line)):
                    findings.append(("format", re.sub(r"/tmp/\S*|\d+", "N", line)[:160]))
                    break
        if outdir and os.path.isdir(outdir):
            left = [f for _, _, fs in os.walk(outdir) for f in fs]
            if left:
                findings.append(("leftover", ", ".join(sorted(left))[:160]))
    return findings


def execute(case, planeval, work, timeout, env, keep):
    d = os.path.join(work, "cases", f"c{case.ident}")
    findings = []
    # The inputs are written once; the commands only write under out*/.
    materialise(case, d)
    for label, argv, flags in case.commands:
        for o in ("out", "out2"):
            if not flags.get("resume"):
                shutil.rmtree(os.path.join(d, o), ignore_errors=True)
        real = [a.replace("{D}", d) for a in argv]
        rc, out, err, timed_out = run_one(planeval, real, d, timeout, env)
        if timed_out:
            # Slow is not hung: a second try with a longer limit.
            materialise(case, d)
            rc, out, err, timed_out = run_one(planeval, real, d, timeout * 6, env)
        for cls, sig in classify(case, label, real, flags, rc, out, err, timed_out, d):
            findings.append((cls, label, sig, real, rc, err))
        for name, what in case.special:
            # A device or FIFO given as an output must be left as it was.
            p = os.path.join(d, name)
            kind = stat.S_ISCHR if what in ("null", "full") else stat.S_ISFIFO if what == "fifo" else None
            if kind and os.path.lexists(p) and not kind(os.lstat(p).st_mode):
                findings.append(("clobbered", label, f"{name} ({what}) replaced by a regular file", real, rc, err))
                materialise(case, d)
    if findings or keep:
        kept = os.path.join(work, "findings", f"c{case.ident}")
        if findings:
            shutil.rmtree(kept, ignore_errors=True)
            os.makedirs(kept)
            for name, data in case.files.items():
                p = os.path.join(kept, name)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "wb") as f:
                    f.write(data)
            with open(os.path.join(kept, "README"), "w") as f:
                f.write(f"{case.kind}: {case.note}\nspecial: {case.special}\n")
                for cls, label, sig, real, rc, err in findings:
                    f.write(f"\n[{cls}] {label}: {sig}\nexit {rc}\n$ planeval {' '.join(map(repr, real))}\n")
                    f.write(err.decode("utf-8", "replace")[:4000] + "\n")
    shutil.rmtree(d, ignore_errors=True)
    return findings


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("planeval")
    ap.add_argument("src")
    ap.add_argument("work")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--progress", type=int, default=0, help="a count line every N cases")
    ap.add_argument("--kind", default="", help="only cases of this kind")
    args = ap.parse_args()
    if not os.access(args.planeval, os.X_OK):
        print(f"skip: no planeval binary at {args.planeval}")
        return 77
    planeval = os.path.abspath(args.planeval)
    args.src = os.path.abspath(args.src)
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    shutil.rmtree(os.path.join(work, "findings"), ignore_errors=True)
    seeds = Seeds(args)
    seeds.make_reports(planeval, work)
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    seeds.make_checkpoint(planeval, work, env)
    if not seeds.resume:
        print("hostile_fuzz: note: the checkpoint run finished before SIGINT; no resume cases")
    indices = range(args.first, args.first + args.cases)
    lock = threading.Lock()
    by_class = collections.Counter()
    distinct = collections.OrderedDict()
    commands = collections.Counter()
    by_kind = collections.Counter()

    stop = threading.Event()
    # SIGTERM or SIGINT: finish the cases in hand, skip the rest, and still
    # print the counts (a long campaign stopped at a deadline says what it did).
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())

    def job(index):
        if stop.is_set():
            return
        # Made here, not up front: a case may hold megabytes.
        case = make_case(args.seed, index, seeds)
        if args.kind and case.kind != args.kind:
            return
        f = execute(case, planeval, work, args.timeout, env, args.keep)
        with lock:
            by_kind[case.kind] += 1
            for label, _, _ in case.commands:
                commands[label] += 1
            for cls, label, sig, real, rc, err in f:
                by_class[cls] += 1
                distinct.setdefault((cls, label, sig), []).append(case.ident)
            done = sum(by_kind.values())
            if args.progress and done % args.progress == 0:
                print(f"hostile_fuzz: {done} cases, {sum(commands.values())} command runs, "
                      f"{sum(by_class.values())} findings", flush=True)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(job, indices))
    runs = sum(commands.values())
    print(f"hostile_fuzz: seed {args.seed}, {sum(by_kind.values())} cases "
          f"({', '.join(f'{k} {v}' for k, v in sorted(by_kind.items()))}), {runs} command runs "
          f"({', '.join(f'{k} {v}' for k, v in sorted(commands.items()))})")
    if not distinct:
        print("hostile_fuzz: no finding")
        return 0
    print(f"hostile_fuzz: {sum(by_class.values())} findings "
          f"({', '.join(f'{k} {v}' for k, v in sorted(by_class.items()))}), {len(distinct)} distinct:")
    for (cls, label, sig), idents in distinct.items():
        print(f"  [{cls}] {label}: {sig}  (cases {', '.join(map(str, idents[:5]))}"
              f"{' ...' if len(idents) > 5 else ''}; {work}/findings/c{idents[0]})")
    return 1


if __name__ == "__main__":
    sys.exit(main())
