#!/usr/bin/env bash
# End-to-end host figures for docs/perf.md: compile time (total and the
# in-process part), artifact size, and the wall time of `xla_aot run`
# against `xla_aot eval` on the same random inputs (both include process
# start, artifact/HLO load and input generation, so small models measure
# overhead; the ratio matters for the large ones). Every run is also checked
# against the evaluator (--reference).
#
#   benchmarks/e2e_host.sh [MODULE.hlo ...]     (default: tools/testdata + corpus models)
set -euo pipefail
cd "$(dirname "$0")/.."
bazel build -c opt //xla/tools:xla_aot >/dev/null 2>&1
BIN="$(bazel info -c opt bazel-bin 2>/dev/null)/xla/tools/xla_aot"
CORPUS="${XLA_HLO_CORPUS:-../shared/hlo_corpus}"
if [[ $# -gt 0 ]]; then
  MODULES=("$@")
else
  MODULES=(xla/tools/testdata/mlp.hlo xla/service/fusion/testdata/softmax.hlo
           xla/service/fusion/testdata/layer_norm.hlo)
  for f in "$CORPUS"/models/*.hlo; do MODULES+=("$f"); done
fi
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
now() { date +%s.%N; }
printf '| module | compile (process) | compile (in process) | artifact | run (host) | eval | eval/run | check |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for m in "${MODULES[@]}"; do
  name="$(basename "$m" .hlo)"
  name="${name#backends__cpu__benchmarks__hlo__}"
  name="${name#tools__benchmarks__hlo__}"
  t0=$(now)
  if ! line="$("$BIN" compile "$m" --no_verify -o "$OUT/$name.xaot" 2>&1)"; then
    printf '| %s | not compiled: %s |||||||\n' "$name" "$(echo "$line" | tail -1 | sed 's/.*: //' | cut -c1-90)"
    continue
  fi
  t1=$(now)
  middle="$(sed -n 's/.* passes in \([0-9.]*\)s.*/\1/p' <<<"$line")"
  size="$(stat -c %s "$OUT/$name.xaot")"
  t2=$(now)
  if check="$("$BIN" run "$OUT/$name.xaot" --random_inputs --seed=1 --reference="$m" 2>&1 | tail -1 | cut -d: -f1)"; then :; fi
  t3=$(now)
  "$BIN" run "$OUT/$name.xaot" --random_inputs --seed=1 --output_dir="$OUT/run_$name" >/dev/null 2>&1 || true
  t4=$(now)
  "$BIN" eval "$m" --random_inputs --seed=1 --output_dir="$OUT/eval_$name" >/dev/null 2>&1 || true
  t5=$(now)
  awk -v n="$name" -v t0="$t0" -v t1="$t1" -v me="$middle" -v s="$size" -v t3="$t3" -v t4="$t4" \
      -v t5="$t5" -v k="$check" \
      'BEGIN { r = t4 - t3; e = t5 - t4;
               printf "| %s | %.2fs | %.2fs | %d B | %.2fs | %.2fs | %.1fx | %s |\n",
                      n, t1 - t0, me, s, r, e, e / r, k }'
done
