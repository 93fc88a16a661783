#!/usr/bin/env python3
"""Every printer, fed hostile names (seeded, repeatable), keeps its format's
invariants: one diff header pair per file, no raw control byte on a terminal,
DOT with one digraph per input, JSON and SARIF that parse, HTML without a raw
bidi control or an unescaped tag.
   printer_fuzz.py TOOL [ROUNDS]"""
import json, os, random, subprocess, sys, tempfile

TOOL = os.path.abspath(sys.argv[1])
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 12
PIECES = ["\n", "\r", "\x1b[31m", "\x1b]0;t\x07", "\u202e", "\u2066", "::error::", "%0A", "%", '"', "'", "\\",
          "<script>", "&amp;", "+++ ", "--- ", "}", "// ", "a", "é"]
# Raw bytes a terminal must never receive from a name: ESC, BEL, CR, and the bidi controls.
FORBIDDEN = [b"\x1b", b"\x07", b"\r", "\u202e".encode(), "\u2066".encode()]


def hostile(rng, newline=True):
    pool = PIECES if newline else [p for p in PIECES if "\n" not in p and "\r" not in p and '"' not in p and "\\" not in p]
    return "".join(rng.choice(pool) for _ in range(rng.randint(1, 5)))


def run(args, cwd):
    return subprocess.run([TOOL] + args, cwd=cwd, capture_output=True, timeout=60)


def fail(message, detail=b""):
    sys.stdout.write(f"FAIL: {message}\n{detail[:600]!r}\n")
    sys.exit(1)


def check_round(rng, work):
    seed = open(os.path.join(os.path.dirname(__file__), "..", "..", "samples", "seed_mlp_before.ir")).read()
    op = "pd_op." + hostile(rng, newline=False).replace("}", "x")
    label = hostile(rng, newline=False)
    text = f"IR {label} = " + seed.replace('"pd_op.relu"', f'"{op}"', 1)
    names = []
    for _ in range(2):
        name = (hostile(rng) + ".ir").replace("/", "_")
        if name in names or name.startswith("-"):
            name = "x" + name
        names.append(name)
        with open(os.path.join(work, name), "w", encoding="utf-8") as f:
            f.write(text)
    diff = run(["apply", "--diff"] + names, work)
    heads = sum(1 for line in diff.stdout.split(b"\n") if line.startswith(b"--- "))
    if heads != len(names):
        fail(f"apply --diff wrote {heads} '--- ' headers for {len(names)} files", diff.stdout)
    for args in (["verify"] + names, ["list"] + names, ["print", "--brief"] + names, ["apply", "--check"] + names):
        out = run(args, work)
        for stream in (out.stdout, out.stderr):
            for byte in FORBIDDEN:
                if byte in stream:
                    fail(f"{args[0]} wrote a raw {byte!r} to a terminal stream", stream)
    github = run(["apply", "--check", "--error-format=github"] + names, work)
    if any(line.lstrip().startswith(b"::") and not line.startswith((b"::warning ", b"::error ", b"::notice "))
           for line in github.stderr.split(b"\n")):
        fail("a name became a workflow command", github.stderr)
    dot = run(["print", "--emit=dot"] + names, work).stdout
    if sum(1 for line in dot.split(b"\n") if line.startswith(b"digraph")) != len(names):
        fail("DOT holds a digraph a name made", dot)
    for emit in (["print", "--emit=json", names[0]], ["plan", "--apply", "--json", names[0]]):
        json.loads(run(emit, work).stdout.decode("utf-8"))
    sarif = run(["verify", "--error-format=sarif", "--bogus"] + names, work).stderr
    json.loads(sarif.decode("utf-8"))
    page = run(["print", "--emit=html", names[0]], work).stdout
    if "\u202e".encode() in page or b"<script>a" in page or b"<script>\"" in page:
        fail("the HTML page holds a raw bidi control or a name's tag", b"")


def main():
    rng = random.Random(27)
    for _ in range(ROUNDS):
        with tempfile.TemporaryDirectory() as work:
            check_round(rng, work)
    print("PASS")


main()
