#!/usr/bin/env bash
# The GPU check: everything to run on a machine with an NVIDIA GPU, in one
# call, with the reference computed here and carried along.
#
#   tools/gpu_check.sh prepare [TARGET]   here (no GPU needed). TARGET is
#                                         sm_80 | sm_86 | sm_89 | sm_90
#                                         (default), or host for a dry run
#                                         of the whole check on this machine
#   tools/gpu_check.sh run                on the GPU machine, from the repo
#                                         root, with gpu_check/ carried there
#   tools/gpu_check.sh build              there: rebuild gpu_check/bin/ with
#                                         CMake and ninja (run does this
#                                         itself when the binaries fail to start)
#
# `prepare` fills gpu_check/ (git-ignored; about 19 MiB for host, 40 MiB for
# a GPU target with the corpus, under the device tool's 64 MiB carry limit):
#   bin/     xla_aot_device (run, bench, inspect; no compiler, no LLVM), the
#            CUDA conformance test and the cuBLASLt load test, built with
#            -c opt --dynamic_mode=off;
#   lib/     the shared libraries they need beyond glibc and libstdc++
#            (abseil, protobuf, zlib from Debian), so they run on a machine
#            without this project's build dependencies (LD_LIBRARY_PATH);
#   cases/   one folder per end-to-end case: every example module (three
#            xla/ test modules and tools/gpu_check/cases/*.hlo, written for
#            this check: e.g. reductions of every GPU kernel shape with a
#            non-identity init, and Transformer Engine's fused attention,
#            forward then backward, te_attention_*.hlo: the compiler's
#            FlashAttention kernels on GPU targets; XLA:GPU cannot run
#            those calls without TE, so they are not in the models/ timing),
#            JAX's bf16/f16 attention in plain HLO compiled with
#            --fuse_attention=on (xla/aot/testdata/attention/mixed_*.hlo,
#            softmax_bf16_*.hlo, jax.nn.dot_product_attention's dpa_bf16_*
#            and dpa_f16_*, f32_score_dot_*, f16_fill_after_convert_*: the
#            same FlashAttention kernel, reached by the attention-rewriter;
#            docs/attention_fusion.md)
#            and every
#            corpus module (../shared/hlo_corpus or $XLA_HLO_CORPUS: xla/,
#            headerless/, models/) that compiles for TARGET and that the
#            evaluator runs within $GPU_CHECK_EVAL_TIMEOUT s (default 20):
#            model.xaot, for the examples also model_both.xaot (cubin+PTX),
#            inputs/in<i>.npy, drawn by the evaluator (--random_inputs
#            --seed=1: index operands in range), and expected/out<i>.npy,
#            the evaluator's outputs for them;
#   collectives/  the collective golden modules (tests/aot_compatibility/gpu/
#            executables/host_2dev/v1: all-reduce, gather/scatter, permute and
#            replica-id) compiled for TARGET with --emit_collectives, with
#            their stacked inputs and the replicated evaluator's outputs for
#            2 participants;
#   collectives1/  tools/gpu_check/collectives/*.hlo: every collective over
#            one participant (replica_count=1), with the inputs stored beside
#            each module and the replicated evaluator's outputs;
#   goldens/ the golden suite's artifacts for TARGET
#            (tests/aot_compatibility/gpu/executables/TARGET/v*/*: artifacts
#            written by earlier compilers) with their stored inputs and
#            outputs, so old artifacts run on the real device too;
#   bandwidth/  copy, elementwise, row and column reduction and transpose
#            artifacts over f32[R,C] (8192x8193 for a GPU, 2048x2049 for
#            host), and copy and elementwise over 4R rows (is a rate
#            size-bound?);
#   models/  benchmarks/models/*.hlo and the corpus ResNet-50, each as HLO
#            text and as an artifact for TARGET, for the side-by-side
#            timing against XLA (jax) there; the bf16 models also as
#            NAME_fuse_attention (compiled with --fuse_attention=on);
#   cudnn/   the models/ artifacts with convolutions (ResNet-50) compiled
#            again with --emit_cudnn_convolutions (bias epilogues fused into
#            the cuDNN call), for cudnn_vs_im2col; the cases with
#            convolutions carry model_cudnn.xaot as well (fused too);
#   cudnn_unfused/  the same with --target_runtime=2026-12-02 (a runtime
#            before fused epilogues: the bias stays a kernel), for
#            cudnn_epilogue_on_off;
#   graphs/  chain2000: 2,000 dependent elementwise kernels (--no_fusion),
#            the launch-bound case of the CUDA graphs timing;
#   cmake/   what the fallback build needs (GPU targets): the runtime's source
#            list from Bazel's query, the generated protobuf code, and the
#            abseil, protobuf, googletest and Eigen headers.
#
# `run` prints the date, commit and target, then (GPU targets) nvidia-smi,
# the conformance suite on the device (driver, streams, events, modules,
# memory) and the cuBLASLt load; then runs every case against its carried
# inputs and outputs (`xla_aot_device run --input=... --expected`), the mlp case
# also with classic cuBLAS by pointing XLA_CUBLASLT_LIBRARY nowhere); then
# the golden artifacts against their stored outputs; then the one-participant collective cases (`run --replicas=1`: real NCCL calls
# on one-rank communicators, so a one-GPU machine runs NCCL too); then
# the collective cases on 2 GPUs through NCCL (`run --replicas=2`) when the
# machine has at least 2, or a line saying they were skipped and why, and
# NCCL's own all_reduce_perf when it is on the PATH; then
# benches the bandwidth artifacts and prints a short table of achieved GB/s
# (bytes read + written per run over the kernels' traced median time, and
# over the untraced median of Execute), each against the device-to-device
# copy; then, where Nsight Compute is installed, its speed-of-light figures
# for three of those kernels; then Execute's median with CUDA graphs on and
# off for models/ and graphs/chain2000 (graphs_on_off); then Execute's
# median of the models with convolutions through im2col and through cuDNN,
# and how far their outputs differ (cudnn_vs_im2col; cuDNN from the loader's
# cache or jax's pip nvidia-cudnn, find_cudnn), and the same for cuDNN with
# and without fused bias epilogues (cudnn_epilogue_on_off); then, when that machine's python3 has jax with
# a GPU (a CPU for a host dry run), times each of models/ on XLA:GPU
# (benchmarks/xla_cpu_baseline.py --platform=gpu, the same HLO text) and
# with `xla_aot_device bench` on the same inputs, and prints both, their
# ratio and the largest difference of the outputs over the largest
# |XLA output|, marking those over 5% or with NaNs on one side only (an
# observation, not a failure: see models_vs_xla). Exits non-zero if any step
# or case failed.
# Copy its output into docs/perf/gpu.md with the date, the GPU and the commit.
#
# If the carried binaries do not start there (a shared library missing or
# too old: the loader names it), `run` rebuilds them there first with the
# machine's CMake and ninja (tools/gpu_check/CMakeLists.txt, from the
# carried cmake/ folder and the repository's sources; no network, no
# Debian packages); `tools/gpu_check.sh build` does only that step.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$repo/gpu_check"
mode="${1:-}"

