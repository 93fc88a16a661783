#!/usr/bin/env bash
# Builds the libFuzzer target (clang, ASan+UBSan) into build-fuzz/ and fuzzes
# parse → verify → print → apply → print for SECONDS (default 60), on the
# whole input and on each program the log scanner finds in it, seeded with the
# samples and every golden input (logs included). Exits non-zero when the fuzzer finds a
# crash, a hang or a broken property; the input is left as build-fuzz/crash-*
# (turn it into a regression test under tests/golden/).
#   scripts/fuzz.sh [SECONDS]        (FUZZ_SEED=N to choose the seed; 0 = random)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}

scripts/install-packages.sh clang libclang-rt-14-dev cmake make libcli11-dev nlohmann-json3-dev tao-pegtl-dev libfmt-dev doctest-dev libeigen3-dev

cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
      -DRESHARDCTL_FUZZ=ON -DRESHARDCTL_GPU=OFF >/dev/null
cmake --build build-fuzz --target fuzz_pipeline -j "$(nproc)"

# The fuzzer adds what it finds to the first corpus folder; the seeds stay read-only.
corpus=build-fuzz/corpus
seeds=build-fuzz/seeds
mkdir -p "$corpus" "$seeds"
find samples tests/golden \( -name '*.ir' -o -name '*.log' \) -exec cp {} "$seeds/" \;
# -max_len bounds the input (the pipeline must also be fast on it): the
# samples are larger, and libFuzzer then mutates prefixes of them.
# A fixed seed makes CI's run repeatable (a finding is reproducible, not luck);
# FUZZ_SEED=0 asks libFuzzer for a random one when exploring.
(cd build-fuzz && fuzz/fuzz_pipeline -seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
   -rss_limit_mb=2048 -print_final_stats=1 corpus seeds)
