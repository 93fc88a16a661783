#!/usr/bin/env bash
# The installed tree, the .deb and the pre-commit hooks, one case per ctest
# (tests/ci_tests.cmake):
#   install_check.sh BUILD_DIR SOURCE_DIR CASE
set -u
build=$1 root=$2 case=$3
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
source "$root/tests/golden_lib.sh"
files=(bin/reshardctl share/man/man1/reshardctl.1 share/bash-completion/completions/reshardctl
       share/zsh/site-functions/_reshardctl share/zsh/vendor-completions/_reshardctl
       share/reshardctl/samples/seed_mlp_before.ir share/reshardctl/schema/check.schema.json
       share/doc/reshardctl/copyright)

case $case in
  tree)  # cmake --install puts every file in place, and they work
    cmake --install "$build" --prefix "$work/p" >/dev/null || fail "cmake --install failed"
    for f in "${files[@]}"; do [ -s "$work/p/$f" ] || fail "missing $f"; done
    "$work/p/bin/reshardctl" --version | grep -q '^reshardctl ' || fail "the installed binary does not run"
    grep -q '^License: MIT$' "$work/p/share/doc/reshardctl/copyright" || fail "the copyright file names no licence"
    # --help's examples that name a sample run as written from share/reshardctl.
    (cd "$work/p/share/reshardctl" && "$work/p/bin/reshardctl" --help | grep -oE 'reshardctl [a-z-]+ [^|]*samples/[^ |]+' |
      while read -r example; do
        eval "$work/p/bin/$example" >/dev/null 2>&1; status=$?
        [ "$status" -le 1 ] || fail "--help's example '$example' exits $status after an install"
      done) || exit 1
    ;;
  man)  # one page, every subcommand --help lists and every flag each one's --help lists; groff reads it cleanly
    page=$build/docs/reshardctl.1 tool=$build/reshardctl
    subcommands=$("$tool" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF {print $1}')
    [ "$(wc -w <<<"$subcommands")" -ge 8 ] || fail "--help lists too few subcommands: $subcommands"
    for sub in $subcommands; do
      grep -q "^\.SS $sub\$" "$page" || fail "the man page has no section for $sub"
      for flag in $("$tool" "$sub" --help | grep -E '^ +-' | awk '{print $1}' | tr ',' '\n' | sort -u); do
        grep -qF -- "\\fB$(sed 's/-/\\-/g' <<<"$flag")\\fR" "$page" || fail "the man page lacks $sub's $flag"
      done
    done
    # ENVIRONMENT names every variable the code reads (getenv, envFlag) and every
    # RESHARDCTL_ name its messages mention.
    environment=$(awk '/^\.SH /{inside = ($0 == ".SH ENVIRONMENT")} inside' "$page")
    sources=$(find "$root/src" \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' \) ! -name '*_test.cpp')
    read_names=$(grep -hoE '(getenv|envFlag)\("[A-Z_]+"\)' $sources | grep -oE '"[A-Z_]+"' | tr -d '"')
    said_names=$(grep -hoE '"[^"]*RESHARDCTL_[A-Z_]+' $sources | grep -oE '(^|[^A-Za-z])RESHARDCTL_[A-Z_]+' |
                 grep -oE 'RESHARDCTL_[A-Z_]+')  # not -DRESHARDCTL_MPI, a CMake option
    [ "$(wc -w <<<"$read_names")" -ge 8 ] || fail "found too few getenv calls: $read_names"
    for name in $(printf '%s\n' $read_names $said_names | sort -u); do
      grep -qF "\\fB$name" <<<"$environment" || fail "the man page's ENVIRONMENT lacks $name"
    done
    if command -v groff >/dev/null; then
      groff -man -ww -z "$page" 2>"$work/groff" && [ ! -s "$work/groff" ] || { cat "$work/groff"; fail "groff warns"; }
    fi
    ;;
  bash-completion)  # the script completes subcommands, flags and flag values
    complete_words() {  # complete_words WORD...: COMPREPLY for the last word
      bash -c 'source "$0"; COMP_WORDS=("${@}"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _reshardctl
               printf "%s\n" "${COMPREPLY[@]}"' "$build/docs/reshardctl.bash" "$@"
    }
    [ "$(complete_words reshardctl ap)" = apply ] || fail "no subcommand completion"
    complete_words reshardctl verify --err | grep -qx -- --error-format || fail "no flag completion"
    for sub in $("$build/reshardctl" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF {print $1}'); do
      for flag in $("$build/reshardctl" "$sub" --help | grep -E '^ +-' | awk '{print $1}' | tr ',' '\n' | grep -- '^--'); do
        complete_words reshardctl "$sub" -- | grep -qx -- "$flag" || fail "bash completion lacks $sub's $flag"
      done
    done
    [ "$(complete_words reshardctl verify --error-format "" | tr '\n' ' ')" = "text json github sarif " ] ||
      fail "no value completion"
    (cd "$root" && complete_words reshardctl apply samples/seed_mlp_b) | grep -qx samples/seed_mlp_before.ir ||
      fail "no file completion"
    if command -v zsh >/dev/null; then zsh -n "$build/docs/_reshardctl" || fail "zsh rejects _reshardctl"; fi
    ;;
  bash-completion-tmux)  # the same script in a real interactive bash, keys typed through tmux
    command -v tmux >/dev/null || { echo "no tmux: skipped"; exit 77; }
    socket="reshardctl-completion-$$"
    trap 'tmux -L "$socket" kill-server 2>/dev/null; rm -rf "$work"' EXIT
    tmux -L "$socket" -f /dev/null new-session -d -x 250 -y 60 "env -i HOME=$work TERM=xterm PATH=/usr/bin:/bin bash --norc --noprofile" ||
      fail "tmux cannot start"
    type_keys() { tmux -L "$socket" send-keys "$@"; sleep 0.5; }
    screen() { tmux -L "$socket" capture-pane -p -J -S -60; }
    type_keys "PS1='\$ '; cd '$root' && source '$build/docs/reshardctl.bash'" Enter
    type_keys "clear" Enter
    # completes EXPECTED WHY KEYS...: on a clean line, KEYS typed; the screen then shows EXPECTED
    completes() {
      local expected=$1 why=$2; shift 2
      type_keys C-u "clear" Enter
      type_keys "$@"
      screen | grep -q -- "$expected" || { screen; fail "$why"; }
    }
    completes html "--emit=<Tab><Tab> offers no values" "reshardctl print --emit=" Tab Tab
    completes "--error-format=sarif" "--error-format=sa<Tab> does not complete sarif" "reshardctl verify --error-format=sa" Tab
    completes "--compare samples/seed_mlp_before.ir" "--compare FILE<Tab> completes no file" \
      "reshardctl print --compare samples/seed_mlp_b" Tab
    completes "-Wno-uneven-shards" "-W<Tab> completes no warning name" "reshardctl verify -Wno-un" Tab
    completes "reshardctl check-pass" "no check-pass completion" "reshardctl check-p" Tab
    ;;
  deb)  # cpack -G DEB builds a package holding the same tree under /usr
    deb=$("$root/scripts/package-deb.sh" "$build" "$work/out") || fail "package-deb.sh failed"
    dpkg-deb -c "$deb" >"$work/contents" || fail "dpkg-deb cannot read $deb"
    for f in "${files[@]}"; do grep -q "\./usr/$f\$" "$work/contents" || fail "the .deb lacks /usr/$f"; done
    dpkg-deb -f "$deb" Depends | grep -q libc6 || fail "the .deb names no dependencies"
    # The version is git describe's at package time: X.Y.Z+N.gHASH or 0.1.0+gHASH, HASH a commit of this repository.
    version=$(dpkg-deb -f "$deb" Version)
    [ "$version" = "$(cmake -DSOURCE_DIR="$root" -DFALLBACK=0.1.0 -P "$root/cmake/package_version.cmake")" ] ||
      fail "the .deb's version $version is not the sources' git describe now"
    if git -C "$root" rev-parse HEAD >/dev/null 2>&1; then
      [[ $version =~ \+([0-9]+\.)?g([0-9a-f]{7,})(\.dirty)?$ ]] || fail "the .deb's version $version is not git describe's"
      git -C "$root" cat-file -e "${BASH_REMATCH[2]}^{commit}" || fail "the .deb's version $version names no commit"
    fi
    ;;
  deb-version)  # the version package-deb.sh gives follows the repository's commits and tags, with no reconfigure
    command -v git >/dev/null || { echo "no git: skipped"; exit 77; }
    version() { cmake -DSOURCE_DIR="$work/repo" -DFALLBACK=0.1.0 -P "$root/cmake/package_version.cmake"; }
    commit() { echo "$1" >"$work/repo/file" && git -C "$work/repo" add file && git -C "$work/repo" commit -qm "$1" &&
               git -C "$work/repo" rev-parse --short=12 HEAD; }
    export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
    mkdir "$work/repo" && git -C "$work/repo" init -q || fail "git init failed"
    [ "$(version)" = 0.1.0 ] || fail "no commit: $(version), expected the project's version"
    first=$(commit one)
    [ "$(version)" = "0.1.0+g$first" ] || fail "untagged: $(version), expected 0.1.0+g$first"
    git -C "$work/repo" tag v1.2.0
    [ "$(version)" = 1.2.0 ] || fail "on the tag: $(version), expected 1.2.0"
    second=$(commit two)
    [ "$(version)" = "1.2.0+1.g$second" ] || fail "a commit on: $(version), expected 1.2.0+1.g$second"
    echo changed >"$work/repo/file"
    [ "$(version)" = "1.2.0+1.g$second.dirty" ] || fail "uncommitted: $(version), expected .dirty"
    # package-deb.sh takes the version from the sources at package time, not from the configured cache.
    grep -q 'package_version.cmake' "$root/scripts/package-deb.sh" || fail "package-deb.sh does not ask git at package time"
    ;;
  pre-commit-hooks)  # each hook's entry, run as pre-commit would on the files it matches
    mkdir "$work/bin" && ln -s "$build/reshardctl" "$work/bin/reshardctl"
    WORK=$work python3 - "$root/.pre-commit-hooks.yaml" "$work/bin" "$root" <<'PY' || fail "a hook misbehaves"
