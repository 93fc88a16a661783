#!/usr/bin/env python3
"""Runs every command README.md shows and compares its output with what the
README shows under it, so the README cannot drift from the tool. Run by ctest
(README.runs); `tests/readme_test.py BUILD_DIR [README]` by hand.

What counts as an example (README "Development" says the same to writers):
- A ```console block holds commands, each on a line starting with `$ `, and
  under each what it prints (standard output and standard error together, as
  a terminal shows them) up to the next `$ ` line or the block's end. Other
  blocks (```sh: setup steps, ``` text) are not run.
- Each command runs through `sh -c` in a scratch copy of the repository (so
  `samples/...`, `tests/...` and pipelines through `head`, `cut`, `grep`,
  `patch` work as from the repository root, and files a command writes land
  in the copy); the commands of the README run in order in the same copy,
  each from its root. `reshardctl` is the build's, first on PATH; colour is
  off (NO_COLOR).
- A line of the expected output that is `...` alone stands for any number of
  lines (none included): the elision for long outputs. Every other line must
  equal the output's, trailing blanks aside.
- A comment on the line right above the block's opening fence changes how
  its commands run:
    <!-- readme-test: skip (REASON) -->   not run (a GPU, a network, minutes)
    <!-- readme-test: needs TOOL -->      run where TOOL is on PATH, else skipped
    <!-- readme-test: needs backend NAME -->  run where `reshardctl --version`
                                           lists the backend (nccl), else skipped
    <!-- readme-test: times vary -->      numbers with a decimal point (times,
                                           bandwidths) match any such number
  Skipped commands are listed with their reason on every run; none is skipped
  without a mark. The test fails when a subcommand of `reshardctl --help` has
  no example that ran.
"""
import difflib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARK = re.compile(r"^\s*<!--\s*readme-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
DECIMAL = re.compile(r" *-?[0-9]+\.[0-9]+")
TIMEOUT_S = 60


class Example:
    def __init__(self, line, command, expected, mark):
        self.line, self.command, self.expected, self.mark = line, command, expected, mark


def parse_mark(text):
    """('skip', reason) | ('needs', tool) | ('times', None); exits on an unknown mark."""
    if text.startswith("skip"):
        reason = text[len("skip"):].strip()
        if not (reason.startswith("(") and reason.endswith(")") and len(reason) > 2):
            sys.exit(f"FAIL: a skip mark needs a reason in parentheses: {text!r}")
        return ("skip", reason[1:-1])
    if text.startswith("needs "):
        return ("needs", text[len("needs "):].strip())
    if text == "times vary":
        return ("times", None)
    sys.exit(f"FAIL: unknown readme-test mark {text!r}")


def examples(readme):
    """Every command of every console block, with its expected lines."""
    name = readme.name
    lines = readme.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent, kind = fence.group(1), fence.group(2)
        above = MARK.match(lines[i - 1]) if i > 0 else None
        mark = parse_mark(above.group(1)) if above else None
        end = i + 1
        while end < len(lines) and not re.match(r"^\s*```\s*$", lines[end]):
            end += 1
        if kind == "console":
            body = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines[i + 1:end]]
            for k, text in enumerate(body):
                if text.startswith("$ "):
                    expected = []
                    for following in body[k + 1:]:
                        if following.startswith("$ "):
                            break
                        expected.append(following)
                    found.append(Example(i + 2 + k, text[2:], expected, mark))
                elif k == 0:
                    sys.exit(f"FAIL: {name}:{i + 2}: a console block starts with a command ('$ ...')")
        elif mark:
            sys.exit(f"FAIL: {name}:{i + 1}: a readme-test mark above a block that is not ```console")
        i = end + 1
    return found


def matches(expected, actual):
    """Line lists equal, where an expected line '...' matches any run of lines."""
    memo = {}

    def at(e, a):
        if (e, a) not in memo:
            if e == len(expected):
                result = a == len(actual)
            elif expected[e] == "...":
                result = any(at(e + 1, k) for k in range(a, len(actual) + 1))
            else:
                result = a < len(actual) and expected[e] == actual[a] and at(e + 1, a + 1)
            memo[(e, a)] = result
        return memo[(e, a)]

    return at(0, 0)


