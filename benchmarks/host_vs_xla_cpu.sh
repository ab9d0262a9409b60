#!/usr/bin/env bash
# Host execution against XLA:CPU, program by program (docs/perf.md; issues
# 11 and 27).
#
#   XLA_CPU_PYTHON=/path/to/python benchmarks/host_vs_xla_cpu.sh [MODULE.hlo ...]
#       (default: the broad set, benchmarks/models/broad/*.hlo; the five
#       tuned models of issue 11 are `benchmarks/models/*.hlo` and the corpus
#       ResNet-50, given by name)
#
# XLA_CPU_PYTHON  a Python with jax and jaxlib (`python3 -m venv V &&
#                 V/bin/pip install jax jaxlib`); required: the script stops
#                 with a message without it. The build and tests never need it.
# XLA_AOT         an xla_aot binary to use instead of building one (-c opt
#                 --config=static_llvm, as tools/xla_aot builds it).
# HOST_CPU        `xla_aot compile --host_cpu` (default: the portable
#                 x86-64-v2 build, plus compile's x86-64-v4 and x86-64-v3
#                 builds: the CPU runs the widest it has). XLA:CPU always
#                 JITs for this CPU, so
#                 HOST_CPU=native is the like-for-like comparison.
# COMPILE_FLAGS   more `xla_aot compile` flags, e.g. --fuse_attention=off.
# ROUNDS (2)      timing rounds. Each round goes over every program and, per
#                 program, times XLA:CPU and xla_aot back to back (the order
#                 flips every round), so load from other processes falls on
#                 both sides; each side's time is the best of its rounds'
#                 medians.
# ITER (20)       timed executions per round and side (after 3 warm-ups).
#                 A program whose one checked `xla_aot run` (before the
#                 timing) took over SLOW_MS (1000) gets 3 timed executions
#                 after 1 warm-up on both sides, so that an O(n^2) kernel
#                 does not hold the run for an hour.
# TOL (1e-3)      largest accepted |xla_aot - XLA:CPU| / max |XLA:CPU output|
#                 per program (3e-2 when the name says bf16 or f16); integer
#                 outputs must be equal. Larger differences are MISMATCH.
#
# Inputs: benchmarks/xla_cpu_baseline.py draws them (numpy default_rng(1):
# floats in [-1, 1), integers in [0, 8), or the ranges of MODULE.inputs.json)
# and saves them as .npy; xla_aot gets the same files through --input.
#
# Columns: xla_aot is the median of `xla_aot bench` (Execute only); XLA:CPU
# the median of one execution through jaxlib, from the same HLO text; the
# ratio > 1 means xla_aot is slower. Compile: `xla_aot compile` as a whole
# process (start-up, parse, compile, write) against XLA:CPU's compile call
# alone (no Python or jax start-up); each side the best of its compiles (one
# per round, and xla_aot's first one before the rounds), so that a load
# spike during one compile does not decide the ratio. A program xla_aot
# cannot compile, run or
# time is a FAILED row, left out of the geometric mean and counted below it.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${XLA_CPU_PYTHON:-}"
if [[ -z "$PY" ]]; then
  echo "host_vs_xla_cpu.sh: set XLA_CPU_PYTHON to a Python that has jax and jaxlib," >&2
  echo "  e.g. python3 -m venv /work/venv-jax && /work/venv-jax/bin/pip install jax jaxlib numpy" >&2
  exit 2
fi
if ! "$PY" -c 'import jax, jaxlib, numpy' 2>/dev/null; then
  echo "host_vs_xla_cpu.sh: XLA_CPU_PYTHON=$PY cannot import jax, jaxlib and numpy" >&2
  exit 2
fi
ROUNDS="${ROUNDS:-2}"
ITER="${ITER:-20}"
SLOW_MS="${SLOW_MS:-1000}"
TOL="${TOL:-1e-3}"
if [[ -z "${XLA_AOT:-}" ]]; then
  if ! bazel build -c opt --config=static_llvm //xla/tools:xla_aot >/dev/null 2>&1; then
    echo "host_vs_xla_cpu.sh: bazel build -c opt --config=static_llvm //xla/tools:xla_aot failed" >&2
    exit 1
  fi