import os, re, shlex, subprocess, sys, yaml
hooks = {hook["id"]: hook for hook in yaml.safe_load(open(sys.argv[1]))}
env = dict(os.environ, PATH=sys.argv[2] + os.pathsep + os.environ["PATH"])
def run(hook_id, files):
    hook = hooks[hook_id]
    assert hook["language"] == "system" and all(re.search(hook["files"], f) for f in files)
    return subprocess.run(shlex.split(hook["entry"]) + files, cwd=sys.argv[3], env=env, capture_output=True).returncode
assert set(hooks) == {"reshardctl-check", "reshardctl-verify", "reshardctl-check-pass"}, hooks.keys()
# One file or many: a dump of two programs alone is the same run as with another file.
two = os.path.join(os.environ["WORK"], "two.ir")
open(two, "w").write(open(os.path.join(sys.argv[3], "samples/seed_mlp_after.ir")).read() * 2)
assert run("reshardctl-check", [two]) == 0
assert run("reshardctl-check", [two, "samples/seed_mlp_after.ir"]) == 0
assert run("reshardctl-verify", ["tests/golden/logs/train.log"]) == 0
assert run("reshardctl-verify", ["tests/golden/logs/train.log", "samples/seed_mlp_after.ir"]) == 0
assert run("reshardctl-check-pass", ["tests/golden/logs/train.log"]) == 0
assert run("reshardctl-check-pass", ["tests/golden/logs/train.log", "tests/golden/check_pass/drift.log"]) == 1
assert run("reshardctl-check", ["samples/seed_mlp_after.ir", "tests/golden/pass/cross_mesh.expected.ir"]) == 0
assert run("reshardctl-check", ["samples/seed_mlp_after.ir", "samples/seed_mlp_before.ir"]) == 1
assert run("reshardctl-verify", ["samples/seed_mlp_before.ir", "samples/tp_mlp_2x2_before.ir"]) == 0
assert run("reshardctl-verify", ["samples/seed_mlp_before.ir", "tests/golden/errors/bad-truncated.ir"]) == 1
PY
    ;;
  *) fail "unknown case $case" ;;
esac
echo ok
