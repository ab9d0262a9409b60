#!/usr/bin/env bash
# Host execution against XLA:CPU and the evaluator (docs/perf.md, issue 11).
#
#   benchmarks/host_vs_xla_cpu.sh [MODULE.hlo ...]
#       (default: benchmarks/models/*.hlo and the corpus ResNet-50)
#
# XLA_AOT=/path/to/xla_aot uses that binary instead of building one (-c opt).
# HOST_CPU=CPU compiles the host kernels for that CPU (`xla_aot compile
# --host_cpu`; default: the compiler's portable x86-64-v2). XLA:CPU always
# compiles for this machine's CPU, so HOST_CPU=native is the like-for-like
# comparison, and the default shows what a portable artifact costs.
# Needs `pip install jax jaxlib` (for benchmarks/xla_cpu_baseline.py); the
# build and the tests never do. For each module, in one run on the same
# inputs (f32 uniform in [-1, 1), seed 1):
#   xla_cpu  median time of one execution on XLA:CPU (jaxlib), compiled from
#            the same HLO text;
#   xla_aot  median time of Execute (`xla_aot bench`, artifact compiled -c opt);
#   eval     wall time of one `xla_aot eval` process (parse + evaluate);
#   check    the largest absolute difference between xla_aot's and XLA:CPU's
#            outputs, and that difference over the largest |XLA:CPU output|.
# Ratios > 1 mean xla_aot is slower.
set -euo pipefail
cd "$(dirname "$0")/.."
ITER="${ITER:-20}"
if [[ -z "${XLA_AOT:-}" ]]; then
  bazel build -c opt //xla/tools:xla_aot >/dev/null 2>&1
fi
BIN="${XLA_AOT:-$(bazel info -c opt bazel-bin 2>/dev/null)/xla/tools/xla_aot}"
CORPUS="${XLA_HLO_CORPUS:-../shared/hlo_corpus}"
if [[ $# -gt 0 ]]; then
  MODULES=("$@")
else
  MODULES=(benchmarks/models/*.hlo "$CORPUS/models/backends__cpu__benchmarks__hlo__resnet50_keras_jax_f32.hlo")
fi
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%F); commit $(git rev-parse --short HEAD); host kernels for ${HOST_CPU:-x86-64-v2}, with xla_aot compile's default wider build (x86-64-v3) where it adds extensions"
printf '| module | xla_cpu | xla_aot | xla_aot/xla_cpu | eval | eval/xla_aot | check (max abs, max abs / max |xla_cpu|) |\n'
printf '|---|---|---|---|---|---|---|\n'
for m in "${MODULES[@]}"; do
  name="$(basename "$m" .hlo)"
  name="${name#backends__cpu__benchmarks__hlo__}"
  dir="$OUT/$name"
  mkdir -p "$dir"
  if ! "$BIN" compile "$m" -o "$dir/m.xaot" ${HOST_CPU:+--host_cpu="$HOST_CPU"} >"$dir/compile.log" 2>&1; then
    printf '| %s | not compiled: %s ||||||\n' "$name" "$(tail -1 "$dir/compile.log" | cut -c1-80)"
    continue
  fi
  if ! base="$(python3 benchmarks/xla_cpu_baseline.py "$m" --out_dir="$dir" --iterations="$ITER" 2>"$dir/xla_cpu.log")"; then
    printf '| %s | XLA:CPU failed: %s ||||||\n' "$name" "$(tail -1 "$dir/xla_cpu.log" | cut -c1-80)"
    continue
  fi
  xla_cpu_ms="$(sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p' <<<"$base")"
  inputs=()
  n=0
  while [[ -f "$dir/input_$n.npy" ]]; do inputs+=("--input=$dir/input_$n.npy"); n=$((n + 1)); done
  bench="$("$BIN" bench "$dir/m.xaot" "${inputs[@]}" --iterations="$ITER" --warmup=3 2>&1)"
  aot_ms="$(awk '/^  median/ {print $2; exit}' <<<"$bench")"
  "$BIN" run "$dir/m.xaot" "${inputs[@]}" --output_dir="$dir/xla_aot" >/dev/null 2>&1
  # "inf" means NaN on one side only; say how many elements.
  check="$(python3 benchmarks/xla_cpu_baseline.py --compare "$dir/xla_aot" "$dir/xla_cpu" \
           | sed -n 's/.*max_abs=\([^ ]*\) max_norm=\([^ ]*\).*nan_mismatches=\([0-9]*\).*/\1, \2 \3/p' \
           | awk '{ if ($3 > 0) printf "%s %s (%d elements NaN on one side only)", $1, $2, $3;
                    else printf "%s %s", $1, $2 }')"
  t0=$(date +%s.%N)
  if timeout "${EVAL_TIMEOUT:-600}" "$BIN" eval "$m" "${inputs[@]}" --output_dir="$dir/eval" >/dev/null 2>&1; then
    t1=$(date +%s.%N)
    eval_ms="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }')"
  else
    eval_ms="-"
  fi
  awk -v n="$name" -v x="$xla_cpu_ms" -v a="$aot_ms" -v e="$eval_ms" -v c="$check" 'BEGIN {
    ratio = (x > 0) ? sprintf("%.2fx", a / x) : "-";
    er = (e != "-" && a > 0) ? sprintf("%.0fx", e / a) : "-";
    printf "| %s | %.3f ms | %.3f ms | %s | %s ms | %s | %s |\n", n, x, a, ratio, e, er, c }'
done
