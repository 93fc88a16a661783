#!/usr/bin/env python3
"""Runs a reshardctl command and validates what it wrote against a JSON schema
(python3-jsonschema, Debian's package; schema/*.json refer to each other, and
are all loaded). Run by ctest (tests/json_tests.cmake).

usage: validate_json.py SCHEMA [--stderr] [--lines] [--sarif] [--exit N] -- COMMAND...
       validate_json.py SCHEMA --invalid FILE

--stderr   validate standard error instead of standard output
--lines    one document per line (--error-format=json); at least one line
--sarif    also check what GitHub code scanning needs beyond the schema
--exit N   the command's expected exit status (default 0)
--invalid  FILE must NOT validate: proves that the validator rejects
"""
import json
import pathlib
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("FAIL: python3-jsonschema is missing (scripts/setup.sh installs it)")

ROOT = pathlib.Path(__file__).resolve().parent.parent


def load_store():
    store = {}
    for path in list((ROOT / "schema").glob("*.json")) + list((ROOT / "tests" / "data").glob("*.json")):
        schema = json.loads(path.read_text())
        key = schema.get("$id") or schema.get("id")
        if key:
            store[key] = schema
    return store


def validator(schema_path):
    schema = json.loads(pathlib.Path(schema_path).read_text())
    cls = jsonschema.validators.validator_for(schema)
    store = load_store()
    try:  # jsonschema >= 4.18
        import referencing
        import referencing.jsonschema
        registry = referencing.Registry().with_resources(
            (uri, referencing.jsonschema.specification_with(
                doc.get("$schema", "http://json-schema.org/draft-07/schema#")).create_resource(doc))
            for uri, doc in store.items())
        return cls(schema, registry=registry)
    except ImportError:  # Debian 12's 4.10
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        return cls(schema, resolver=resolver)


def errors_of(check, document):
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '/'}: {e.message}"
            for e in check.iter_errors(document)]


def github_problems(log):
    """What code scanning's upload needs that the schema leaves optional."""
    problems = []
    for run in log.get("runs", []):
        if not run.get("tool", {}).get("driver", {}).get("name"):
            problems.append("run without tool.driver.name")
        rules = {rule.get("id") for rule in run.get("tool", {}).get("driver", {}).get("rules", [])}
        for i, result in enumerate(run.get("results", [])):
            where = f"results/{i}"
            if not result.get("ruleId"):
                problems.append(f"{where}: no ruleId")
            elif result["ruleId"] not in rules:
                problems.append(f"{where}: ruleId {result['ruleId']!r} is not among the driver's rules")
            if not result.get("message", {}).get("text"):
                problems.append(f"{where}: no message.text")
            locations = result.get("locations", [])
            if not locations:
                problems.append(f"{where}: no location")
            for location in locations:
                physical = location.get("physicalLocation", {})
                uri = physical.get("artifactLocation", {}).get("uri", "")
                if not uri or uri.startswith("/"):
                    problems.append(f"{where}: artifact uri {uri!r} is not a relative or file: URI")
                if physical.get("region", {}).get("startLine", 0) < 1:
                    problems.append(f"{where}: no region.startLine")
    return problems


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    check = validator(args.pop(0))
    if args[:1] == ["--invalid"]:
        problems = errors_of(check, json.loads(pathlib.Path(args[1]).read_text()))
        if not problems:
            sys.exit(f"FAIL: {args[1]} validates, but it must not")
        print(f"ok: rejected ({problems[0]})")
        return
    stream, lines, sarif, expected_exit = "stdout", False, False, 0
    while args and args[0] != "--":
        flag = args.pop(0)
        if flag == "--stderr":
            stream = "stderr"
        elif flag == "--lines":
            lines = True
        elif flag == "--sarif":
            sarif = True
        elif flag == "--exit":
            expected_exit = int(args.pop(0))
        else:
            sys.exit(f"unknown flag {flag}")
    command = args[1:]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != expected_exit:
        sys.exit(f"FAIL: exit {done.returncode}, expected {expected_exit}\n{done.stderr}")
    text = getattr(done, stream)
    documents = [json.loads(line) for line in text.splitlines()] if lines else [json.loads(text)]
    if not documents:
        sys.exit(f"FAIL: nothing on {stream}")
    problems = []
    for number, document in enumerate(documents, 1):
        problems += [f"document {number}: {p}" for p in errors_of(check, document)]
        if sarif:
            problems += github_problems(document)
    if problems:
        sys.exit("FAIL:\n" + "\n".join(problems[:20]))
    print(f"ok: {len(documents)} document(s) valid")


if __name__ == "__main__":
    main()
