#!/bin/bash
# Adds a new version of the golden suite of stored artifacts:
#   tests/aot_compatibility/gpu/executables/<target>/v<N+1>/<module>/
#     module.hlo  artifact.xaot  input_<i>.npy  expected_<i>.npy
# Stored versions are never regenerated: this refuses to write into an
# existing v<N> directory. See docs/aot_compatibility.md, "Golden suite".
#
# usage: tools/update_goldens.sh [--xla_aot=BIN] [--version=N] [--targets="host sm_90"]
#                                [--modules_from=DIR] [--seed=S]
#
#   --xla_aot=BIN       the compiler to use (default: //xla/tools:xla_aot built
#                       from this tree). Give an older build to make an older
#                       version.
#   --version=N         the version to write (default: newest + 1 per target)
#   --targets=LIST      targets (default "host sm_90"; also host_<N>dev and
#                       sm_XX_<N>gpu)
#   --modules_from=DIR  take the modules from DIR/*.hlo (the module name is the
#                       file name); default: the modules of the newest version
#   --seed=S            seed of the random inputs (default 7)
#
# host_offload (never in the default list) holds host modules compiled with
# --offload_scan_stacks (scan stacks in host memory).
# sm_XX targets are compiled with --emit_cubin_with_ptx when BIN knows it.
# Artifacts come from `BIN compile`, which in this tree is xla::aot::Compile
# (xla/aot/compile.h) with the CLI's defaults.
# Inputs come from MakeRandomInputs(seed), expected outputs from the
# reference evaluator (never from the compiled artifact), both written by
# //tests/aot_compatibility/gpu:make_golden_io.
# host_<N>dev targets (e.g. host_2dev; never in the default list, name them
# with --targets) hold collective modules run on N host devices: compiled
# for the host with --emit_collectives; every input_<i>.npy / expected_<i>.npy
# carries a leading dimension of N (replica r's inputs drawn with its own
# seed, as `xla_aot eval --replicas=N --random_inputs`), the expected
# outputs from the replicated evaluator (the N replicas in lockstep).
# sm_XX_<N>gpu targets (e.g. sm_90_2gpu) hold the same kind of modules
# compiled for sm_XX with --emit_collectives, for N GPUs, with the same
# stacked inputs and expected outputs.
# Set XLA_AOT_OUTPUT_BASE to build with your own bazel output base.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
golden="tests/aot_compatibility/gpu/executables"
xla_aot="" version="" targets="host sm_90" modules_from="" seed=7
for arg in "$@"; do
  case "$arg" in
    --xla_aot=*) xla_aot="${arg#*=}" ;;
    --version=*) version="${arg#*=}" ;;
    --targets=*) targets="${arg#*=}" ;;
    --modules_from=*) modules_from="${arg#*=}" ;;
    --seed=*) seed="${arg#*=}" ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "update_goldens: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

bazel_cmd=(bazel)
[[ -n "${XLA_AOT_OUTPUT_BASE:-}" ]] && bazel_cmd+=("--output_base=$XLA_AOT_OUTPUT_BASE")
build=(//tests/aot_compatibility/gpu:make_golden_io)
[[ -z "$xla_aot" ]] && build+=(//xla/tools:xla_aot)
"${bazel_cmd[@]}" build "${build[@]}" >&2
bin="$("${bazel_cmd[@]}" info bazel-bin 2>/dev/null)"
make_io="$bin/tests/aot_compatibility/gpu/make_golden_io"
[[ -z "$xla_aot" ]] && xla_aot="$bin/xla/tools/xla_aot"
[[ -x "$xla_aot" ]] || { echo "update_goldens: $xla_aot is not executable" >&2; exit 1; }

newest_version() {  # prints the largest N of $1/v<N>, or 0
  local n=0 d v
  for d in "$1"/v*/; do
    [[ -d "$d" ]] || continue
    v="$(basename "$d")"; v="${v#v}"
    [[ "$v" =~ ^[0-9]+$ ]] && (( v > n )) && n=$v
  done
  echo "$n"
}

for target in $targets; do
  newest=$(newest_version "$golden/$target")
  n="${version:-$((newest + 1))}"
  out="$golden/$target/v$n"
  if [[ -e "$out" ]]; then
    echo "update_goldens: $out exists; stored goldens are never regenerated (pick a new --version)" >&2
    exit 1
  fi
  if [[ -n "$modules_from" ]]; then
    sources=("$modules_from"/*.hlo)
  elif (( newest > 0 )); then
    sources=("$golden/$target/v$newest"/*/module.hlo)
  else
    echo "update_goldens: $golden/$target has no version yet; give --modules_from=DIR" >&2
    exit 1
  fi
  flags=(--target="$target")
  io_flags=()
  if [[ "$target" == host_offload ]]; then
    flags=(--target=host --offload_scan_stacks)
  elif [[ "$target" =~ ^host_([0-9]+)dev$ ]]; then
    replicas=$((10#${BASH_REMATCH[1]}))
    (( replicas >= 1 )) || { echo "update_goldens: $target: need at least 1 device" >&2; exit 1; }
    flags=(--target=host --emit_collectives)
    io_flags=(--replicas="$replicas")
  elif [[ "$target" =~ ^(sm_[0-9]+)_([0-9]+)gpu$ ]]; then
    replicas=$((10#${BASH_REMATCH[2]}))
    (( replicas >= 1 )) || { echo "update_goldens: $target: need at least 1 GPU" >&2; exit 1; }
    flags=(--target="${BASH_REMATCH[1]}" --emit_collectives)
    io_flags=(--replicas="$replicas")
  fi
  # The help text is read whole first: `grep -q` on a pipe can stop the
  # writer early, and pipefail would then read that as "not supported".
  if [[ "$target" == sm_* ]] && [[ "$("$xla_aot" compile --help 2>&1)" == *--emit_cubin_with_ptx* ]]; then
    flags+=(--emit_cubin_with_ptx)
  fi
  mkdir -p "$golden/$target"
  tmp="$(mktemp -d "$golden/$target/.tmp.v$n.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  for src in "${sources[@]}"; do
    if [[ "$(basename "$src")" == module.hlo ]]; then
      name="$(basename "$(dirname "$src")")"
    else
      name="$(basename "$src" .hlo)"
    fi
    mkdir "$tmp/$name"
    cp "$src" "$tmp/$name/module.hlo"
    "$xla_aot" compile "$tmp/$name/module.hlo" -o "$tmp/$name/artifact.xaot" "${flags[@]}" >&2
    "$make_io" "$tmp/$name/module.hlo" "$seed" "$tmp/$name" ${io_flags[@]+"${io_flags[@]}"}
  done
  mv -T "$tmp" "$out"  # fails rather than overwrite if $out appeared meanwhile
  trap - EXIT
  echo "update_goldens: wrote $out (${#sources[@]} modules, ${flags[*]}, compiler $xla_aot)"
done
