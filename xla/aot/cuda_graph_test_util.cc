#include "xla/aot/cuda_graph_test_util.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::aot::testing {
namespace {

namespace se = ::stream_executor;

// A PTX module with one entry of three pointer parameters, as the fake
// driver reads it (".entry <name>(" and its ".param"s).
std::string Ptx(const std::string& entry) {
  return absl::StrCat(".version 7.8\\n.target sm_80\\n.address_size 64\\n.visible .entry ", entry,
                      "(\\n.param .u64 a,\\n.param .u64 b,\\n.param .u64 c\\n)\\n{\\nret;\\n}\\n");
}

constexpr char kArtifact[] = R"pb(
header { target: "sm_80" }
payload {
  module_name: "graphs"
  num_streams: 1
  program_shape {
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 37 }
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 37 }
    result { element_type: PRIMITIVE_TYPE_TUPLE
             tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 37 }
             tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 37 } }
  }
  kernels { name: "add" ptx { ptx: "$ADD" entry: "add_f32" } }
  kernels { name: "mul" ptx { ptx: "$MUL" entry: "mul_f32" } }
  allocations { index: 0 size: 148 is_parameter: true parameter_number: 0 }
  allocations { index: 1 size: 148 is_parameter: true parameter_number: 1 }
  allocations { index: 2 size: 148 is_output: true }
  allocations { index: 3 size: 148 is_output: true }
  allocations { index: 4 size: 148 is_temp: true }
  allocations { index: 5 size: 148 is_temp: true }
  allocations { index: 6 size: 148 is_temp: true }
  outputs { shape_index: 0 slice { allocation: 2 size: 148 } }
  outputs { shape_index: 1 slice { allocation: 3 size: 148 } }
  thunks { memset { destination { allocation: 5 size: 148 } pattern: 1065353216 } }
  thunks { kernel { kernel_index: 0 args { allocation: 0 size: 148 } args { allocation: 1 size: 148 }
           args { allocation: 4 size: 148 }
           launch_dimensions { grid_x: 37 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }
  thunks { copy { source { allocation: 4 size: 148 } destination { allocation: 6 size: 148 } } }
  thunks { kernel { kernel_index: 1 args { allocation: 6 size: 148 } args { allocation: 0 size: 148 }
           args { allocation: 2 size: 148 }
           launch_dimensions { grid_x: 37 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }
  thunks { kernel { kernel_index: 0 args { allocation: 4 size: 148 } args { allocation: 5 size: 148 }
           args { allocation: 3 size: 148 }
           launch_dimensions { grid_x: 37 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }
}
)pb";

constexpr char kGemmArtifact[] = R"pb(
header { target: "sm_80" }
payload {
  module_name: "gemm_graph"
  num_streams: 1
  program_shape {
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 5 dimensions: 7 }
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 7 dimensions: 3 }
    result { element_type: PRIMITIVE_TYPE_TUPLE
             tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 5 dimensions: 3 }
             tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 5 dimensions: 3 } }
  }
  kernels { name: "add" ptx { ptx: "$ADD" entry: "add_f32" } }
  kernels { name: "mul" ptx { ptx: "$MUL" entry: "mul_f32" } }
  allocations { index: 0 size: 140 is_parameter: true parameter_number: 0 }
  allocations { index: 1 size: 84 is_parameter: true parameter_number: 1 }
  allocations { index: 2 size: 60 is_output: true }
  allocations { index: 3 size: 60 is_output: true }
  allocations { index: 4 size: 140 is_temp: true }
  outputs { shape_index: 0 slice { allocation: 2 size: 60 } }
  outputs { shape_index: 1 slice { allocation: 3 size: 60 } }
  thunks { kernel { kernel_index: 0 args { allocation: 0 size: 140 } args { allocation: 0 size: 140 }
           args { allocation: 4 size: 140 }
           launch_dimensions { grid_x: 35 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }
  thunks { gemm { lhs { allocation: 4 size: 140 } rhs { allocation: 1 size: 84 }
           output { allocation: 2 size: 60 } element_type: PRIMITIVE_TYPE_F32
           m: 5 n: 3 k: 7 batch_size: 1 alpha: 1 } }
  thunks { kernel { kernel_index: 1 args { allocation: 2 size: 60 } args { allocation: 2 size: 60 }
           args { allocation: 3 size: 60 }
           launch_dimensions { grid_x: 15 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }
}
)pb";

std::string WithKernels(const char* artifact) {
  const std::string text =
      absl::StrReplaceAll(artifact, {{"$ADD", Ptx("add_f32")}, {"$MUL", Ptx("mul_f32")}});
  return gpu::testing::SerializeArtifact(gpu::testing::MakeArtifact(text));
}

}  // namespace

std::string GemmGraphArtifactBytes() { return WithKernels(kGemmArtifact); }

std::string GemmGraphHlo() {
  return R"(
HloModule gemm_graph

ENTRY main {
  x = f32[5,7] parameter(0)
  y = f32[7,3] parameter(1)
  s = f32[5,7] add(x, x)
  out0 = f32[5,3] dot(s, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  out1 = f32[5,3] multiply(out0, out0)
  ROOT r = (f32[5,3], f32[5,3]) tuple(out0, out1)
}
)";
}

std::string GraphArtifactBytes() { return WithKernels(kArtifact); }

absl::Status OpenFakeGraphDevice(const se::cuda::FakeCudaDriver& driver, const std::string& artifact,
                                 FakeGraphDevice& device) {
  device.platform = std::make_unique<se::cuda::CudaPlatform>(&driver.api());
  absl::StatusOr<se::StreamExecutor*> executor = device.platform->GetDevice(0);
  if (!executor.ok()) return executor.status();
  device.executor = *executor;
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(artifact);
  if (!exe.ok()) return exe.status();
  device.exe = *std::move(exe);
  if (absl::Status init = device.exe->Initialize(device.executor); !init.ok()) return init;
  absl::StatusOr<std::unique_ptr<se::Stream>> stream = device.executor->CreateStream();
  if (!stream.ok()) return stream.status();
  device.stream = *std::move(stream);
  return absl::OkStatus();
}

std::string GraphHlo() {
  return R"(
HloModule graphs

ENTRY main {
  x = f32[37] parameter(0)
  y = f32[37] parameter(1)
  one = f32[] constant(1)
  ones = f32[37] broadcast(one), dimensions={}
  s = f32[37] add(x, y)
  out0 = f32[37] multiply(s, x)
  out1 = f32[37] add(s, ones)
  ROOT r = (f32[37], f32[37]) tuple(out0, out1)
}
)";
}

void RegisterGraphKernels(se::cuda::FakeCudaDriver& driver) {
  driver.RegisterKernel("add_f32", [](const se::cuda::FakeLaunch& launch) {
    const float* a = launch.arg<const float>(0);
    const float* b = launch.arg<const float>(1);
    float* c = launch.arg<float>(2);
    for (uint64_t i = 0; i < launch.num_blocks(); ++i) c[i] = a[i] + b[i];
  });
  driver.RegisterKernel("mul_f32", [](const se::cuda::FakeLaunch& launch) {
    const float* a = launch.arg<const float>(0);
    const float* b = launch.arg<const float>(1);
    float* c = launch.arg<float>(2);
    for (uint64_t i = 0; i < launch.num_blocks(); ++i) c[i] = a[i] * b[i];
  });
}

}  // namespace xla::aot::testing
