#!/usr/bin/env bash
# Builds and runs a libFuzzer target of tests/fuzz with clang-14,
# AddressSanitizer and UndefinedBehaviorSanitizer (docs/reliability.md).
#
#   tools/fuzz.sh TARGET [SECONDS]      TARGET: hlo_parser | npy |
#                                       artifact_loader | artifact_structure |
#                                       host_object_check | all
#   tools/fuzz.sh build TARGET          build only
#
# The build uses its own Bazel output base ($FUZZ_OUTPUT_BASE, default
# ~/.cache/bazel_fuzz_clang) so the gcc build is untouched. Seeds come from
# tests/fuzz/corpus/<kind> and tests/fuzz/corpus/regressions/<kind>; new
# coverage-increasing inputs are kept in $FUZZ_WORK_DIR/<target>/corpus
# (default /tmp/xla_fuzz); a crash is written to $FUZZ_WORK_DIR/<target>/
# as crash-<sha1>: copy it into tests/fuzz/corpus/regressions/<kind>/ so the
# *_fuzzer_test replays it from then on. Exits non-zero on a crash.
# $FUZZ_FLAGS adds libFuzzer flags, e.g. FUZZ_FLAGS="-fork=1
# -ignore_crashes=1" to keep going past known crashes and collect them all.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUTPUT_BASE="${FUZZ_OUTPUT_BASE:-$HOME/.cache/bazel_fuzz_clang}"
WORK_DIR="${FUZZ_WORK_DIR:-/tmp/xla_fuzz}"
CLANG="${CLANG:-/usr/bin/clang-14}"
TARGETS=(hlo_parser npy artifact_loader artifact_structure host_object_check)

usage() {
  sed -n '2,16p' "$0" >&2
  exit 2
}

corpus_kind() {
  case "$1" in
    hlo_parser) echo hlo ;;
    npy) echo npy ;;
    artifact_loader | artifact_structure) echo artifact ;;
    host_object_check) echo elf ;;
    *) echo "fuzz.sh: unknown target '$1' (want one of: ${TARGETS[*]} all)" >&2; exit 2 ;;
  esac
}

build() {
  local labels=()
  for t in "$@"; do
    corpus_kind "$t" >/dev/null
    labels+=("//tests/fuzz:${t}_fuzzer")
  done
  if [[ ! -x "$CLANG" ]]; then
    echo "fuzz.sh: $CLANG not found; install clang-14 and libclang-rt-14-dev" >&2
    exit 1
  fi
  if ! ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
    echo "fuzz.sh: the libFuzzer runtime is missing; install libclang-rt-14-dev" >&2
    exit 1
  fi
  # -Wno-error: clang warns where gcc does not; the gcc build keeps -Werror.
  CC="$CLANG" bazel --output_base="$OUTPUT_BASE" build \
    --repo_env=CC="$CLANG" --action_env=CC="$CLANG" \
    --copt=-fsanitize=fuzzer-no-link,address,undefined \
    --copt=-fno-sanitize-recover=undefined \
    --copt=-fno-omit-frame-pointer --copt=-O1 --copt=-gline-tables-only \
    --linkopt=-fsanitize=address,undefined --linkopt=-fsanitize-link-c++-runtime \
    --per_file_copt='^xla/.*,^tests/.*,^tools/.*@-Wno-error' \
    "${labels[@]}"
}

run() {
  local target="$1" seconds="$2" kind bin dir
  kind="$(corpus_kind "$target")"
  bin="$(bazel --output_base="$OUTPUT_BASE" info bazel-bin 2>/dev/null)/tests/fuzz/${target}_fuzzer"
  dir="$WORK_DIR/$target"
  mkdir -p "$dir/corpus"
  echo "== $target: ${seconds}s, corpus $dir/corpus"
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$dir/" ${FUZZ_FLAGS:-} \
    "$dir/corpus" "tests/fuzz/corpus/$kind" "tests/fuzz/corpus/regressions/$kind"
}

[[ $# -ge 1 ]] || usage
if [[ "$1" == "build" ]]; then
  [[ $# -eq 2 ]] || usage
  if [[ "$2" == all ]]; then build "${TARGETS[@]}"; else build "$2"; fi
  exit 0
fi
seconds="${2:-60}"
if [[ "$1" == all ]]; then
  build "${TARGETS[@]}"
  for t in "${TARGETS[@]}"; do run "$t" "$seconds"; done
else
  build "$1"
  run "$1" "$seconds"
fi