usage() {
  echo "usage: $0 prepare [sm_80|sm_86|sm_89|sm_90|host] | run | build" >&2
  exit 2
}

# Excluded from lib/: the C library, the loader and the C++ runtime, which
# the machine has in a version at least as new (binaries built against an
# older glibc run on a newer one; the CUDA libraries need the machine's own
# libstdc++).
system_lib() {
  case "$(basename "$1")" in
    linux-vdso* | ld-linux* | libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | \
      libstdc++.so* | libgcc_s.so*) return 0 ;;
  esac
  return 1
}

# bandwidth_module NAME R C: the HLO text of one bandwidth artifact.
bandwidth_module() {
  local name="$1" r="$2" c="$3"
  echo "HloModule bandwidth_$name"
  echo
  case "$name" in
    copy | transpose | elementwise) ;;
    row_reduce | column_reduce)
      echo "add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }"
      echo ;;
  esac
  echo "ENTRY main {"
  echo "  p = f32[$r,$c] parameter(0)"
  case "$name" in
    copy) echo "  ROOT o = f32[$r,$c] copy(p)" ;;
    transpose) echo "  ROOT o = f32[$c,$r] transpose(p), dimensions={1,0}" ;;
    elementwise)
      echo "  q = f32[$r,$c] parameter(1)"
      echo "  m = f32[$r,$c] multiply(p, q)"
      echo "  ROOT o = f32[$r,$c] add(m, p)" ;;
    row_reduce)
      echo "  z = f32[] constant(0)"
      echo "  ROOT o = f32[$r] reduce(p, z), dimensions={1}, to_apply=add" ;;
    column_reduce)
      echo "  z = f32[] constant(0)"
      echo "  ROOT o = f32[$c] reduce(p, z), dimensions={0}, to_apply=add" ;;
  esac
  echo "}"
}

