#!/usr/bin/env python3
"""Runs README "In CI"'s GitHub Actions workflow and pre-commit configuration
here, so that the recipe a user copies works (ctest `README.ci-recipe`):
  tests/ci_recipe_test.py BUILD_DIR

- The workflow is the README's ```yaml block that starts `name: reshardctl`.
  Each step's `run:` runs as GitHub runs it (bash -e, from the checkout's root,
  GITHUB_PATH honoured), in a scratch folder holding a `logs/` folder of
  training logs; the step that builds reshardctl (it runs scripts/setup.sh) is
  replaced by putting BUILD_DIR's reshardctl on PATH. The steps must pass on
  logs where Paddle's pass agrees with ours, the SARIF file the upload step
  names must be a SARIF 2.1.0 log, and the check-pass step must fail (exit 1)
  once a log where they differ is added.
- The workflow checks out no other repository: reshardctl's sources are the
  checkout's submodule `.reshardctl`, which the build step's setup.sh is in.
- The pre-commit configuration is the ```yaml block that starts `repos:`:
  a local repository (no URL to replace) whose hooks are copies of
  .pre-commit-hooks.yaml's (id, entry, language, files).
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent


def yaml_blocks(text):
    return [m.group(1) for m in re.finditer(r"^```yaml\n(.*?)^```", text, re.M | re.S)]


def block_starting(blocks, start):
    found = [b for b in blocks if b.startswith(start)]
    if len(found) != 1:
        sys.exit(f"FAIL: README.md holds {len(found)} ```yaml blocks starting {start!r}, expected 1")
    return yaml.safe_load(found[0])


def run_steps(workflow, work, env):
    """Runs every step's `run`; returns {step name: exit status} and the SARIF files named."""
    statuses, sarif = {}, []
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            if "with" in step and "sarif_file" in step["with"]:
                sarif.append(work / step["with"]["sarif_file"])
            if "run" not in step:
                continue
            if "scripts/setup.sh" in step["run"]:  # the build: this build's binary instead
                (work / "path").write_text(str(pathlib.Path(sys.argv[1]).resolve()) + "\n")
                continue
            path = [line for line in (work / "path").read_text().splitlines() if line]
            step_env = dict(env, PATH=os.pathsep.join(path + [env["PATH"]]))
            result = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=work, env=step_env,
                                    capture_output=True, text=True, timeout=120)
            statuses[step["name"]] = result.returncode
            if result.returncode != 0:
                print(f"step '{step['name']}' exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return statuses, sarif


def main():
    blocks = yaml_blocks((ROOT / "README.md").read_text())
    workflow = block_starting(blocks, "name: reshardctl")
    config = block_starting(blocks, "repos:")
    ours = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    named = {hook["id"] for repo in config["repos"] for hook in repo["hooks"]}
    if not named or not named <= ours.keys():
        sys.exit(f"FAIL: the pre-commit configuration names {sorted(named - ours.keys())}, not hooks of ours")
    # A local repository (no URL for the user to replace), each hook a copy of ours.
    for repo in config["repos"]:
        if repo["repo"] != "local":
            sys.exit(f"FAIL: the pre-commit configuration names the repository {repo['repo']!r}, which the user has to replace")
        for hook in repo["hooks"]:
            for key in ("entry", "language", "files"):
                if hook.get(key) != ours[hook["id"]][key]:
                    sys.exit(f"FAIL: hook {hook['id']}'s {key} is {hook.get(key)!r}, not .pre-commit-hooks.yaml's {ours[hook['id']][key]!r}")

    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    # The workflow depends on no repository but the user's own: reshardctl's sources come
    # with its checkout (a submodule), and the build runs the setup.sh found there.
    if any("repository" in step.get("with", {}) for step in steps):
        sys.exit("FAIL: the workflow checks out another repository (a name the user has to replace)")
    checkouts = [step for step in steps if str(step.get("uses", "")).startswith("actions/checkout@")]
    if len(checkouts) != 1 or checkouts[0].get("with", {}).get("submodules") is not True:
        sys.exit("FAIL: the workflow does not check out the repository once with its submodules")
    if not any(".reshardctl/scripts/setup.sh" in step.get("run", "") for step in steps):
        sys.exit("FAIL: no step builds reshardctl from the vendored .reshardctl")

    with tempfile.TemporaryDirectory() as scratch:
        work = pathlib.Path(scratch)
        (work / "logs" / "rank1").mkdir(parents=True)
        shutil.copy(ROOT / "tests/golden/logs/train.log", work / "logs")
        shutil.copy(ROOT / "tests/golden/logs/cinn_2025.log", work / "logs/rank1")
        (work / "logs/rank1/worker.log").write_text("I1130 10:00:03.100001 41234 executor.cc:52] step 1\n")
        (work / "path").touch()
        env = dict(os.environ, GITHUB_PATH=str(work / "path"), RUNNER_TEMP=str(work), NO_COLOR="1")

        statuses, sarif = run_steps(workflow, work, env)
        if not statuses or any(statuses.values()):
            sys.exit(f"FAIL: on agreeing logs the workflow's steps exited {statuses}")
        if not sarif:
            sys.exit("FAIL: the workflow uploads no SARIF file")
        for path in sarif:
            log = json.loads(path.read_text())
            if log.get("version") != "2.1.0" or not log.get("runs"):
                sys.exit(f"FAIL: {path.name} is not a SARIF 2.1.0 log")

        shutil.copy(ROOT / "tests/golden/check_pass/drift.log", work / "logs")
        statuses, _ = run_steps(workflow, work, env)
        failed = {name: status for name, status in statuses.items() if status != 0}
        if not any("check-pass" in name.lower() or "partition pass" in name.lower() for name in failed) or \
                any(status != 1 for status in failed.values()):
            sys.exit(f"FAIL: with a log where Paddle's pass differs, the steps exited {statuses}")
    print("ok")


if __name__ == "__main__":
    main()
