#!/usr/bin/env bash
# Compile time per model, by phase (docs/perf.md, issue 11): for each module,
# `xla_aot compile -o` (host target, -c opt binary) and the wall time of
# every phase it reports (middle end, thunk and kernel IR emission, LLVM
# optimization and machine code summed over the worker threads, the parallel
# LLVM wall time, link), next to the whole process's wall time.
#
#   benchmarks/compile_phases.sh [MODULE.hlo ...]   (default: the corpus models/)
#   XLA_AOT=/path/to/xla_aot   use that binary instead of building one
#   TIMEOUT=S                  per-module limit in seconds (default 300)
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${XLA_AOT:-}" ]]; then
  bazel build -c opt //xla/tools:xla_aot >/dev/null 2>&1
fi
BIN="${XLA_AOT:-$(bazel info -c opt bazel-bin 2>/dev/null)/xla/tools/xla_aot}"
CORPUS="${XLA_HLO_CORPUS:-../shared/hlo_corpus}"
if [[ $# -gt 0 ]]; then MODULES=("$@"); else MODULES=("$CORPUS"/models/*.hlo); fi
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%F); commit $(git rev-parse --short HEAD)"
printf '| module | kernels | middle end | thunks + IR | LLVM opt (sum) | machine code (sum) | LLVM wall | link | process |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for m in "${MODULES[@]}"; do
  name="$(basename "$m" .hlo)"
  name="${name#backends__cpu__benchmarks__hlo__}"
  name="${name#tools__data__benchmarking__}"
  t0=$(date +%s.%N)
  if ! line="$(timeout "${TIMEOUT:-300}" "$BIN" compile "$m" --no_verify -o "$OUT/m.xaot" 2>&1 | tail -1)"; then
    printf '| %s | not compiled: %s ||||||||\n' "$name" "$(sed 's/.*: //' <<<"$line" | cut -c1-80)"
    continue
  fi
  t1=$(date +%s.%N)
  phase() { sed -n "s/.* $1 \([0-9.]*\)s.*/\1/p" <<<"$line"; }
  kernels="$(sed -n 's/.*kernels=\([0-9]*\).*/\1/p' <<<"$line")"
  wall="$(phase llvm_parallel_wall)"
  printf '| %s | %s | %ss | %ss | %ss | %ss | %s | %ss | %.1fs |\n' "$name" "$kernels" \
    "$(phase middle_end)" "$(phase thunk_emission)" "$(phase llvm_optimize)" \
    "$(phase machine_code)" "${wall:+${wall}s}" "$(phase link)" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
done
