#!/usr/bin/env python3
"""scripts/real_model.py's programs (forward, backward and an AdamW step)
through `validate --apply`: every layout the generator writes matches the
serial program, at full size and shrunk from a real size; a wrong annotation
of a grad is found at the same op at full size and after a shrink; `run`
shrinks them as validate does.

  real_model_test.py BUILD_DIR
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
GENERATOR = ROOT / "scripts" / "real_model.py"
MATCH = re.compile(r"^(\d+) of (\d+) ops match the serial program on (\d+) ranks$", re.M)


def generate(folder, name, args):
    path = folder / f"{name}.ir"
    text = subprocess.run([sys.executable, str(GENERATOR), *args], check=True, capture_output=True, text=True).stdout
    path.write_text(text)
    return path, text


def validate(binary, path, *flags):
    return subprocess.run([binary, "validate", "--apply", *flags, str(path)], capture_output=True, text=True,
                          timeout=300)


def check(failures, condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def main():
    binary = str(pathlib.Path(sys.argv[1]) / "reshardctl")
    failures = []
    with tempfile.TemporaryDirectory() as temp:
        folder = pathlib.Path(temp)
        # Every layout the generator writes: TP, TP x DP, pipeline stages, Llama and GPT blocks.
        for name, args in (("llama_tp2", ["--model", "tiny", "--layers", "2", "--tp", "2"]),
                           ("llama_tp2_dp2", ["--model", "tiny", "--layers", "2", "--tp", "2", "--dp", "2"]),
                           ("llama_tp2_pp2", ["--model", "tiny", "--layers", "2", "--tp", "2", "--pp", "2"]),
                           ("gpt_tp2_dp2_pp2", ["--model", "tiny-gpt", "--layers", "4", "--tp", "2", "--dp", "2",
                                                "--pp", "2"])):
            path, text = generate(folder, name, args)
            check(failures, all(op in text for op in ('"pd_op.matmul_grad"', '"pd_op.adamw_"', '"pd_op.add_grad"')),
                  f"{name}: the program holds the backward and the optimizer")
            run = validate(binary, path, "--shrink=off")
            found = MATCH.search(run.stdout)
            check(failures, run.returncode == 0 and found and found.group(1) == found.group(2),
                  f"{name}: every op matches ({run.stdout.strip()} {run.stderr.strip()[:300]})")
        # A real size shrunk: the grads' and the optimizer's relations hold, and every op still matches.
        path, _ = generate(folder, "llama7b_2", ["--model", "llama7b", "--layers", "2", "--tp", "2"])
        run = validate(binary, path, "--shrink=64")
        found = MATCH.search(run.stdout)
        check(failures, run.returncode == 0 and run.stdout.startswith("validated at 1/64 scale: ") and found and
              found.group(1) == found.group(2), f"llama7b, 2 layers, 1/64: every op matches ({run.stdout.strip()})")
        # run shrinks the same way: auto picks 1/16 for two Llama-7B layers (memory), and says so first.
        path, _ = generate(folder, "llama7b_run", ["--model", "llama7b", "--layers", "2", "--tp", "2"])
        run = subprocess.run([binary, "run", "--apply", str(path)], capture_output=True, text=True, timeout=300)
        lines = run.stdout.splitlines()
        check(failures, run.returncode == 0 and lines[0].startswith("run at 1/16 scale: 32000→2000, ") and
              lines[-1] == "12 passed, 0 failed", f"run: shrunk by auto, every reshard passes ({run.stdout[:200]})")
        run = subprocess.run([binary, "run", "--json", "--apply", "--shrink=4", str(folder / "llama_tp2.ir")],
                             capture_output=True, text=True, timeout=300)
        document = json.loads(run.stdout) if run.returncode == 0 else {}
        check(failures, document.get("shrink", {}).get("factor") == 4 and document.get("failed") == 0,
              f"run --json --shrink=4: the factor in the document ({run.stdout[:200]} {run.stderr[:200]})")
        # A grad that claims replicated what is a partial sum: found at its op, at full size and shrunk.
        places = []
        for name, args, shrink in (("wrong_tiny", ["--model", "tiny"], "--shrink=off"),
                                   ("wrong_llama7b", ["--model", "llama7b"], "--shrink=64")):
            path, text = generate(folder, name, [*args, "--layers", "2", "--tp", "2", "--mislabel"])
            run = validate(binary, path, shrink)
            at = re.search(r":(\d+):5: error: (pd_op\.matmul_grad) result 0", run.stderr)
            check(failures, run.returncode == 1 and at is not None, f"{name}: the wrong grad is found ({shrink})")
            places.append(at.group(1) if at else None)
        check(failures, places[0] is not None and places[0] == places[1],
              f"the wrong grad is found at the same line at full size and shrunk ({places})")
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