prepare() {
  local target="${1:-sm_90}"
  case "$target" in sm_80 | sm_86 | sm_89 | sm_90 | host) ;; *) usage ;; esac
  cd "$repo"
  local labels=(//xla/tools:xla_aot //xla/tools:xla_aot_device)
  [ "$target" = host ] || labels+=(//xla/stream_executor/cuda:cuda_conformance_test
                                   //xla/stream_executor/cuda:cublaslt_api_test)
  # $GPU_CHECK_OUTPUT_BASE: a Bazel output base to build in (default Bazel's).
  local bazel=(bazel ${GPU_CHECK_OUTPUT_BASE:+--output_base=$GPU_CHECK_OUTPUT_BASE})
  "${bazel[@]}" build -c opt --dynamic_mode=off "${labels[@]}" || exit 1
  local bin compiler corpus
  bin="$("${bazel[@]}" info -c opt bazel-bin 2>/dev/null)"
  # `xla_aot compile` is xla::aot::Compile (xla/aot/compile.h) behind flags.
  compiler="$bin/xla/tools/xla_aot"
  rm -rf "$out"
  mkdir -p "$out/bin" "$out/lib" "$out/cases" "$out/collectives" "$out/collectives1" \
    "$out/bandwidth" "$out/models" "$out/goldens"
  cp -f "$bin/xla/tools/xla_aot_device" "$out/bin/"
  if [ "$target" != host ]; then
    cp -f "$bin/xla/stream_executor/cuda/cuda_conformance_test" \
      "$bin/xla/stream_executor/cuda/cublaslt_api_test" "$out/bin/"
  fi
  chmod u+w "$out/bin/"*
  local lib
  for lib in $(ldd "$out/bin/"* | awk '/=>/ { print $3 }' | sort -u); do
    system_lib "$lib" || cp -fL "$lib" "$out/lib/"
  done
  [ "$target" = host ] || prepare_cmake "$bin"
  echo "$target" > "$out/target"
  git rev-parse --short HEAD > "$out/commit" 2>/dev/null || echo unknown > "$out/commit"

  # End-to-end cases.
  corpus="${XLA_HLO_CORPUS:-$repo/../shared/hlo_corpus}"
  local plain_attention_cases=(xla/aot/testdata/attention/mixed_bf16_causal_b2_s129_h4_d64.hlo
                               xla/aot/testdata/attention/mixed_f16_causal_b1_s40_h2_d32.hlo
                               xla/aot/testdata/attention/softmax_bf16_keypad_b3_h2_s33_d16.hlo
                               xla/aot/testdata/attention/mixed_bf16_gqa2_repeat_b2_s40_h4_d16.hlo
                               xla/aot/testdata/attention/dpa_bf16_causal_gqa2_b2_s40_h4_d64.hlo
                               xla/aot/testdata/attention/dpa_f16_b1_s33_h2_d16.hlo
                               xla/aot/testdata/attention/f32_score_dot_bf16_causal_b2_s33_h2_d16.hlo
                               xla/aot/testdata/attention/f16_fill_after_convert_b2_s40_h2_d16.hlo)
  local modules=(xla/tools/testdata/mlp.hlo xla/service/fusion/testdata/softmax.hlo
                 xla/service/fusion/testdata/layer_norm.hlo tools/gpu_check/cases/*.hlo
                 "${plain_attention_cases[@]}")
  local sub f
  for sub in xla headerless models; do
    for f in "$corpus/$sub"/*.hlo; do [ -f "$f" ] && modules+=("$f"); done
  done
  local eval_timeout="${GPU_CHECK_EVAL_TIMEOUT:-20}"
  local m name dir cases=0 no_compile=0 no_eval=0 too_big=0
  for m in "${modules[@]}"; do
    name="$(basename "$m" .hlo)"
    dir="$out/cases/$name"
    mkdir -p "$dir/expected" "$dir/inputs"
    # Modules with fft compile with --emit_fft (stage 1, off by default): on
    # CUDA targets they run through cuFFT (libcufft.so.12 from the machine's
    # loader path, or $XLA_CUFFT_LIBRARY).
    local emit=()
    grep -q ' fft(' "$m" && emit=(--emit_fft)
    # JAX's bf16/f16 attention in plain HLO, compiled with the rewriter on
    # (opt-in): the compiler's FlashAttention kernel on GPU targets.
    [[ " ${plain_attention_cases[*]} " == *" $m "* ]] && emit+=(--fuse_attention=on)
    if ! timeout 120 "$compiler" compile "$m" -o "$dir/model.xaot" --target="$target" "${emit[@]}" \
        >/dev/null 2>&1; then
      no_compile=$((no_compile + 1)); rm -rf "$dir"; continue
    fi
    if ! timeout "$eval_timeout" "$compiler" eval "$m" --random_inputs --seed=1 \
        --output_dir="$dir/expected" --save_inputs="$dir/inputs" >/dev/null 2>&1; then
      no_eval=$((no_eval + 1)); rm -rf "$dir"; continue
    fi
    if [ "$(du -sk "$dir" | cut -f1)" -gt 2048 ]; then
      too_big=$((too_big + 1)); rm -rf "$dir"; continue
    fi
    echo "$m" > "$dir/source"
    if [ "$target" != host ] && [[ "$m" != "$corpus"/* ]]; then
      "$compiler" compile "$m" -o "$dir/model_both.xaot" --target="$target" "${emit[@]}" \
        --emit_cubin_with_ptx >/dev/null 2>&1 || { echo "prepare: $m: cubin+PTX compile failed" >&2; exit 1; }
    fi
    # Cases with convolutions also through cuDNN (--emit_cudnn_convolutions),
    # in exact f32 (no TF32, CUDNN_FMA_MATH) so that the evaluator's outputs
    # and the default tolerance hold.
    if [ "$target" != host ] && grep -q ' convolution(' "$m"; then
      "$compiler" compile "$m" -o "$dir/model_cudnn.xaot" --target="$target" \
        --emit_cudnn_convolutions --gpu_f32_dot_precision=highest >/dev/null 2>&1 ||
        { echo "prepare: $m: cuDNN compile failed" >&2; exit 1; }
    fi
    cases=$((cases + 1))
  done
  echo "prepare: $cases cases for $target; skipped: $no_compile not compiled for $target" \
       "(unsupported or refused by name), $no_eval not evaluated (evaluator error, tuple parameter or over ${eval_timeout}s)," \
       "$too_big over 2 MiB"

  # Collective cases: 2 participants, the goldens' stacked inputs and
  # expected outputs (from the replicated evaluator).
  local golden="$repo/tests/aot_compatibility/gpu/executables/host_2dev/v1" i
  for m in "$golden"/*/module.hlo; do
    name="$(basename "$(dirname "$m")")"
    dir="$out/collectives/$name"
    mkdir -p "$dir/inputs" "$dir/expected"
    "$compiler" compile "$m" -o "$dir/model.xaot" --target="$target" --emit_collectives \
      >/dev/null || { echo "prepare: collective module $name did not compile" >&2; exit 1; }
    i=0
    while [ -f "$(dirname "$m")/input_$i.npy" ]; do
      cp "$(dirname "$m")/input_$i.npy" "$dir/inputs/in$i.npy"; i=$((i + 1))
    done
    i=0
    while [ -f "$(dirname "$m")/expected_$i.npy" ]; do
      cp "$(dirname "$m")/expected_$i.npy" "$dir/expected/out$i.npy"; i=$((i + 1))
    done
  done

  # One-participant collective cases: the inputs stored beside each module
  # (with the leading participant dimension), the evaluator's outputs.
  for m in "$repo"/tools/gpu_check/collectives/*.hlo; do
    name="$(basename "$m" .hlo)"
    dir="$out/collectives1/$name"
    mkdir -p "$dir/inputs" "$dir/expected"
    "$compiler" compile "$m" -o "$dir/model.xaot" --target="$target" --emit_collectives \
      >/dev/null || { echo "prepare: collective module $name did not compile" >&2; exit 1; }
    local eval_inputs=()
    i=0
    while [ -f "${m%.hlo}.input_$i.npy" ]; do
      cp "${m%.hlo}.input_$i.npy" "$dir/inputs/in$i.npy"
      eval_inputs+=("--input=${m%.hlo}.input_$i.npy"); i=$((i + 1))
    done
    "$compiler" eval "$m" --replicas=1 "${eval_inputs[@]}" --output_dir="$dir/expected" \
      >/dev/null || { echo "prepare: collective module $name did not evaluate" >&2; exit 1; }
  done

  # The golden suite's artifacts for TARGET, named <version>_<case>.
  local g
  for g in "$repo/tests/aot_compatibility/gpu/executables/$target"/v*/*/; do
    [ -f "$g/artifact.xaot" ] || continue
    dir="$out/goldens/$(basename "$(dirname "$g")")_$(basename "$g")"
    mkdir -p "$dir/inputs" "$dir/expected"
    cp "$g/artifact.xaot" "$dir/model.xaot"
    i=0
    while [ -f "$g/input_$i.npy" ]; do cp "$g/input_$i.npy" "$dir/inputs/in$i.npy"; i=$((i + 1)); done
    i=0
    while [ -f "$g/expected_$i.npy" ]; do cp "$g/expected_$i.npy" "$dir/expected/out$i.npy"; i=$((i + 1)); done
  done

  # Bandwidth artifacts.
  local r=8192 c=8193 k
  [ "$target" = host ] && { r=2048; c=2049; }
  for k in copy elementwise row_reduce column_reduce transpose copy_4x elementwise_4x; do
    case "$k" in
      *_4x) bandwidth_module "${k%_4x}" $((4 * r)) "$c" ;;
      *) bandwidth_module "$k" "$r" "$c" ;;
    esac > "$out/bandwidth/$k.hlo"
    "$compiler" compile "$out/bandwidth/$k.hlo" -o "$out/bandwidth/$k.xaot" --target="$target" \
      >/dev/null || { echo "prepare: bandwidth module $k did not compile" >&2; exit 1; }
  done

  # Models for the side-by-side timing against XLA. The bf16 ones also
  # with --fuse_attention=on (NAME_fuse_attention: the FlashAttention
  # kernel on GPU targets, the host kernel for host), against the same XLA.
  for m in "$repo"/benchmarks/models/*bf16*.hlo; do
    [ -f "$m" ] || continue
    name="$(basename "$m" .hlo)_fuse_attention"
    cp -f "$m" "$out/models/$name.hlo"
    "$compiler" compile "$m" -o "$out/models/$name.xaot" --target="$target" --fuse_attention=on \
      >/dev/null || { echo "prepare: model $name did not compile for $target" >&2; exit 1; }
  done
  for m in "$repo"/benchmarks/models/*.hlo \
      "$corpus/models/backends__cpu__benchmarks__hlo__resnet50_keras_jax_f32.hlo"; do
    [ -f "$m" ] || continue
    name="$(basename "$m" .hlo)"
    name="${name#backends__cpu__benchmarks__hlo__}"
    cp -f "$m" "$out/models/$name.hlo"
    "$compiler" compile "$m" -o "$out/models/$name.xaot" --target="$target" >/dev/null ||
      { echo "prepare: model $name did not compile for $target" >&2; exit 1; }
    # Models with convolutions also through cuDNN, for cudnn_vs_im2col.
    if [ "$target" != host ] && grep -q ' convolution(' "$m"; then
      mkdir -p "$out/cudnn"
      "$compiler" compile "$m" -o "$out/cudnn/$name.xaot" --target="$target" \
        --emit_cudnn_convolutions >/dev/null ||
        { echo "prepare: model $name did not compile with --emit_cudnn_convolutions" >&2; exit 1; }
      mkdir -p "$out/cudnn_unfused"
      "$compiler" compile "$m" -o "$out/cudnn_unfused/$name.xaot" --target="$target" \
        --emit_cudnn_convolutions --target_runtime=2026-12-02 >/dev/null ||
        { echo "prepare: model $name did not compile for a runtime without fused epilogues" >&2; exit 1; }
    fi
  done
  # A launch-bound program for the CUDA graphs timing: 2,000 dependent
  # elementwise kernels (--no_fusion: one kernel per add; kernel reuse keeps
  # one kernel in the table), one graph of 2,000 nodes.
  mkdir -p "$out/graphs"
  {
    echo "HloModule chain2000"
    echo
    echo "ENTRY main {"
    echo "  x0 = f32[4096] parameter(0)"
    echo "  y = f32[4096] parameter(1)"
    for i in $(seq 1 2000); do echo "  x$i = f32[4096] add(x$((i - 1)), y)"; done
    echo "  ROOT r = f32[4096] copy(x2000)"
    echo "}"
  } > "$out/graphs/chain2000.hlo"
  "$compiler" compile "$out/graphs/chain2000.hlo" -o "$out/graphs/chain2000.xaot" --target="$target" \
    --no_fusion >/dev/null || { echo "prepare: chain2000 did not compile for $target" >&2; exit 1; }
  du -sh "$out"
}

# prepare_cmake BAZEL_BIN: the fallback build's inputs (cmake/):
# sources.txt, the .cc files of xla_aot_device's closure (less its main);
# <test>.sources.txt, what each CUDA test adds to that; the generated
# protobuf code and the third-party headers.
prepare_cmake() {
  local bin="$1" cm="$out/cmake"
  mkdir -p "$cm/include/google" "$cm/gen"
  cp -r /usr/include/absl /usr/include/gtest /usr/include/gmock /usr/include/eigen3/Eigen \
    "$cm/include/"
  cp -r /usr/include/google/protobuf "$cm/include/google/"
  # NCCL's header (the runtime loads libnccl with dlopen but compiles
  # against nccl.h): a GPU machine's toolkit may not ship it.
  cp -f "${CUDA_HOME:-/usr/local/cuda}/include/nccl.h" "$cm/include/" ||
    { echo "prepare: no nccl.h in ${CUDA_HOME:-/usr/local/cuda}/include" >&2; exit 1; }
  # cuDNN's headers likewise (the runtime dlopens libcudnn.so.9; jax's
  # pip cuDNN on the GPU machine may come without headers).
  cp -f "${CUDA_HOME:-/usr/local/cuda}"/include/cudnn*.h "$cm/include/" ||
    { echo "prepare: no cudnn.h in ${CUDA_HOME:-/usr/local/cuda}/include" >&2; exit 1; }
  cp -f /usr/lib/x86_64-linux-gnu/libgtest.a /usr/lib/x86_64-linux-gnu/libgtest_main.a \
    /usr/lib/x86_64-linux-gnu/libgmock.a "$out/lib/"
  # closure_sources LABEL EXCLUDE_FILE: LABEL's .cc files under //xla that
  # are not its own srcs nor listed in EXCLUDE_FILE; copies generated
  # protobuf code on the way.
  closure_sources() {
    local label="$1" exclude="$2" mains src path
    mains="$("${bazel[@]}" query "labels(srcs, $label)" 2>/dev/null)"
    for src in $("${bazel[@]}" query "kind('source file', deps($label))" 2>/dev/null); do
      [[ "$src" == //xla* ]] || continue
      grep -qx -- "$src" <<<"$mains" && continue
      path="${src#//}"
      path="${path/://}"
      [ -f "$exclude" ] && grep -qx -- "$path" "$exclude" && continue
      case "$path" in
        */host_gemm_kernels.cc) ;;  # built twice by the CMakeLists
        *.cc) echo "$path" ;;
        *.proto)
          mkdir -p "$cm/gen/$(dirname "$path")"
          cp -f "$bin/${path%.proto}.pb.h" "$bin/${path%.proto}.pb.cc" "$cm/gen/$(dirname "$path")/" ;;
      esac
    done
  }
  closure_sources //xla/tools:xla_aot_device /dev/null > "$cm/sources.txt"
  local t
  for t in cuda_conformance_test cublaslt_api_test; do
    closure_sources "//xla/stream_executor/cuda:$t" "$cm/sources.txt" > "$cm/$t.sources.txt"
  done
  chmod -R u+w "$cm"
}

