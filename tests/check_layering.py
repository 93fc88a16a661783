#!/usr/bin/env python3
"""Checks that no non-test file of a stage includes a header of a stage it
may not use. STAGES_FILE (written by cmake/stages.cmake) lists, per stage,
the include roots it may use besides its own. grammar/ may include nothing
of ours. Tests (*_test.cpp) may include any stage.

It also keeps the tree readable: at most 6 files directly in src/, at most
35 files in any folder under it, and no source file over 700 lines.

usage: check_layering.py STAGES_FILE SOURCE_DIR
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/[^"]*"', re.MULTILINE)


def read_stages(path):
    allowed = {}
    for line in pathlib.Path(path).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, _, roots = line.partition(":")
        allowed[name.strip()] = set(roots.split())
    return allowed


def breaches(source_dir, allowed):
    roots = set(allowed) | {"grammar"}
    allowed = dict(allowed, grammar=set())
    found = []
    for stage in sorted(allowed):
        folder = source_dir / ("grammar" if stage == "grammar" else f"src/{stage}")
        for path in sorted(folder.rglob("*")):
            if path.suffix not in (".h", ".cpp", ".cu") or path.name.endswith("_test.cpp"):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for match in INCLUDE.finditer(text):
                root = match.group(1)
                if root in roots and root != stage and root not in allowed[stage]:
                    line = text.count("\n", 0, match.start()) + 1
                    found.append(f"{path.relative_to(source_dir)}:{line}: stage '{stage}' "
                                 f"includes '{root}/', which it may not use "
                                 f"(allowed: {', '.join(sorted(allowed[stage])) or 'none'})")
    return found


MAX_TOP_FILES = 6
MAX_FOLDER_FILES = 35
MAX_LINES = 700


def shape_problems(source_dir):
    src = source_dir / "src"
    found = []
    top = [p for p in src.iterdir() if p.is_file()]
    if len(top) > MAX_TOP_FILES:
        found.append(f"src/ holds {len(top)} files (at most {MAX_TOP_FILES}): move them into a stage")
    for folder in [src, *sorted(p for p in src.rglob("*") if p.is_dir())]:
        count = sum(1 for p in folder.iterdir() if p.is_file())
        if count > MAX_FOLDER_FILES:
            found.append(f"{folder.relative_to(source_dir)}/ holds {count} files (at most {MAX_FOLDER_FILES})")
    for path in sorted(src.rglob("*")):
        if path.suffix in (".h", ".cpp", ".cu"):
            lines = path.read_text(encoding="utf-8", errors="replace").count("\n")
            if lines > MAX_LINES:
                found.append(f"{path.relative_to(source_dir)}: {lines} lines (at most {MAX_LINES})")
    return found


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    allowed = read_stages(sys.argv[1])
    source_dir = pathlib.Path(sys.argv[2])
    missing = [s for s in allowed if not (source_dir / "src" / s).is_dir()]
    if missing:
        sys.exit(f"stages without a folder: {', '.join(missing)}")
    wrong_way = breaches(source_dir, allowed)
    shape = shape_problems(source_dir)
    for problem in wrong_way + shape:
        print(problem)
    print(f"{len(allowed) + 1} stages checked, {len(wrong_way)} wrong-way includes, "
          f"{len(shape)} tree-shape problems")
    sys.exit(1 if wrong_way or shape else 0)


if __name__ == "__main__":
    main()
