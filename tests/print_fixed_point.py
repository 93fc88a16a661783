#!/usr/bin/env python3
"""print is a fixed point on what people paste: for mutants of the round-trip
goldens and the samples (a line dropped, doubled, blanked, re-indented, its
trailing blanks taken, two lines joined, a value renumbered...), whenever
`reshardctl print` reads a mutant, printing its output again gives the same
bytes: print(print(x)) == print(x). A mutant it rejects is rejected with exit
1 (bad input) or 2 (several programs and no --program), never a crash or a
hang.

Found this way: a `pd_op.while` body whose `^` line was replaced by blanks
printed `^` and the blank line, which the next print dropped.

Usage: print_fixed_point.py TOOL SOURCE_DIR [--mutants N] [--seed S]
Bounded: N mutants a file (default 6) over the files below, each print
under a 10 s timeout; deterministic for a seed.
"""
import argparse
import glob
import os
import random
import re
import subprocess
import sys
import tempfile

INPUTS = ["samples/*.ir", "tests/golden/roundtrip/*.ir", "tests/golden/real/*.ir"]


def drop_line(lines, rng):
    del lines[rng.randrange(len(lines))]


def double_line(lines, rng):
    i = rng.randrange(len(lines))
    lines.insert(i, lines[i])


def blank_line(lines, rng):  # a line replaced by blanks (the while `^` finding)
    i = rng.randrange(len(lines))
    lines[i] = " " * rng.randrange(0, 9) + "\n"


def blank_structural_line(lines, rng):  # a `^...`, `{` or `}` line replaced by blanks
    structural = [i for i, line in enumerate(lines) if line.lstrip(" ")[:1] in ("^", "{", "}")]
    if structural:
        lines[rng.choice(structural)] = " " * rng.randrange(0, 9) + "\n"


def insert_blank_line(lines, rng):
    lines.insert(rng.randrange(len(lines) + 1), " " * rng.randrange(0, 9) + "\n")


def take_trailing_blanks(lines, rng):  # an editor's doing
    i = rng.randrange(len(lines))
    lines[i] = lines[i].rstrip(" \t\n") + ("\n" if lines[i].endswith("\n") else "")


def shift_indentation(lines, rng):
    i = rng.randrange(len(lines))
    shift = rng.choice([-4, -2, -1, 1, 2, 4])
    body = lines[i].lstrip(" ")
    lines[i] = " " * max(0, len(lines[i]) - len(body) + shift) + body


def join_lines(lines, rng):
    if len(lines) > 1:
        i = rng.randrange(len(lines) - 1)
        lines[i : i + 2] = [lines[i].rstrip("\n") + " " + lines[i + 1].lstrip(" ")]


def drop_final_newline(lines, rng):
    lines[-1] = lines[-1].rstrip("\n")


def crlf_line(lines, rng):
    i = rng.randrange(len(lines))
    if lines[i].endswith("\n") and not lines[i].endswith("\r\n"):
        lines[i] = lines[i][:-1] + "\r\n"


def renumber_value(lines, rng):  # an edited dump: numbering with gaps
    text = "".join(lines)
    numbers = sorted(set(re.findall(r"%(\d+)\b", text)), key=int)
    if numbers:
        old = rng.choice(numbers)
        text = re.sub(r"%" + old + r"\b", "%" + str(int(old) + rng.randrange(1, 50) * 1000), text)
        lines[:] = text.splitlines(keepends=True)


MUTATIONS = [drop_line, double_line, blank_line, blank_structural_line, insert_blank_line, take_trailing_blanks,
             shift_indentation, join_lines, drop_final_newline, crlf_line, renumber_value]


def run_print(tool, path):
    done = subprocess.run([tool, "print", path], capture_output=True, timeout=10)
    if done.returncode < 0 or done.returncode > 2:
        raise AssertionError(f"print crashed (exit {done.returncode}): {done.stderr.decode(errors='replace')}")
    return done.returncode, done.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tool")
    parser.add_argument("source_dir")
    parser.add_argument("--mutants", type=int, default=6)
    parser.add_argument("--seed", type=int, default=23)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    files = sorted(f for pattern in INPUTS for f in glob.glob(os.path.join(args.source_dir, pattern)))
    read = failures = tried = 0
    with tempfile.TemporaryDirectory() as work:
        mutant_path, again_path = os.path.join(work, "mutant.ir"), os.path.join(work, "printed.ir")
        for path in files:
            with open(path, encoding="utf-8", newline="") as f:
                original = f.read().splitlines(keepends=True)
            mutants = []
            for k in range(args.mutants):
                lines = list(original)
                applied = [rng.choice(MUTATIONS) for _ in range(rng.randrange(1, 3))]
                for mutate in applied:
                    if lines:
                        mutate(lines, rng)
                mutants.append((f"mutant {k} ({', '.join(m.__name__ for m in applied)})", lines))
            # And each block-argument line blanked, every one (few): the form
            # the `^` finding had, too rare for the random draw to meet.
            for i, line in enumerate(original):
                if line.lstrip(" ").startswith("^"):
                    mutants.append((f"line {i + 1} blanked", original[:i] + ["  \n"] + original[i + 1 :]))
            tried += len(mutants)
            for name, lines in mutants:
                with open(mutant_path, "w", encoding="utf-8", newline="") as f:
                    f.write("".join(lines))
                name = f"{os.path.relpath(path, args.source_dir)} {name}"
                try:
                    status, first = run_print(args.tool, mutant_path)
                    if status != 0:
                        continue  # rejected, with a diagnostic: fine
                    read += 1
                    with open(again_path, "wb") as f:
                        f.write(first)
                    status, second = run_print(args.tool, again_path)
                    if status != 0:
                        raise AssertionError("print cannot read its own output")
                    if second != first:
                        raise AssertionError("print(print(x)) != print(x)")
                except (AssertionError, subprocess.TimeoutExpired) as e:
                    failures += 1
                    kept = os.path.join(tempfile.gettempdir(), f"fixed_point_failure_{failures}.ir")
                    with open(kept, "w", encoding="utf-8", newline="") as f:
                        f.write("".join(lines))
                    print(f"FAIL {name}: {e} (mutant kept in {kept})")
    print(f"{len(files)} files, {tried} mutants, {read} read, {failures} failures")
    return 1 if failures or read == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