def normalised(lines, mark):
    lines = [line.rstrip() for line in lines]
    if mark and mark[0] == "times":
        lines = [DECIMAL.sub(" <number>", line) for line in lines]
    return lines


def scratch_copy(target):
    """The repository's files (no build folders, no .git) under `target`."""
    def ignored(folder, names):
        top = pathlib.Path(folder) == ROOT
        return [n for n in names if n == ".git" or (top and (n.startswith("build") or n.startswith(".")))]
    shutil.copytree(ROOT, target, ignore=ignored, symlinks=True)


def backends(tool):
    """The backends `reshardctl --version` lists: "backends: cpu, nccl (CUDA 13.0); ..."."""
    text = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout
    listed = re.search(r"^backends: ([^;]*)", text, re.M)
    return {word.split()[0] for word in listed.group(1).split(", ")} if listed else set()


def missing_need(need, tool):
    """Why a command marked `needs NEED` cannot run here, or None."""
    if need.startswith("backend "):
        name = need[len("backend "):]
        return None if name in backends(tool) else f"needs the {name} backend, which this build lacks"
    return None if shutil.which(need) else f"needs {need}, which is not installed"


def subcommands(tool):
    text = subprocess.run([tool, "--help"], capture_output=True, text=True).stdout
    section = text.split("Subcommands:", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in section.splitlines() if line.strip()]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    build = pathlib.Path(sys.argv[1]).resolve()
    readme = pathlib.Path(sys.argv[2]) if len(sys.argv) == 3 else ROOT / "README.md"
    tool = build / "reshardctl"
    if not tool.exists():
        sys.exit(f"FAIL: no {tool}: build it first")
    bin_dir = pathlib.Path(tempfile.mkdtemp(prefix="readme-bin-"))
    (bin_dir / "reshardctl").symlink_to(tool)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", NO_COLOR="1", TERM="dumb",
               LC_ALL="C.UTF-8")
    env.pop("RESHARDCTL_NCCL_LIB", None)
    failures, skipped, ran = [], [], 0
    covered = set()
    with tempfile.TemporaryDirectory(prefix="readme-") as work:
        copy = pathlib.Path(work) / "repo"
        scratch_copy(copy)
        for example in examples(readme):
            where = f"{readme.name}:{example.line}: $ {example.command}"
            mark = example.mark
            if mark and mark[0] == "skip":
                skipped.append(f"{where}\n    skipped: {mark[1]}")
                continue
            why = missing_need(mark[1], tool) if mark and mark[0] == "needs" else None
            if why:
                skipped.append(f"{where}\n    skipped: {why}")
                continue
            try:
                done = subprocess.run(["sh", "-c", example.command], cwd=copy, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, timeout=TIMEOUT_S)
                output = done.stdout.decode("utf-8", errors="replace").splitlines()
            except subprocess.TimeoutExpired:
                failures.append(f"{where}\n    ran over {TIMEOUT_S} s")
                continue
            ran += 1
            words = example.command.split()
            for k, word in enumerate(words[:-1]):
                if os.path.basename(word) == "reshardctl":
                    covered.add(words[k + 1])
            expected, actual = normalised(example.expected, mark), normalised(output, mark)
            if not matches(expected, actual):
                diff = "\n".join(difflib.unified_diff(expected, actual, "README", "actual", lineterm="", n=2))
                failures.append(f"{where}\n{diff}")
    shutil.rmtree(bin_dir)
    for line in skipped:
        print(f"SKIP {line}")
    missing = [s for s in subcommands(tool) if s not in covered]
    if missing:
        failures.append("subcommands without an example that ran: " + ", ".join(missing))
    for failure in failures:
        print(f"FAIL {failure}\n")
    print(f"{ran} commands of {readme.name} ran, {len(failures)} failed, {len(skipped)} skipped (marked in it)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
