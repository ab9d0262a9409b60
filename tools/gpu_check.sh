#!/usr/bin/env bash
# The GPU check: what to run, in one call, on a machine with an NVIDIA GPU.
#
#   tools/gpu_check.sh prepare      # here (no GPU needed): build static
#                                   # binaries into gpu_check/ (git-ignored)
#   tools/gpu_check.sh run [sm_90]  # on the GPU machine, from the repo root
#
# `prepare` builds xla_aot, the CUDA conformance test and the cuBLASLt load
# test with -c opt and --dynamic_mode=off, so the files in gpu_check/ run
# without Bazel's output tree (carry `gpu_check` to the device machine).
# `run` prints the driver and GPU, runs the conformance suite (driver,
# streams, events, modules) on the real device, checks that libcublasLt
# loads, then compiles each example module for the target and runs it
# against the evaluator (`xla_aot run --reference`, PASS/FAIL per output).
# GEMMs go through cuBLASLt; mlp runs once more with XLA_CUBLASLT_LIBRARY
# pointing nowhere, which makes the runtime fall back to classic cuBLAS.
# Every step prints its exit status; the script exits non-zero if any step
# failed. Copy its output into
# docs/perf/gpu.md with the date and the commit.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$repo/gpu_check"
mode="${1:-}"
target="${2:-sm_90}"

case "$mode" in
  prepare)
    cd "$repo"
    bazel build -c opt --dynamic_mode=off //xla/tools:xla_aot \
      //xla/stream_executor/cuda:cuda_conformance_test \
      //xla/stream_executor/cuda:cublaslt_api_test || exit 1
    mkdir -p "$out"
    bin="$(bazel info -c opt bazel-bin 2>/dev/null)"
    cp -f "$bin/xla/tools/xla_aot" "$bin/xla/stream_executor/cuda/cuda_conformance_test" \
      "$bin/xla/stream_executor/cuda/cublaslt_api_test" "$out/"
    ls -la "$out"
    ;;
  run)
    cd "$repo"
    [ -x "$out/xla_aot" ] || { echo "gpu_check: $out/xla_aot missing: run '$0 prepare' first" >&2; exit 2; }
    status=0
    step() {  # step NAME COMMAND...
      echo "=== $1"
      shift
      timeout 300 "$@"
      local rc=$?
      echo "=== exit $rc"
      [ $rc -eq 0 ] || status=1
    }
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)  target: $target"
    step "nvidia-smi" nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    step "conformance" "$out/cuda_conformance_test"
    step "cublasLt load" "$out/cublaslt_api_test"
    for m in mlp softmax layer_norm; do
      hlo="xla/tools/testdata/$m.hlo"
      [ -f "$hlo" ] || hlo="xla/service/fusion/testdata/$m.hlo"
      [ -f "$hlo" ] || { echo "=== $m: no module file"; status=1; continue; }
      step "compile $m" "$out/xla_aot" compile "$hlo" -o "/tmp/gpu_check_$m.xaot" --target="$target"
      step "run $m" "$out/xla_aot" run "/tmp/gpu_check_$m.xaot" --random_inputs --seed=1 --reference="$hlo"
      step "compile $m (cubin+ptx)" "$out/xla_aot" compile "$hlo" -o "/tmp/gpu_check_${m}_both.xaot" \
        --target="$target" --emit_cubin_with_ptx
      step "run $m (cubin+ptx)" "$out/xla_aot" run "/tmp/gpu_check_${m}_both.xaot" --random_inputs \
        --seed=1 --reference="$hlo"
      if [ "$m" = mlp ]; then
        step "run $m (classic cuBLAS)" env XLA_CUBLASLT_LIBRARY=/nonexistent/libcublasLt.so \
          "$out/xla_aot" run "/tmp/gpu_check_$m.xaot" --random_inputs --seed=1 --reference="$hlo"
      fi
    done
    echo "gpu_check: $([ $status -eq 0 ] && echo ALL PASSED || echo SOME STEPS FAILED)"
    exit $status
    ;;
  *)
    echo "usage: $0 prepare | run [sm_80|sm_86|sm_89|sm_90]" >&2
    exit 2
    ;;
esac