# build: rebuilds gpu_check/bin/ on this machine with CMake and ninja.
build_there() {
  cd "$repo"
  [ -f "$out/cmake/sources.txt" ] || { echo "gpu_check: $out/cmake missing: run '$0 prepare sm_XX' first" >&2; return 2; }
  local dir="${GPU_CHECK_BUILD_DIR:-/tmp/xla_gpu_check_build}"
  local cuda="${CUDA_HOME:-/usr/local/cuda}/include"
  echo "=== building gpu_check/bin with CMake and ninja in $dir"
  cmake -G Ninja -S "$repo/tools/gpu_check" -B "$dir" -DREPO="$repo" -DGPU_CHECK="$out" \
    -DCUDA_INCLUDE="$cuda" > "$dir.cmake.log" 2>&1 ||
    { cat "$dir.cmake.log" >&2; return 1; }
  ninja -C "$dir" xla_aot_device cuda_conformance_test cublaslt_api_test || return 1
  cp -f "$dir/xla_aot_device" "$dir/cuda_conformance_test" "$dir/cublaslt_api_test" "$out/bin/"
}

# bench_rate FILE.xaot: "<bytes per run> <traced ms per run> <Execute ms>"
# from `xla_aot_device bench`: the kernel and copy lines (traced: CUDA
# timing events since 2026-11-30; before, each stamp was a host function on
# the stream and a short kernel's traced time held two host round trips) and
# the untraced median of Execute (launch and synchronization included).
bench_rate() {
  "$out/bin/xla_aot_device" bench "$1" --iterations=20 --warmup=3 | awk '
    /^  median / { wall = $2 }
    /^  (kernel|copy) / {
      if (match($0, /x[0-9.]+ +[0-9.]+ ms +[0-9]+ bytes/)) {
        split(substr($0, RSTART + 1, RLENGTH - 1), f, / +/)
        ms += f[2]; bytes += f[1] * f[4]
      }
    }
    END { if (ms > 0 && wall > 0) printf "%d %.6f %.6f\n", bytes, ms, wall; else exit 1 }'
}

