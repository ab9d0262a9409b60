#!/usr/bin/env bash
# Measures how much of the XLA corpus (../shared/hlo_corpus/xla/ and
# headerless/) compiles, per target, and buckets the failures by cause
# (issue 28). For every module that `xla_aot parse` accepts (parses and
# verifies), it runs `xla_aot compile` for each target and prints:
#
#   * one line per module and target: ok, or the first line of the error;
#   * per target, how many verified modules compile;
#   * the failure buckets: the error's first line with instruction names,
#     numbers and shapes blanked out, so that one cause counts once per
#     module however its instructions are named.
#
#   benchmarks/corpus_coverage.sh [MODULE.hlo ...]   (default: xla/ + headerless/)
#   XLA_AOT=/path/to/xla_aot   use that binary instead of building one (-c opt)
#   TARGETS="host sm_90"       the targets (default: host sm_90)
#   TIMEOUT=S                  per-compile limit in seconds (default 300)
#   JOBS=N                     modules compiled at once (default 1)
#   KEEP=DIR                   keep the per-module logs in DIR
#
# Flags: --emit_collectives (collectives compile into collective thunks, as a
# user with several devices would ask), --emit_fft (fft into fft thunks,
# stage 1 of its rollout), --emit_host_transfers (host send/recv into host
# transfer thunks, stage 1 of its rollout), --no_optimized_hlo, and
# --elided_constants=random for texts whose constants print as {...}. Device
# counts: what each module's collectives need (`xla_aot parse --device_counts`:
# the header's counts, raised until every replica group and
# source_target_pair names a device in range; xla/hlo/ir/
# collective_device_counts.h), which tests/e2e:corpus_coverage_test derives
# the same way.
set -uo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${XLA_AOT:-}" ]]; then
  bazel build -c opt --symlink_prefix=/ //xla/tools:xla_aot >/dev/null 2>&1 || exit 1
fi
BIN="${XLA_AOT:-$(bazel info -c opt --symlink_prefix=/ bazel-bin 2>/dev/null)/xla/tools/xla_aot}"
CORPUS="${XLA_HLO_CORPUS:-../shared/hlo_corpus}"
if [[ $# -gt 0 ]]; then
  MODULES=("$@")
else
  MODULES=("$CORPUS"/xla/*.hlo "$CORPUS"/headerless/*.hlo)
fi
TARGETS="${TARGETS:-host sm_90}"
JOBS="${JOBS:-1}"
if [[ -n "${KEEP:-}" ]]; then
  OUT="$KEEP"
  mkdir -p "$OUT"
else
  OUT="$(mktemp -d)"
  trap 'rm -rf "$OUT"' EXIT
fi

# The first line of an error, with what varies between modules blanked out:
# %names and quoted names, shapes, and numbers. A custom call's target stays,
# since it is the cause; a custom call no built-in FFI handler serves is
# bucketed as "needs a user handler" (refused by design unless compiled with
# --allow_custom_calls, not unimplemented). The innermost "thunk emission of 'x' (op):" prefix
# names the construct; the enclosing ones (while, conditional) are dropped.
bucket() {
  local line
  line="$(grep '^xla_aot compile: ' "$1" | tail -1)"
  [[ -z "$line" ]] && line="$(grep -v '^\s*$' "$1" | tail -1)"
  printf '%s\n' "$line" |
    sed -E -e 's/^xla_aot compile: //' \
      -e "s/^(thunk emission of '[^']*' \(([a-z-]+)\): )+/\\2: /" \
      -e "s/thunk emission: instruction '[^']*' \(opcode [a-z-]+\): //" \
      -e "s/custom-call target '([^']*)'/custom-call target <\\1>/g" \
      -e "s/^custom-call: custom-call target <([^>]*)> is not an FFI handler this compiler knows.*/needs a user handler (by design): custom-call <\\1>, compiles with --allow_custom_calls=\\1/" \
      -e "s/^needs a user handler \\(by design\\): custom-call <(xla_builder[.][^>]*)>.*/custom-call <\\1>: XLA's own custom call, in a form the middle end does not rewrite/" \
      -e "s/%[A-Za-z0-9_.-]+/%N/g" \
      -e "s/'[^']*'/'N'/g" \
      -e 's/"[^"]*"/"N"/g' \
      -e 's/\b(pred|s|u|f|bf|c)[0-9]*[a-z0-9]*\[[^]]*\](\{[^}]*\})?/SHAPE/g' \
      -e 's/[0-9]+/#/g' | cut -c1-120
}

# One module, one target: writes OUT/<name>.<target>.{log,result}.
compile_one() {
  local m="$1" t="$2" name="$3"
  local log="$OUT/$name.$t.log"
  local counts
  read -r -a counts <"$OUT/$name.counts"
  if timeout "${TIMEOUT:-300}" "$BIN" compile "$m" --target="$t" --emit_collectives --emit_fft \
      --emit_host_transfers "${counts[@]}" --no_optimized_hlo --elided_constants=random \
      -o "$OUT/$name.$t.xaot" >"$log" 2>&1; then
    echo ok >"$OUT/$name.$t.result"
  elif [[ $? -eq 124 ]]; then
    echo "timed out after ${TIMEOUT:-300} s" >"$OUT/$name.$t.result"
  else
    bucket "$log" >"$OUT/$name.$t.result"
  fi
  rm -f "$OUT/$name.$t.xaot"
}

verified=()
for m in "${MODULES[@]}"; do
  name="$(basename "$(dirname "$m")")__$(basename "$m" .hlo)"
  if "$BIN" parse --device_counts "$m" >"$OUT/$name.counts" 2>"$OUT/$name.parse.log"; then
    verified+=("$m")
  fi
done

running=0
for m in "${verified[@]}"; do
  name="$(basename "$(dirname "$m")")__$(basename "$m" .hlo)"
  for t in $TARGETS; do
    compile_one "$m" "$t" "$name" &
    running=$((running + 1))
    if [[ $running -ge $JOBS ]]; then
      wait -n
      running=$((running - 1))
    fi
  done
done
wait

echo "machine: $(nproc) cores; $(date -u +%F); commit $(git rev-parse --short HEAD)"
echo "modules: ${#MODULES[@]}; verified: ${#verified[@]}"
for m in "${verified[@]}"; do
  name="$(basename "$(dirname "$m")")__$(basename "$m" .hlo)"
  for t in $TARGETS; do
    printf '%-8s %-70s %s  (%s)\n' "$t" "$name" "$(cat "$OUT/$name.$t.result")" "$(cat "$OUT/$name.counts")"
  done
done
for t in $TARGETS; do
  n=0
  for m in "${verified[@]}"; do
    name="$(basename "$(dirname "$m")")__$(basename "$m" .hlo)"
    [[ "$(cat "$OUT/$name.$t.result")" == ok ]] && n=$((n + 1))
  done
  echo "== $t: $n of ${#verified[@]} verified modules compile"
  for m in "${verified[@]}"; do
    name="$(basename "$(dirname "$m")")__$(basename "$m" .hlo)"
    r="$(cat "$OUT/$name.$t.result")"
    [[ "$r" != ok ]] && echo "$r"
  done | sort | uniq -c | sort -rn
done
