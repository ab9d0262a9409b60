// Helpers of the golden suite of stored artifacts
// (tests/aot_compatibility/gpu/executables/<target>/v<N>/<module>/): version
// listing and selection, writing a module's inputs and reference outputs,
// the output comparison of `xla_aot run --reference`, and the structural
// form of an artifact that verification mode compares.
//
// Thread-safety: pure functions over their arguments; the file functions
// touch only the paths they are given.
#ifndef TESTS_AOT_COMPATIBILITY_GPU_GOLDEN_IO_H_
#define TESTS_AOT_COMPATIBILITY_GPU_GOLDEN_IO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/types/literal.h"

namespace xla::golden {

// The version numbers N of the `v<N>` directories directly under
// `target_dir`, ascending. Other entries are ignored. NotFound when
// `target_dir` is not a directory.
absl::StatusOr<std::vector<int>> ListVersions(const std::string& target_dir);

// The versions backward mode checks: every one when `all`, else the oldest
// and the second-newest (one entry when they coincide; the only version
// when there is one). Empty only for empty input.
std::vector<int> VersionsToCheck(const std::vector<int>& versions, bool all);

// The subdirectory names of `dir` (one per module), sorted. NotFound when
// `dir` is not a directory.
absl::StatusOr<std::vector<std::string>> ListModules(const std::string& dir);

// The files dir/<prefix>0.npy, <prefix>1.npy, ... up to the first missing
// index, read as npy literals. Errors name the unreadable file.
absl::StatusOr<std::vector<Literal>> ReadNumberedNpy(const std::string& dir,
                                                     const std::string& prefix);

// Parses and verifies the module at `module_path`, draws its inputs with
// MakeRandomInputs(module, seed), evaluates it on the reference evaluator
// and writes out_dir/input_<i>.npy (one per parameter) and
// out_dir/expected_<i>.npy (one per result leaf, depth-first). Errors name
// the file and the step (parse, verify, evaluate, write) that failed.
absl::Status WriteInputsAndExpected(const std::string& module_path, uint64_t seed,
                                    const std::string& out_dir);

// The number of host devices a golden target runs on: N for `host_<N>dev`
// (N >= 1, e.g. "host_2dev" -> 2), 0 for every other target (single-device
// targets such as "host" and "sm_90").
int64_t ReplicaCountOfTarget(const std::string& target);

// For GPU golden targets: the architecture ("sm_90" for "sm_90" and for
// "sm_90_2gpu") and the number of GPUs (N for `sm_XX_<N>gpu`, N >= 1; 0 for
// a single-device "sm_XX"). Host targets give "" and 0.
std::string GpuArchOfTarget(const std::string& target);
int64_t GpuCountOfTarget(const std::string& target);

// WriteInputsAndExpected for a module of a `host_<N>dev` target: replica r
// draws MakeRandomInputs(module, ParticipantSeed(seed, r)) (random_inputs.h,
// as `xla_aot eval --replicas=N --random_inputs` does); the N replicas are
// evaluated in lockstep by EvaluateReplicated (the oracle for collectives).
// Every input_<i>.npy and expected_<i>.npy carries a leading dimension of
// `num_replicas`, slice r being replica r's value (the layout of
// xla::tools::RunReplicated). Errors name the file and the step that failed;
// InvalidArgument for num_replicas < 1.
absl::Status WriteReplicatedInputsAndExpected(const std::string& module_path, uint64_t seed,
                                              int64_t num_replicas, const std::string& out_dir);

// The comparison of `xla_aot run --reference`: float arrays pass when every
// element is within tol * (|want| + max|want|) (tol the type's
// DefaultRelativeTolerance), NaN matching NaN; everything else compares
// with CompareLiterals (exact for integers). The error names the first
// differing element and how many differ.
absl::Status CompareOutput(const Literal& want, const Literal& got);

// The artifact as text format with everything verification mode ignores
// cleared: header compiler version, production date, checksum and toolchain
// requirements; the host shared objects (the baseline and the wider
// builds); the optimized HLO text; every
// kernel's machine code (cubin bytes and PTX text; the spec kind, entry and
// host symbol stay).
std::string StructuralText(const gpu::GpuExecutableProto& artifact);

// A line diff of `want` and `got` (longest common subsequence): unchanged
// lines near a change are prefixed "  ", removed lines "- ", added lines
// "+ ". Empty when the texts are equal.
std::string LineDiff(const std::string& want, const std::string& got);

}  // namespace xla::golden

#endif  // TESTS_AOT_COMPATIBILITY_GPU_GOLDEN_IO_H_