# ncu_speed_of_light: on a GPU with Nsight Compute, the speed-of-light
# figures of three bandwidth kernels (one run each, clocks left alone).
# Diagnostic only: never changes the status.
ncu_speed_of_light() {
  [ "$target" = host ] && return
  local ncu k tmp
  ncu="$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)"
  if [ -z "$ncu" ]; then
    echo "=== ncu: not found on this machine"
    return
  fi
  tmp="$(mktemp -d)"
  for k in elementwise column_reduce transpose; do
    echo "=== ncu $k ($ncu --clock-control none --section SpeedOfLight)"
    timeout "$step_timeout" "$ncu" --clock-control none --section SpeedOfLight \
      "$out/bin/xla_aot_device" run "$out/bandwidth/$k.xaot" --random_inputs \
      --output_dir="$tmp/$k" 2>&1 |
      grep -E "xla_fusion|Duration|Throughput|Elapsed Cycles|==ERROR==|==WARNING==" | head -12
  done
  rm -rf "$tmp"
}

# graphs_on_off: Execute's untraced median with CUDA graphs on and off
# (xla_aot_device bench --cuda_graphs=on|off, 20 timed runs after 3 warm-up
# runs) for the models/ artifacts and graphs/chain2000 (2,000 kernels), with
# the graphs and nodes bench reports. An observation: a failing bench sets
# status=1, a slower side does not.
graphs_on_off() {
  echo "=== CUDA graphs on and off (Execute's untraced median, bench --iterations=20 --warmup=3)"
  echo "| artifact | graphs | nodes | off ms | on ms | off/on |"
  echo "|---|---|---|---|---|---|"
  local a name on off stats
  for a in "$out"/models/*.xaot "$out"/graphs/chain2000.xaot; do
    [ -f "$a" ] || continue
    name="$(basename "$a" .xaot)"
    on="$(timeout "$step_timeout" "$out/bin/xla_aot_device" bench "$a" --iterations=20 --warmup=3 \
          --cuda_graphs=on 2>&1)" || { echo "| $name | bench failed ||||| "; status=1; continue; }
    off="$(timeout "$step_timeout" "$out/bin/xla_aot_device" bench "$a" --iterations=20 --warmup=3 \
           --cuda_graphs=off 2>&1)" || { echo "| $name | bench failed ||||| "; status=1; continue; }
    stats="$(grep -m1 '^cuda graphs:' <<<"$on")"
    awk -v n="$name" -v s="$stats" -v on_ms="$(awk '/^run time/ { getline; print $2; exit }' <<<"$on")" \
        -v off_ms="$(awk '/^run time/ { getline; print $2; exit }' <<<"$off")" 'BEGIN {
      g = "-"; nodes = "-"
      if (match(s, /on, [0-9]+ graphs of [0-9]+ nodes/)) {
        split(substr(s, RSTART + 4, RLENGTH - 4), w, " "); g = w[1]; nodes = w[4]
      } else if (s != "") { g = s }
      printf "| %s | %s | %s | %s | %s | %s |\n", n, g, nodes, off_ms, on_ms,
        (on_ms > 0 ? sprintf("%.2fx", off_ms / on_ms) : "n/a") }'
  done
}

# find_cudnn: exports XLA_CUDNN_LIBRARY when the dynamic loader does not
# know libcudnn.so.9 but a pip cuDNN (jax[cuda12]'s nvidia-cudnn-cu12) has
# it; prints where cuDNN comes from.
find_cudnn() {
  if ldconfig -p 2>/dev/null | grep -q 'libcudnn.so.9 '; then
    echo "cuDNN: libcudnn.so.9 from the dynamic loader's cache"
    return
  fi
  local lib
  lib="$(python3 -c 'import nvidia.cudnn, os; print(os.path.join(list(nvidia.cudnn.__path__)[0], "lib", "libcudnn.so.9"))' 2>/dev/null)"
  if [ -n "$lib" ] && [ -f "$lib" ]; then
    export XLA_CUDNN_LIBRARY="$lib"
    echo "cuDNN: $lib (pip)"
  else
    echo "cuDNN: libcudnn.so.9 not found (the cuDNN artifacts will fail at Initialize, saying so)"
  fi
}

# compare_builds TITLE BASE_DIR BASE_LABEL OTHER_DIR OTHER_LABEL: for each
# artifact of OTHER_DIR, Execute's untraced median (bench --iterations=20
# --warmup=3, random inputs) of it and of its namesake in BASE_DIR, and the
# largest difference of their outputs on the same inputs (--seed=1), over
# the largest |BASE output|. A failing run sets status=1; a slower side
# does not.
compare_builds() {
  local title="$1" base_dir="$2" base_label="$3" other_dir="$4" other_label="$5"
  [ -d "$other_dir" ] || return
  echo "=== $title (Execute's untraced median, bench --iterations=20 --warmup=3)"
  echo "| model | $base_label ms | $other_label ms | $base_label/$other_label | outputs: max abs diff, over max |$base_label| |"
  echo "|---|---|---|---|---|"
  local a name base other_ms base_ms tmp check
  for a in "$other_dir"/*.xaot; do
    name="$(basename "$a" .xaot)"
    base="$base_dir/$name.xaot"
    other_ms="$(timeout "$step_timeout" "$out/bin/xla_aot_device" bench "$a" --iterations=20 \
                --warmup=3 2>&1 | awk '/^  median/ { print $2; exit }')"
    base_ms="$(timeout "$step_timeout" "$out/bin/xla_aot_device" bench "$base" --iterations=20 \
               --warmup=3 2>&1 | awk '/^  median/ { print $2; exit }')"
    tmp="$(mktemp -d)"
    if [ -z "$other_ms" ] || [ -z "$base_ms" ] ||
       ! timeout "$step_timeout" "$out/bin/xla_aot_device" run "$a" --random_inputs --seed=1 \
           --output_dir="$tmp/other" > "$tmp/run.log" 2>&1 ||
       ! timeout "$step_timeout" "$out/bin/xla_aot_device" run "$base" --random_inputs --seed=1 \
           --output_dir="$tmp/base" >> "$tmp/run.log" 2>&1; then
      printf '| %s | %s | FAILED: %s |||\n' "$name" "${base_ms:-?}" "$(tail -1 "$tmp/run.log" | cut -c1-100)"
      status=1; rm -rf "$tmp"; continue
    fi
    check="$(python3 "$repo/benchmarks/xla_cpu_baseline.py" --compare "$tmp/other" "$tmp/base" 2>&1 |
             sed -n 's/.*\(max_abs=[^ ]*\).*\(max_norm=[^ ]*\).*/\1 \2/p')"
    awk -v n="$name" -v b="$base_ms" -v c="$other_ms" -v d="${check:-no python3 compare}" 'BEGIN {
      printf "| %s | %.3f | %.3f | %.2fx | %s |\n", n, b, c, b / c, d }'
    rm -rf "$tmp"
  done
}

