// Test-only: a small hand-written host artifact for the observability tests
// (bench, run --trace, inspect --dot), written to TEST_TMPDIR.
//
//   add.1   kernel add_f32 {x, y, sum}          sum = x + y
//   dot.2   gemm 2x3 . (2x3)^T -> 2x2            dot = x y^T
//   zero    memset acc = 0
//   loop    while (3 trips) { acc.3: kernel acc_f32 {acc, x} }   acc = 3x
//
// Allocations: 0 x, 1 y (parameters, 24 bytes), 2 sum (24), 3 dot (16),
// 4 acc (24, outputs), 5 predicate (temp, 4).
#ifndef XLA_TOOLS_BENCH_COMMAND_TEST_ARTIFACT_H_
#define XLA_TOOLS_BENCH_COMMAND_TEST_ARTIFACT_H_

#include <cstdlib>
#include <fstream>
#include <string>

#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::cli::testing {

inline constexpr char kObservabilityArtifact[] = R"pb(
header { compiler_version: "test 1.0" production_date: "2026-11-29T00:00:00Z" }
payload {
  module_name: "obs"
  program_shape {
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 2 dimensions: 3 }
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 2 dimensions: 3 }
    result { element_type: PRIMITIVE_TYPE_TUPLE
             tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 2 dimensions: 3 }
             tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 2 dimensions: 2 }
             tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 2 dimensions: 3 } }
  }
  kernels { name: "add" host_symbol: "add_f32" }
  kernels { name: "acc" host_symbol: "acc_f32" }
  allocations { index: 0 size: 24 is_parameter: true parameter_number: 0 }
  allocations { index: 1 size: 24 is_parameter: true parameter_number: 1 }
  allocations { index: 2 size: 24 is_output: true }
  allocations { index: 3 size: 16 is_output: true }
  allocations { index: 4 size: 24 is_output: true }
  allocations { index: 5 size: 4 is_temp: true }
  outputs { shape_index: 0 slice { allocation: 2 size: 24 } }
  outputs { shape_index: 1 slice { allocation: 3 size: 16 } }
  outputs { shape_index: 2 slice { allocation: 4 size: 24 } }
  thunks { profile_annotation: "add.1" kernel { kernel_index: 0 args { allocation: 0 size: 24 } args { allocation: 1 size: 24 } args { allocation: 2 size: 24 }
           launch_dimensions { grid_x: 6 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }
  thunks { profile_annotation: "dot.2" gemm { lhs { allocation: 0 size: 24 } rhs { allocation: 1 size: 24 } output { allocation: 3 size: 16 }
           element_type: PRIMITIVE_TYPE_F32 m: 2 n: 2 k: 3 transpose_rhs: true alpha: 1 } }
  thunks { profile_annotation: "zero" memset { destination { allocation: 4 size: 24 } } }
  thunks { profile_annotation: "loop" while {
    predicate { allocation: 5 size: 1 }
    body { thunks { profile_annotation: "acc.3" kernel { kernel_index: 1 args { allocation: 4 size: 24 } args { allocation: 0 size: 24 }
           launch_dimensions { grid_x: 6 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } } }
    known_trip_count: 3 } }
}
)pb";

// TEST_TMPDIR/<name>.
inline std::string TmpPath(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

// Writes the artifact above as TEST_TMPDIR/obs.xaot and returns the path.
inline std::string WriteObservabilityArtifact() {
  const std::string path = TmpPath("obs.xaot");
  std::ofstream(path, std::ios::binary)
      << gpu::testing::SerializeArtifact(gpu::testing::MakeArtifact(kObservabilityArtifact));
  return path;
}

}  // namespace xla::cli::testing

#endif  // XLA_TOOLS_BENCH_COMMAND_TEST_ARTIFACT_H_
