#!/usr/bin/env bash
# Runs every test: installs the Debian packages (tools/install_deps.sh), runs
# `bazel test //...` (which includes //python:wheel_test: the Python wheel
# built, installed into a fresh venv of Debian's python3 and tested), then reruns the malformed-input parser tests and the
# parser and .npy fuzz harnesses under AddressSanitizer and
# UndefinedBehaviorSanitizer, and the stream executor and JIT cache under
# ThreadSanitizer. Prints Bazel's per-test summary and a final
# "N passed, N failed" line; exits non-zero if anything failed.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
tools/install_deps.sh || exit 1

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
bazel test --test_summary=short //... 2>&1 | tee -a "$log" || status=1
# Parser, .npy and ELF-check robustness under ASan (see .bazelrc's asan
# config): the malformed-input cases, the fuzz harnesses' deterministic
# runs, and the signature digests.
bazel test --config=asan --test_summary=short //xla/hlo/parser:malformed_input_test \
  //tests/fuzz:hlo_parser_fuzzer_test //tests/fuzz:npy_fuzzer_test \
  //tests/fuzz:host_object_check_fuzzer_test //xla/stream_executor/host:host_object_check_test \
  //xla/backends/gpu/runtime:artifact_signature_test 2>&1 \
  | tee -a "$log" || status=1
# The same cases under UndefinedBehaviorSanitizer (every
# finding fatal: .bazelrc's ubsan config).
bazel test --config=ubsan --test_summary=short //xla/hlo/parser:malformed_input_test \
  //tests/fuzz:hlo_parser_fuzzer_test //tests/fuzz:npy_fuzzer_test \
  //tests/fuzz:host_object_check_fuzzer_test //xla/stream_executor/host:host_object_check_test \
  //xla/backends/gpu/runtime:artifact_signature_test 2>&1 \
  | tee -a "$log" || status=1
# The runtime (streams, thread pool, concurrent Execute (with CUDA graphs
# on the fake driver too), the fake NCCL and
# the NCCL cliques, trace stamps on two streams, the host fused-attention
# decode path's key chunks on the launch pool) and the JIT cache (threads
# x keys x modes, injected failures, restart) and the serving example's
# thread pool and sessions under ThreadSanitizer.
bazel test --config=tsan --test_summary=short //xla/stream_executor/... \
  //xla/backends/gpu/runtime/collectives:nccl_communicator_test \
  //xla/backends/gpu/runtime:thunk_trace_test \
  //xla/backends/gpu/ffi:te_fused_attention_host_test \
  //xla/aot:concurrent_execute_test //xla/aot:executable_test //xla/aot:cuda_graphs_test \
  //xla/jit:jit_stress_test //xla/jit:compilation_cache_test //xla/jit:compiler_pool_test \
  //tests/concurrency:concurrent_execution_test \
  //examples/serving:model_server_test //examples/serving:request_dir_test 2>&1 \
  | tee -a "$log" || status=1

passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log" || true)
failed=$(grep -cE '^//[^ ]+ +(FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD)' "$log" || true)
echo
echo "$passed passed, $failed failed"
if [ "$failed" -ne 0 ] || [ "$passed" -eq 0 ]; then status=1; fi
exit $status
