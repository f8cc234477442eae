#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run_fuzzer.sh BIN CORPUS_DIR RUNS [libFuzzer options...] — one deterministic CI run of a
# harness (ctest, test/fuzz/CMakeLists.txt): fixed -seed, fixed -runs, the committed corpus
# read-only (new inputs go to a scratch directory that is removed afterwards). Fails on any
# crash, sanitizer report, failed check or timeout, and prints libFuzzer's final stats
# (number of executions) for the record.
set -euo pipefail
bin=$1 corpus=$2 runs=$3
shift 3
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mbgcm-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
[ -d "$corpus" ] || { echo "run_fuzzer: no corpus at $corpus" >&2; exit 2; }
echo "run_fuzzer: $(basename "$bin") -seed=1 -runs=$runs, corpus $corpus ($(ls "$corpus" | wc -l) inputs)"
# -len_control=0: mutate up to -max_len from the start (the inputs are small structures);
# -reload=0: no time-based rereading of the corpus. With -seed fixed and the seed files all of
# different sizes (libFuzzer orders the initial corpus by size only), a run does not depend on
# the file system's directory order; and address-space randomisation is off (setarch -R),
# because libFuzzer also mutates with values the code compared, pointers included: the same
# binary then does the same executions everywhere.
norand=()
if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
  norand=(setarch "$(uname -m)" -R)
fi
rc=0
"${norand[@]}" "$bin" -seed=1 -runs="$runs" -max_len=4096 -len_control=0 -reload=0 -timeout=60 \
  -rss_limit_mb=4096 \
  -print_final_stats=1 "$@" "$scratch" "$corpus" >"$scratch.log" 2>&1 || rc=$?
# the progress lines are noise; everything else (errors, final stats) is shown
grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "$scratch.log" || true
rm -f "$scratch.log"
exit "$rc"