# cudnn_vs_im2col: the models with convolutions compiled with im2col + GEMM
# (models/) against --emit_cudnn_convolutions (cudnn/).
cudnn_vs_im2col() {
  compare_builds "cuDNN against im2col convolutions" "$out/models" im2col "$out/cudnn" cuDNN
}

# cudnn_epilogue_on_off: cuDNN convolutions with the bias epilogue as a
# separate kernel (cudnn_unfused/) against fused into the cuDNN call
# (cudnn/).
cudnn_epilogue_on_off() {
  compare_builds "cuDNN with the bias epilogue as a kernel against fused" "$out/cudnn_unfused" \
    unfused "$out/cudnn" fused
}

# models_vs_xla: the models/ table (see the top); sets status=1 when an
# artifact fails to run. Outputs that differ from XLA's are marked, not
# failed: the end-to-end cases check correctness against the evaluator,
# while XLA may round dots through TF32 or treat NaNs differently.
models_vs_xla() {
  local platform=gpu
  [ "$target" = host ] && platform=cpu
  echo "=== models against XLA:${platform^^} (jax on this machine, the same HLO text and inputs, 50 runs each)"
  if ! timeout "$step_timeout" python3 -c "import jax; jax.devices('$platform')" > /dev/null 2>&1; then
    echo "skipped: this machine's python3 has no jax with a $platform device"
    return
  fi
  printf '| module | XLA:%s | xla_aot | xla_aot/XLA | max abs diff, over max |XLA| |\n|---|---|---|---|---|\n' "${platform^^}"
  local m name dir base xla_ms aot_ms check inputs n
  for m in "$out"/models/*.hlo; do
    name="$(basename "$m" .hlo)"
    dir="$(mktemp -d)"
    if ! base="$(timeout "$step_timeout" python3 "$repo/benchmarks/xla_cpu_baseline.py" "$m" \
        --out_dir="$dir" --platform="$platform" --iterations=50 --warmup=5 2> "$dir/xla.log")"; then
      printf '| %s | XLA failed: %s ||||\n' "$name" "$(tail -1 "$dir/xla.log" | cut -c1-100)"
      rm -rf "$dir"; continue
    fi
    xla_ms="$(sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p' <<<"$base")"
    inputs=(); n=0
    while [ -f "$dir/input_$n.npy" ]; do inputs+=("--input=$dir/input_$n.npy"); n=$((n + 1)); done
    aot_ms="$(timeout "$step_timeout" "$out/bin/xla_aot_device" bench "${m%.hlo}.xaot" "${inputs[@]}" \
              --iterations=50 --warmup=5 2>&1 | awk '/^  median/ { print $2; exit }')"
    if [ -z "$aot_ms" ] || ! timeout "$step_timeout" "$out/bin/xla_aot_device" run "${m%.hlo}.xaot" \
        "${inputs[@]}" --output_dir="$dir/xla_aot" > "$dir/run.log" 2>&1; then
      printf '| %s | %s ms | FAILED: %s |||\n' "$name" "$xla_ms" "$(tail -1 "$dir/run.log" 2>/dev/null | cut -c1-100)"
      status=1; rm -rf "$dir"; continue
    fi
    check="$(python3 "$repo/benchmarks/xla_cpu_baseline.py" --compare "$dir/xla_aot" "$dir/xla_$platform" 2>&1)"
    awk -v n="$name" -v x="$xla_ms" -v a="$aot_ms" -v c="$check" 'BEGIN {
      abs = c; sub(/.*max_abs=/, "", abs); sub(/ .*/, "", abs)
      norm = c; sub(/.*max_norm=/, "", norm); sub(/ .*/, "", norm)
      nans = c; sub(/.*nan_in_baseline=/, "", nans); sub(/ .*/, "", nans)
      lone = c; sub(/.*nan_mismatches=/, "", lone); sub(/ .*/, "", lone)
      off = !(c ~ /max_norm=/) || norm == "inf" || norm + 0 > 0.05
      note = ""
      if (nans + 0 > 0) note = sprintf(" (%s NaN on both sides)", nans)
      if (lone + 0 > 0) note = sprintf(" (%s NaN on one side only)", lone)
      printf "| %s | %.3f ms | %.3f ms | %.2fx | %s, %s%s%s |\n", n, x, a, a / x, abs, norm,
        note, (off ? " **differs from XLA**" : "") }'
    rm -rf "$dir"
  done
}

