#!/usr/bin/env bash
# Compiles every model of the HLO corpus (../shared/hlo_corpus/models/) for
# the host and for sm_90 with the optimized CLI, as a new user would, and
# prints the table kept in docs/perf.md ("Corpus models"): compile wall time
# per target, kernels, per-device peak memory, host-offloaded bytes, and
# whether ptxas accepted every kernel (each NVPTX kernel of an sm_90
# artifact carries a cubin only when it did).
#
#   benchmarks/corpus_compile.sh [MODEL.hlo ...]   (default: every model)
#   XLA_AOT=/path/to/xla_aot   use that binary instead of building one
#   TIMEOUT=S                  per-compile limit in seconds (default 900)
#   TARGETS="host sm_90"       the targets to compile for
#   XLA_CPU_PYTHON=python3     also time XLA:CPU's compile of each one-device
#                              model (benchmarks/xla_cpu_baseline.py
#                              --compile_only; needs jax and jaxlib, run by
#                              hand), under the same load as ours
#
# Flags per model: the device count from the file name (`_16x8` is 128
# partitions, `_1x4` 4; the dumps keep none), --emit_collectives, the
# Transformer Engine attention calls allowed (--allow_custom_calls; they
# resolve at load), and --elided_constants=random for the dumps whose large
# constants are printed as {...}. --no_optimized_hlo leaves the human-only
# HLO text out of the artifact (XLA does not print one either).
set -uo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${XLA_AOT:-}" ]]; then
  bazel build -c opt --config=static_llvm --symlink_prefix=/ //xla/tools:xla_aot >/dev/null 2>&1 || exit 1
fi
BIN="${XLA_AOT:-$(bazel info -c opt --symlink_prefix=/ bazel-bin 2>/dev/null)/xla/tools/xla_aot}"
CORPUS="${XLA_HLO_CORPUS:-../shared/hlo_corpus}"
if [[ $# -gt 0 ]]; then MODELS=("$@"); else MODELS=("$CORPUS"/models/*.hlo); fi
TARGETS="${TARGETS:-host sm_90}"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

# The partition count a dump's file name says it was partitioned for.
partitions() {
  if [[ "$1" =~ _([0-9]+)x([0-9]+)\.hlo$ ]]; then
    echo $((BASH_REMATCH[1] * BASH_REMATCH[2]))
  else
    echo 1
  fi
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%F); commit $(git rev-parse --short HEAD)"
printf '| model | devices |'
for t in $TARGETS; do printf ' %s compile | %s kernels |' "$t" "$t"; done
printf ' peak / device (sm_90) | offloaded | XLA:CPU compile |\n|---|---|'
for t in $TARGETS; do printf -- '---|---|'; done
printf -- '---|---|---|\n'
for m in "${MODELS[@]}"; do
  name="$(basename "$m" .hlo)"
  for prefix in backends__cpu__benchmarks__hlo__ tools__data__benchmarking__ tools__benchmarks__hlo__; do
    name="${name#"$prefix"}"
  done
  p="$(partitions "$m")"
  flags=(--emit_collectives --no_optimized_hlo --elided_constants=random
         --allow_custom_calls=te_fused_attn_forward_ffi,te_fused_attn_backward_ffi)
  [[ "$p" -gt 1 ]] && flags+=(--num_partitions="$p")
  printf '| %s | %s |' "$name" "$p"
  peak="" offloaded=""
  for t in $TARGETS; do
    log="$OUT/$name.$t.log"
    t0=$(date +%s.%N)
    if timeout "${TIMEOUT:-900}" "$BIN" compile "$m" --target="$t" "${flags[@]}" \
        -o "$OUT/m.xaot" >"$log" 2>&1; then
      t1=$(date +%s.%N)
      kernels="$(sed -n 's/.*kernels=\([0-9]*\).*/\1/p' "$log" | head -1)"
      printf ' %.1f s | %s |' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "${kernels:-?}"
      if [[ "$t" != host ]]; then
        peak="$(sed -n 's/.*per device: peak \([0-9.]* [A-Za-z]*\).*/\1/p' "$log" | head -1)"
        offloaded="$(sed -n 's/.*host memory (offloaded): \([0-9.]* [A-Za-z]*\).*/\1/p' "$log" | head -1)"
      fi
    else
      rc=$?
      why="$(grep -v '^\s*$' "$log" | tail -1 | sed 's/^xla_aot compile: //' | cut -c1-90 | tr '|' '/')"
      [[ $rc -eq 124 ]] && why="timed out after ${TIMEOUT:-900} s"
      printf ' not compiled: %s | |' "$why"
    fi
  done
  baseline=""
  if [[ -n "${XLA_CPU_PYTHON:-}" && "$p" -eq 1 ]]; then
    baseline="$(timeout "${TIMEOUT:-900}" "$XLA_CPU_PYTHON" benchmarks/xla_cpu_baseline.py "$m" \
      --compile_only 2>/dev/null | sed -n 's/.*compile_s=\([0-9.]*\).*/\1 s/p')"
    baseline="${baseline:-failed}"
  fi
  printf ' %s | %s | %s |\n' "${peak:-}" "${offloaded:-}" "$baseline"
done
