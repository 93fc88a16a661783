#!/usr/bin/env bash
# Redraws the pictures the README shows, from the current build:
#   docs/seed-dataflow.svg      print --emit=dot on the seed (after apply), drawn by Graphviz
#   docs/pipeline-dataflow.svg  the same for a pipeline whose reshards cross meshes
#   docs/seed-view.html         print --emit=html on the seed, beside the program before apply
#   docs/seed-view.png          that page in headless Chromium, searching for %9
# Needs Graphviz and Chromium (scripts/setup.sh --extras). Review `git diff docs`.
#   scripts/regen-pictures.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tool=$(cd "${1:-$root/build}" && pwd)/reshardctl
[ -x "$tool" ] || { echo "build reshardctl first (missing $tool)" >&2; exit 2; }
command -v dot >/dev/null || { echo "needs Graphviz: scripts/setup.sh --extras" >&2; exit 2; }
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "needs Chromium: scripts/setup.sh --extras" >&2; exit 2; }
cd "$root"  # file names in the pictures are relative to the repository
mkdir -p docs

"$tool" print --emit=dot samples/seed_mlp_after.ir | dot -Tsvg -o docs/seed-dataflow.svg
"$tool" print --emit=dot tests/golden/views/pipeline_after.ir | dot -Tsvg -o docs/pipeline-dataflow.svg
"$tool" print --emit=html samples/seed_mlp_after.ir --compare samples/seed_mlp_before.ir -o docs/seed-view.html

profile=$(mktemp -d) && trap 'rm -rf "$profile"' EXIT
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
  --user-data-dir="$profile" --window-size=1280,1600 --screenshot="$root/docs/seed-view.png" \
  "file://$root/docs/seed-view.html#search=%259" 2>/dev/null
ls -l docs