run_check() {
  cd "$repo"
  [ -x "$out/bin/xla_aot_device" ] || { echo "gpu_check: $out/bin/xla_aot_device missing: run '$0 prepare' first" >&2; exit 2; }
  local target commit status=0
  # $GPU_CHECK_STEP_TIMEOUT: seconds one step or case may run (default 300).
  local step_timeout="${GPU_CHECK_STEP_TIMEOUT:-300}"
  target="$(cat "$out/target")"
  commit="$(cat "$out/commit")"
  export LD_LIBRARY_PATH="$out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if ! "$out/bin/xla_aot_device" --help > /dev/null 2>&1; then
    echo "gpu_check: the carried xla_aot_device does not start here:"
    "$out/bin/xla_aot_device" --help 2>&1 | head -3
    if [ "$target" = host ] || ! build_there; then
      echo "gpu_check: no working xla_aot_device" >&2
      exit 1
    fi
  fi
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit: $commit  target: $target"
  [ "$target" = host ] || find_cudnn
  step() {  # step NAME COMMAND...
    echo "=== $1"
    shift
    timeout "$step_timeout" "$@"
    local rc=$?
    echo "=== exit $rc"
    [ $rc -eq 0 ] || status=1
  }
  if [ "$target" != host ]; then
    # The conformance test reads its PTX from $TEST_SRCDIR/xla_aot/... (the
    # layout of Bazel's runfiles): point it at this checkout.
    local srcdir="${TMPDIR:-/tmp}/xla_gpu_check_srcdir"
    mkdir -p "$srcdir" && ln -sfn "$repo" "$srcdir/xla_aot"
    export TEST_SRCDIR="$srcdir"
    step "nvidia-smi" nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    step "conformance" "$out/bin/cuda_conformance_test"
    step "cublasLt load" "$out/bin/cublaslt_api_test"
  fi

  echo "=== end-to-end cases against the evaluator's carried outputs"
  local dir name pass=0 fail=0 log variant
  log="$(mktemp)"
  # run_case LABEL DIR ARTIFACT [FLAG...]: runs ARTIFACT (with the
  # environment assignments in case_env) on DIR's carried inputs against
  # DIR/expected, counting into pass and fail.
  run_case() {
    local label="$1" dir="$2" artifact="$3" inputs=() i=0
    shift 3
    while [ -f "$dir/inputs/in$i.npy" ]; do inputs+=("--input=$dir/inputs/in$i.npy"); i=$((i + 1)); done
    if env "${case_env[@]}" timeout "$step_timeout" "$out/bin/xla_aot_device" run "$artifact" "$@" \
        "${inputs[@]}" --expected="$dir/expected" > "$log" 2>&1; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      echo "FAIL $label: $(grep -v PASS "$log" | head -3 | tr '\n' ' ')"
    fi
  }
  local case_env=()
  for dir in "$out"/cases/*/; do
    name="$(basename "$dir")"
    for variant in model model_both model_cudnn classic; do
      local artifact="$dir/model.xaot"
      case_env=()
      case "$variant" in
        model_both) artifact="$dir/model_both.xaot"; [ -f "$artifact" ] || continue ;;
        model_cudnn) artifact="$dir/model_cudnn.xaot"; [ -f "$artifact" ] || continue ;;
        classic)
          [ "$name" = mlp ] && [ "$target" != host ] || continue
          case_env=(XLA_CUBLASLT_LIBRARY=/nonexistent/libcublasLt.so) ;;
      esac
      run_case "$name ($variant)" "$dir" "$artifact"
    done
  done
  case_env=()
  echo "cases: $pass passed, $fail failed"
  [ "$fail" -eq 0 ] || status=1

  # run_suite NOUN PARENT [FLAG...]: run_case (with FLAGs) on every case
  # folder in PARENT, then one summary line.
  run_suite() {
    local noun="$1" parent="$2" dir
    shift 2
    pass=0 fail=0
    for dir in "$parent"/*/; do
      [ -d "$dir" ] && run_case "$(basename "$dir")" "$dir" "$dir/model.xaot" "$@"
    done
    echo "$noun: $pass passed, $fail failed"
    [ "$fail" -eq 0 ] || status=1
  }

  echo "=== golden $target artifacts (written by earlier compilers) against their stored outputs"
  run_suite "golden cases" "$out/goldens"

  # Collectives over one participant: a host device, or one GPU through
  # NCCL's one-rank communicators.
  echo "=== collectives over 1 participant ($([ "$target" = host ] && echo "a host device" || echo "1 GPU through NCCL"))"
  run_suite "collective cases" "$out/collectives1" --replicas=1

  # Collectives on 2 devices: host devices for a host dry run, else GPUs
  # through NCCL when the machine has 2.
  local gpus=2
  [ "$target" = host ] || gpus="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')"
  if [ "$gpus" -lt 2 ]; then
    echo "=== collectives on 2 GPUs: skipped (this machine has $gpus GPU; NCCL needs 2)"
  else
    echo "=== collectives on 2 $([ "$target" = host ] && echo "host devices" || echo "GPUs through NCCL")"
    run_suite "collective cases" "$out/collectives" --replicas=2
    if [ "$target" != host ] && command -v all_reduce_perf > /dev/null; then
      step "NCCL all_reduce_perf (1 KiB .. 64 MiB, $gpus GPUs)" \
        all_reduce_perf -b 1K -e 64M -f 8 -g "$gpus"
    fi
  fi
  rm -f "$log"

  echo "=== bandwidth (f32, bytes read + written per run over the traced kernel time and over Execute's untraced median)"
  printf '| module | MB per run | traced ms | GB/s | Execute ms | GB/s | vs copy (Execute) |\n'
  printf '|---|---|---|---|---|---|---|\n'
  local k line bytes ms wall copy_rate=""
  for k in copy elementwise row_reduce column_reduce transpose copy_4x elementwise_4x; do
    if ! line="$(bench_rate "$out/bandwidth/$k.xaot")"; then
      echo "| $k | bench failed ||||||"; status=1; continue
    fi
    read -r bytes ms wall <<<"$line"
    [ "$k" = copy ] && copy_rate="$(awk -v b="$bytes" -v t="$wall" 'BEGIN { print b / t }')"
    awk -v k="$k" -v b="$bytes" -v t="$ms" -v w="$wall" -v c="$copy_rate" 'BEGIN {
      printf "| %s | %.1f | %.3f | %.1f | %.3f | %.1f | %s |\n", k, b / 1e6, t, b / t / 1e6, w,
        b / w / 1e6, (c > 0 ? sprintf("%.2fx", b / w / c) : "n/a") }'
  done
  ncu_speed_of_light
  graphs_on_off
  cudnn_vs_im2col
  cudnn_epilogue_on_off
  models_vs_xla
  echo "gpu_check: $([ $status -eq 0 ] && echo ALL PASSED || echo SOME STEPS FAILED)"
  exit $status
}

case "$mode" in
  prepare) prepare "${2:-sm_90}" ;;
  run) run_check ;;
  build) build_there ;;
  *) usage ;;
esac
