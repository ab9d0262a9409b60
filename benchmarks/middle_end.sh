#!/usr/bin/env bash
# Middle-end figures for docs/perf.md: kernels and fusions per module, temp
# bytes against the naive sum of all temporaries, and middle-end time.
#
#   benchmarks/middle_end.sh [MODULE.hlo ...]
#
# Without arguments it measures the fusion test modules (softmax, layer norm,
# MLP with GELU) and the corpus models. Builds xla_aot with -c opt.
set -euo pipefail
cd "$(dirname "$0")/.."
bazel build -c opt //xla/tools:xla_aot >/dev/null 2>&1
BIN="$(bazel info -c opt bazel-bin 2>/dev/null)/xla/tools/xla_aot"
CORPUS="${XLA_HLO_CORPUS:-../shared/hlo_corpus}"
if [[ $# -gt 0 ]]; then
  MODULES=("$@")
else
  MODULES=(xla/service/fusion/testdata/softmax.hlo
           xla/service/fusion/testdata/layer_norm.hlo
           xla/service/fusion/testdata/mlp_gelu.hlo)
  for f in "$CORPUS"/models/*.hlo; do MODULES+=("$f"); done
fi
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
printf '| module | kernels | fusions | other thunks | temp bytes | naive bytes | temp/naive | middle end |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for m in "${MODULES[@]}"; do
  name="$(basename "$m" .hlo)"
  name="${name#backends__cpu__benchmarks__hlo__}"
  name="${name#tools__benchmarks__hlo__}"
  if ! line="$("$BIN" compile "$m" --no_verify --dump_dir="$OUT/$name" 2>&1)"; then
    printf '| %s | error: %s |||||||\n' "$name" "$(echo "$line" | tail -1 | cut -c1-120)"
    continue
  fi
  kernels="$(sed -n 's/.*kernels=\([0-9]*\).*/\1/p' <<<"$line")"
  fusions="$(sed -n 's/.* fusions=\([0-9]*\).*/\1/p' <<<"$line")"
  thunks="$(sed -n 's/.* thunks=\([0-9]*\).*/\1/p' <<<"$line")"
  temp="$(sed -n 's/.*; temp \([0-9]*\) bytes.*/\1/p' <<<"$line")"
  naive="$(sed -n 's/.*% of \([0-9]*\) without reuse.*/\1/p' <<<"$line")"
  pct="$(sed -n 's/.*(\([0-9.]*\)% of .*/\1/p' <<<"$line")"
  secs="$(sed -n 's/.* passes in \([0-9.]*\)s.*/\1/p' <<<"$line")"
  printf '| %s | %s | %s | %s | %s | %s | %s%% | %ss |\n' \
    "$name" "$kernels" "$fusions" "$thunks" "$temp" "$naive" "$pct" "$secs"
done
