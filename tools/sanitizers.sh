#!/usr/bin/env bash
# The full sanitizer runs (docs/reliability.md, "Sanitizers"); tools/test.sh
# runs a subset on every change.
#
#   tools/sanitizers.sh [asan|ubsan|tsan|all]    (default: all)
#
# asan and ubsan: the types, parser, evaluator and passes, the middle end,
# the runtime and its loader, the CLI, and the fuzz, hostile-artifact,
# concurrency and MPI tests. tsan: everything with threads: the stream executors,
# the runtime, the JIT cache and the concurrency tests. Each configuration
# builds into Bazel's per-configuration output tree (the first run of each
# compiles everything once: tens of minutes on two cores). Prints Bazel's
# summary per configuration and exits non-zero if any test failed.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
which="${1:-all}"

memory_targets=(//xla/types/... //xla/hlo/... //xla/service/... //xla/backends/gpu/runtime/...
                //xla/aot/... //xla/tools/... //tests/fuzz/... //tests/hostile/...
                //tests/concurrency/...
                //xla/stream_executor/host:host_gemm_test  # moved from the runtime (issue 23)
                //xla/stream_executor/host:host_gemm_kernels_test
                //xla/stream_executor/host:host_object_check_test)
thread_targets=(//xla/stream_executor/... //xla/backends/gpu/runtime/... //xla/aot/...
                //xla/jit/... //tests/concurrency/...)

status=0
run() {  # run CONFIG TARGETS...
  local config="$1"
  shift
  echo "=== --config=$config"
  bazel test --config="$config" --test_summary=short "$@" || status=1
}
# The MPI tests (mpirun -np 2 and 4): under ASan without leak checking,
# because OpenMPI leaves its own allocations at exit (every report's frames
# are in libmpi, its plugins or libc; docs/reliability.md).
mpi_asan() {
  run asan --test_env=ASAN_OPTIONS=detect_leaks=0 //tests/mpi/...
}
case "$which" in
  asan) run asan "${memory_targets[@]}"; mpi_asan ;;
  ubsan) run ubsan "${memory_targets[@]}" //tests/mpi/... ;;
  tsan) run tsan "${thread_targets[@]}" ;;
  all)
    run asan "${memory_targets[@]}"
    mpi_asan
    run ubsan "${memory_targets[@]}" //tests/mpi/...
    run tsan "${thread_targets[@]}"
    ;;
  *)
    echo "usage: $0 [asan|ubsan|tsan|all]" >&2
    exit 2
    ;;
esac
exit $status