fi
BIN="${XLA_AOT:-$(bazel info -c opt bazel-bin 2>/dev/null)/xla/tools/xla_aot}"
if [[ ! -x "$BIN" ]]; then
  echo "host_vs_xla_cpu.sh: no xla_aot binary at $BIN" >&2
  exit 1
fi
# Which code was timed: the checkout's commit when this script built the
# binary; when XLA_AOT names one, the binary's own path and time (it may come
# from another commit or worktree).
if [[ -z "${XLA_AOT:-}" ]]; then
  BUILT_FROM="commit $(git rev-parse --short HEAD)"
else
  BUILT_FROM="binary $BIN (XLA_AOT; modified $(date -u -r "$BIN" '+%F %H:%M UTC'); checkout at $(git rev-parse --short HEAD), which need not be the binary's)"
fi
if [[ $# -gt 0 ]]; then
  MODULES=("$@")
else
  MODULES=(benchmarks/models/broad/*.hlo)
fi
if [[ ${#MODULES[@]} -eq 0 || ! -f "${MODULES[0]}" ]]; then
  echo "host_vs_xla_cpu.sh: no modules (looked for ${MODULES[0]:-nothing})" >&2
  exit 1
fi
OUT="${KEEP_DIR:-$(mktemp -d)}"
[[ -n "${KEEP_DIR:-}" ]] || trap 'rm -rf "$OUT"' EXIT
mkdir -p "$OUT"

name_of() {
  local n
  n="$(basename "$1" .hlo)"
  echo "${n#backends__cpu__benchmarks__hlo__}"
}

now() { date +%s.%N; }

# Per program, in $OUT/NAME/: m.xaot, status (ok or why it failed),
# aot_compile_s.<round>, cpu_compile_s.<round>, cpu_ms.<round>, aot_ms.<round>, check.
prepare() {
  local m="$1" name dir t0 t1
  name="$(name_of "$m")"
  dir="$OUT/$name"
  mkdir -p "$dir"
  t0=$(now)
  # shellcheck disable=SC2086  # COMPILE_FLAGS is a list of flags
  if ! "$BIN" compile "$m" -o "$dir/m.xaot" ${HOST_CPU:+--host_cpu="$HOST_CPU"} ${COMPILE_FLAGS:-} >"$dir/compile.log" 2>&1; then
    # The error's start and its end (where the compiler says what to do).
    echo "FAILED compile: $(grep -v '^\s*$' "$dir/compile.log" | tail -1 |
      awk '{ print (length($0) > 180 ? substr($0, 1, 50) " ... " substr($0, length($0) - 119) : $0) }')" >"$dir/status"
    return
  fi
  t1=$(now)
  # Milliseconds matter: the smallest programs compile in 0.03-0.06 s.
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >"$dir/aot_compile_s.0"
  echo ok >"$dir/status"
}

# One more timed compile of a program that compiled, for round $2.
time_aot_compile() {
  local m="$1" r="$2" dir t0 t1
  dir="$OUT/$(name_of "$m")"
  [[ "$(cat "$dir/status")" == ok ]] || return 0
  t0=$(now)
  # shellcheck disable=SC2086  # COMPILE_FLAGS is a list of flags
  "$BIN" compile "$m" -o "$dir/again.xaot" ${HOST_CPU:+--host_cpu="$HOST_CPU"} ${COMPILE_FLAGS:-} >/dev/null 2>&1 || return 0
  t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >"$dir/aot_compile_s.$r"
  rm -f "$dir/again.xaot"
}

# "ITERATIONS WARMUP" for a program: fewer when its checked run was slow.
iterations_of() {
  local dir="$1"
  if [[ -f "$dir/run_ms" ]] && awk -v t="$(cat "$dir/run_ms")" -v s="$SLOW_MS" 'BEGIN { exit !(t > s) }'; then
    echo "3 1"
  else
    echo "$ITER 3"
  fi
}

time_cpu() {
  local m="$1" r="$2" dir base it wu
  dir="$OUT/$(name_of "$m")"
  read -r it wu < <(iterations_of "$dir")
  if ! base="$("$PY" benchmarks/xla_cpu_baseline.py "$m" --out_dir="$dir" --iterations="$it" --warmup="$wu" 2>"$dir/xla_cpu.log")"; then
    echo "XLA:CPU failed: $(tail -1 "$dir/xla_cpu.log" | cut -c1-100)" >"$dir/cpu_status"
    return
  fi
  sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p' <<<"$base" >"$dir/cpu_ms.$r"
  sed -n 's/.*compile_s=\([0-9.]*\).*/\1/p' <<<"$base" >"$dir/cpu_compile_s.$r"
}

inputs_of() {
  local dir="$1" n=0
  while [[ -f "$dir/input_$n.npy" ]]; do echo "--input=$dir/input_$n.npy"; n=$((n + 1)); done
}

time_aot() {
  local m="$1" r="$2" dir bench it wu
  time_aot_compile "$m" "$r"
  dir="$OUT/$(name_of "$m")"
  read -r it wu < <(iterations_of "$dir")
  # Without XLA:CPU's inputs there is nothing to compare with.
  [[ "$(cat "$dir/status")" == ok && ! -f "$dir/cpu_status" ]] || return 0
  local inputs=()
  mapfile -t inputs < <(inputs_of "$dir")
  if ! bench="$("$BIN" bench "$dir/m.xaot" "${inputs[@]}" --iterations="$it" --warmup="$wu" 2>&1)"; then
    echo "FAILED bench: $(tail -1 <<<"$bench" | cut -c1-100)" >"$dir/status"
    return
  fi
  awk '/^  median/ {print $2; exit}' <<<"$bench" >"$dir/aot_ms.$r"
  [[ "$r" == 1 ]] && printf '%s\n' "$bench" >"$dir/bench.txt"
  return 0
}

# Draws the inputs (one XLA:CPU execution, which also writes its outputs)
# and runs xla_aot once on them (outputs for check; run_ms sizes the timing).
first_run() {
  local m="$1" dir t0 t1
  dir="$OUT/$(name_of "$m")"
  if ! "$PY" benchmarks/xla_cpu_baseline.py "$m" --out_dir="$dir" --iterations=1 --warmup=0 >/dev/null 2>"$dir/xla_cpu.log"; then
    echo "XLA:CPU failed: $(tail -1 "$dir/xla_cpu.log" | cut -c1-100)" >"$dir/cpu_status"
    return
  fi
  [[ "$(cat "$dir/status")" == ok ]] || return 0
  local inputs=()
  mapfile -t inputs < <(inputs_of "$dir")
  t0=$(now)
  if ! "$BIN" run "$dir/m.xaot" "${inputs[@]}" --output_dir="$dir/xla_aot" >"$dir/run.log" 2>&1; then
    echo "FAILED run: $(tail -1 "$dir/run.log" | cut -c1-100)" >"$dir/status"
    return
  fi
  t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f\n", (b - a) * 1000 }' >"$dir/run_ms"
}

check() {
  local m="$1" dir cmp tol
  dir="$OUT/$(name_of "$m")"
  [[ "$(cat "$dir/status")" == ok && -d "$dir/xla_cpu" && -d "$dir/xla_aot" ]] || return 0
  tol="$TOL"
  [[ "$(name_of "$m")" =~ (bf16|f16) ]] && tol=3e-2
  if ! cmp="$("$PY" benchmarks/xla_cpu_baseline.py --compare "$dir/xla_aot" "$dir/xla_cpu" 2>&1)"; then
    echo "MISMATCH: $(tail -1 <<<"$cmp" | cut -c1-80)" >"$dir/check"
    return
  fi
  awk -v tol="$tol" '{
      for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      bad = (v["max_norm"] == "inf" || v["max_norm"] + 0 > tol + 0 || v["int_mismatches"] + 0 > 0)
      s = sprintf("%s%s", bad ? "MISMATCH " : "", v["max_norm"])
      if (v["int_mismatches"] + 0 > 0) s = s sprintf(", %d integer elements differ", v["int_mismatches"])
      if (v["nan_mismatches"] + 0 > 0) s = s sprintf(", %d NaN on one side only", v["nan_mismatches"])
      print s }' <<<"$cmp" >"$dir/check"
}

best() {  # the smallest number among the files given (those that exist; "" if none)
  { cat "$@" 2>/dev/null || true; } | sort -g | head -1
}

echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), load $(cut -d' ' -f1-3 /proc/loadavg) at start; $(date -u '+%F %H:%M UTC'); $BUILT_FROM; host kernels for ${HOST_CPU:-x86-64-v2 (+ x86-64-v4 / x86-64-v3 where the CPU has it)}; jax $("$PY" -c 'import jax; print(jax.__version__)'); ${#MODULES[@]} programs, $ROUNDS rounds of $ITER runs"
for m in "${MODULES[@]}"; do prepare "$m"; first_run "$m"; done
for ((r = 1; r <= ROUNDS; r++)); do
  for m in "${MODULES[@]}"; do
    if ((r % 2)); then time_cpu "$m" "$r"; time_aot "$m" "$r"; else time_aot "$m" "$r"; time_cpu "$m" "$r"; fi
  done
done
for m in "${MODULES[@]}"; do check "$m"; done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"

printf '| program | xla_aot | XLA:CPU | xla_aot / XLA:CPU | compile: xla_aot (process) | XLA:CPU (call) | ratio | check: max abs diff / max abs XLA:CPU output |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for m in "${MODULES[@]}"; do
  name="$(name_of "$m")"
  dir="$OUT/$name"
  status="$(cat "$dir/status")"
  cpu_ms="$(best "$dir"/cpu_ms.*)"
  cpu_c="$(best "$dir"/cpu_compile_s.*)"
  if [[ -z "$cpu_ms" ]]; then
    printf '| %s | | | %s |||||\n' "$name" "$(cat "$dir/cpu_status" 2>/dev/null || echo 'XLA:CPU failed')"
    echo "cpufail $name" >>"$OUT/summary"
    continue
  fi
  if [[ "$status" != ok ]]; then
    printf '| %s | **%s** | %.3f ms | **FAILED** | | %.3f s | | |\n' "$name" "$status" "$cpu_ms" "$cpu_c"
    echo "failed $name" >>"$OUT/summary"
    continue
  fi
  aot_ms="$(best "$dir"/aot_ms.*)"
  aot_c="$(best "$dir"/aot_compile_s.*)"
  chk="$(cat "$dir/check" 2>/dev/null || echo 'not checked')"
  awk -v n="$name" -v a="$aot_ms" -v x="$cpu_ms" -v ac="$aot_c" -v xc="$cpu_c" -v c="$chk" 'BEGIN {
    r = a / x; rc = ac / xc
    flag = (r > 1.5) ? "**" : ""
    printf "| %s | %.3f ms | %.3f ms | %s%.2fx%s | %.3f s | %.3f s | %.2fx | %s |\n", n, a, x, flag, r, flag, ac, xc, rc, c }'
  awk -v n="$name" -v a="$aot_ms" -v x="$cpu_ms" -v ac="$aot_c" -v xc="$cpu_c" \
    'BEGIN { printf "ok %s %.6g %.6g\n", n, a / x, ac / xc }' >>"$OUT/summary"
  [[ "$chk" == MISMATCH* || "$chk" == "not checked" ]] && echo "mismatch $name" >>"$OUT/summary"
done
echo
awk -v total="${#MODULES[@]}" '
  $1 == "ok" { n++; s += log($3); c += log($4); if ($3 > worst) { worst = $3; wn = $2 }
               if ($3 > 1.5) over++ }
  $1 == "failed" { nf++; fl = fl " " $2 }
  $1 == "cpufail" { ncf++; cfl = cfl " " $2 }
  $1 == "mismatch" { nm++; ml = ml " " $2 }
  END {
    if (n > 0) {
      printf "geometric mean xla_aot / XLA:CPU over %d of %d programs: %.2fx (compile: %.2fx); worst: %s %.2fx; over 1.5x: %d\n",
             n, total, exp(s / n), exp(c / n), wn, worst, over + 0
    }
    printf "xla_aot failures (compile, run or bench; not in the mean): %d%s\n", nf + 0, fl
    if (ncf > 0) printf "XLA:CPU failures (not in the mean): %d%s\n", ncf, cfl
    printf "outputs not matching XLA:CPU (or not checked): %d%s\n", nm + 0, ml
  }' "$OUT/summary"
