// Malformed artifacts: each must fail to load with a clear InvalidArgument
// (naming the field and the values), never crash, and never run anything.
#include <functional>
#include <string>

#include "absl/strings/match.h"
#include "google/protobuf/unknown_field_set.h"
#include "gtest/gtest.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::aot {
namespace {

using ::xla::gpu::GpuExecutableProto;
using ::xla::gpu::ThunkProto;
using ::xla::gpu::testing::MakeArtifact;
using ::xla::gpu::testing::SerializeArtifact;

const char kBase[] = R"pb(
payload {
  module_name: "base"
  num_streams: 2
  program_shape {
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 16 }
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 16 }
    result { element_type: PRIMITIVE_TYPE_F32 dimensions: 16 }
  }
  kernels { name: "add" host_symbol: "add_f32" }
  constants { content: "abcd" }
  allocations { index: 0 size: 64 is_parameter: true parameter_number: 0 }
  allocations { index: 1 size: 64 is_parameter: true parameter_number: 1 }
  allocations { index: 2 size: 64 is_output: true }
  allocations { index: 3 size: 4 is_constant: true constant_index: 0 }
  allocations { index: 4 size: 100 is_temp: true }
  outputs { slice { allocation: 2 size: 64 } }
  thunks { profile_annotation: "add" kernel { args { allocation: 0 size: 64 } args { allocation: 1 size: 64 } args { allocation: 2 size: 64 }
           launch_dimensions { grid_x: 16 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }
  thunks { memset { destination { allocation: 4 size: 100 } } }
}
)pb";

using Mutation = std::function<void(GpuExecutableProto&)>;

ThunkProto& Thunk(GpuExecutableProto& a, int i) { return *a.mutable_payload()->mutable_thunks(i); }
gpu::KernelThunkProto& Kernel(GpuExecutableProto& a) { return *Thunk(a, 0).mutable_kernel(); }

std::string LoadError(const std::string& bytes) {
  auto exe = Executable::LoadFromBytes(bytes);
  if (exe.ok()) return "<loaded>";
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument) << exe.status();
  return std::string(exe.status().message());
}

// Applies `mutate` to the base artifact, re-seals it (unless `reseal` is
// false) and returns the load error.
std::string MutatedError(const Mutation& mutate, bool reseal = true) {
  GpuExecutableProto a = MakeArtifact(kBase);
  mutate(a);
  if (reseal) gpu::SealArtifact(&a);
  return LoadError(SerializeArtifact(a));
}

struct Case {
  const char* name;
  Mutation mutate;
  const char* expected;
};

// A chain of `depth` sequential thunks around a memset.
ThunkProto NestedSequences(int depth) {
  ThunkProto leaf;
  leaf.mutable_memset()->mutable_destination()->set_allocation(4);
  for (int i = 0; i < depth; ++i) {
    ThunkProto outer;
    *outer.mutable_sequential()->add_thunks() = std::move(leaf);
    leaf = std::move(outer);
  }
  return leaf;
}

const std::vector<Case>& Cases() {
  static const auto* cases = new std::vector<Case>{
      {"base_loads", [](auto&) {}, "<loaded>"},
      {"format_too_new", [](auto& a) { a.mutable_header()->set_format_version(2); },
       "header.format_version: artifact format 2 is newer than this runtime"},
      {"format_missing", [](auto& a) { a.mutable_header()->set_format_version(0); },
       "header.format_version: is missing"},
      {"unknown_target", [](auto& a) { a.mutable_header()->set_target("tpu_v5"); },
       "header.target: 'tpu_v5' is not a known target"},
      {"unknown_feature", [](auto& a) { a.mutable_header()->add_required_runtime_features("teleport"); },
       "artifact needs runtime feature `teleport`"},
      {"toolchain_on_host", [](auto& a) {
         auto* r = a.mutable_header()->add_toolchain_requirements();
         r->set_component("cuda_driver");
         r->set_min_version("12.2");
       }, "header.toolchain_requirements[0]: target host needs no cuda_driver"},
      {"cpu_feature_name_malformed", [](auto& a) {
         a.mutable_header()->add_host_cpu_features("avx2");
         a.mutable_header()->add_host_cpu_features("AVX 512");
       }, "header.host_cpu_features[1]: 'AVX 512' is not a CPU feature name"},
      {"cpu_feature_name_empty", [](auto& a) { a.mutable_header()->add_host_cpu_features(""); },
       "header.host_cpu_features[0]: '' is not a CPU feature name"},
      {"cpu_feature_name_too_long", [](auto& a) { a.mutable_header()->add_host_cpu_features(std::string(40, 'a')); },
       "is not a CPU feature name (1 to 32"},
      {"cpu_feature_unknown_to_this_runtime_loads", [](auto& a) {
         a.mutable_header()->add_host_cpu_features("avx10.2-512");
       }, "<loaded>"},
      {"host_build_without_bytes", [](auto& a) {
         a.mutable_payload()->add_host_object_variants()->add_cpu_features("avx2");
       }, "host_object_variants[0].shared_object: is empty"},
      {"host_build_with_bad_feature_name", [](auto& a) {
         auto* v = a.mutable_payload()->add_host_object_variants();
         v->set_shared_object("\x7f" "ELF");
         v->add_cpu_features("avx2;rm");
       }, "host_object_variants[0].cpu_features[0]: 'avx2;rm' is not a CPU feature name"},
      {"cpu_features_on_sm90", [](auto& a) {
         a.mutable_header()->set_target("sm_90");
         a.mutable_header()->add_host_cpu_features("avx2");
       }, "header.host_cpu_features[0]: target sm_90 has no host kernels"},
      {"allocation_index_mismatch", [](auto& a) { a.mutable_payload()->mutable_allocations(2)->set_index(7); },
       "allocations[2].index: is 7 but must equal its position 2"},
      {"negative_allocation_size", [](auto& a) { a.mutable_payload()->mutable_allocations(4)->set_size(-8); },
       "allocations[4].size: -8 is outside"},
      {"allocation_two_roles", [](auto& a) { a.mutable_payload()->mutable_allocations(4)->set_is_constant(true); },
       "allocations[4]: must be exactly one of"},
      {"parameter_number_out_of_range", [](auto& a) { a.mutable_payload()->mutable_allocations(1)->set_parameter_number(5); },
       "allocations[1].parameter_number: 5 is outside [0, 2)"},
      {"constant_index_out_of_range", [](auto& a) { a.mutable_payload()->mutable_allocations(3)->set_constant_index(3); },
       "allocations[3].constant_index: 3 is outside [0, 1)"},
      {"constant_size_mismatch", [](auto& a) { a.mutable_payload()->mutable_constants(0)->set_content("abcdef"); },
       "allocations[3].size: 4 differs from constants[0] of 6 bytes"},
      {"duplicate_constant", [](auto& a) { a.mutable_payload()->add_constants()->set_content("abcd"); },
       "constants[1]: same content as constants[0]"},
      {"parameter_size_mismatch", [](auto& a) { a.mutable_payload()->mutable_allocations(0)->set_size(60); },
       "allocations[0].size: 60 does not hold parameter 0"},
      {"slice_allocation_out_of_range", [](auto& a) { Kernel(a).mutable_args(1)->set_allocation(9); },
       "thunks[0].kernel.args[1]: slice allocation index 9 is outside [0, 5)"},
      {"slice_past_allocation_end", [](auto& a) { Kernel(a).mutable_args(1)->set_offset(32); },
       "thunks[0].kernel.args[1]: slice offset 32 + size 64 exceeds allocation 1 of 64 bytes"},
      {"slice_offset_overflow", [](auto& a) { Kernel(a).mutable_args(0)->set_offset(INT64_MAX); },
       "thunks[0].kernel.args[0]: slice offset 9223372036854775807 + size 64 exceeds allocation 0"},
      {"negative_slice_size", [](auto& a) { Kernel(a).mutable_args(0)->set_size(-1); },
       "thunks[0].kernel.args[0]: slice offset 0 and size -1 must be >= 0"},
      {"slice_shape_mismatch", [](auto& a) {
         auto* s = Kernel(a).mutable_args(0)->mutable_shape();
         s->set_element_type(xla::PRIMITIVE_TYPE_F32);
         s->add_dimensions(3);
       }, "thunks[0].kernel.args[0]: slice shape f32[3] does not fill its 64 bytes"},
      {"unknown_kernel", [](auto& a) { Kernel(a).set_kernel_index(4); },
       "thunks[0].kernel.kernel_index: kernel index 4 is outside [0, 1)"},
      {"grid_too_large", [](auto& a) { Kernel(a).mutable_launch_dimensions()->set_grid_y(1 << 20); },
       "thunks[0].kernel.launch_dimensions: "},
      {"shared_memory_on_host", [](auto& a) { Kernel(a).mutable_launch_dimensions()->set_shared_memory_bytes(16); },
       "thunks[0].kernel.launch_dimensions: "},
      {"too_many_kernel_args", [](auto& a) {
         for (int i = 0; i < 5000; ++i) Kernel(a).add_args()->set_allocation(4);
       }, "thunks[0].kernel.args: 5003 entries exceed the limit 4096"},
      {"stream_id_out_of_range", [](auto& a) { Thunk(a, 1).set_execution_stream_id(3); },
       "thunks[1].execution_stream_id: stream id 3 is outside [0, 2) (num_streams)"},
      {"stream_without_async_start", [](auto& a) { Thunk(a, 1).set_execution_stream_id(1); },
       "thunks[1].execution_stream_id: stream 1 differs from the enclosing stream 0"},
      {"num_streams_too_large", [](auto& a) { a.mutable_payload()->set_num_streams(1000); },
       "num_streams: 1000 is outside [1, 64]"},
      {"unknown_thunk_kind", [](auto& a) {
         ThunkProto* t = a.mutable_payload()->add_thunks();
         t->GetReflection()->MutableUnknownFields(t)->AddLengthDelimited(42, "");
       }, "thunks[2]: unknown thunk kind (field number 42): the artifact is newer than this runtime; "
          "upgrade the runtime or compile for format 1"},
      {"known_but_unsupported_kind", [](auto& a) { a.mutable_payload()->add_thunks()->mutable_all_reduce(); },
       "thunks[2]: thunk kind all_reduce is known to format 1 but not supported by this runtime"},
      {"unknown_kernel_spec", [](auto& a) { a.mutable_payload()->mutable_kernels(0)->clear_spec(); },
       "kernels[0]: unknown kernel spec"},
      {"ptx_kernel_on_host", [](auto& a) {
         a.mutable_payload()->mutable_kernels(0)->mutable_ptx()->set_entry("k");
       }, "kernels[0]: a PTX kernel cannot run on target host"},
      {"unregistered_kernel", [](auto& a) {
         a.mutable_payload()->mutable_kernels(0)->set_registered_kernel("xla.runtime.nope");
       }, "kernels[0].registered_kernel: no kernel 'xla.runtime.nope' is registered"},
      {"duplicate_kernel_name", [](auto& a) { *a.mutable_payload()->add_kernels() = a.payload().kernels(0); },
       "kernels[1].name: 'add' appears twice"},
      // An unknown target loads and fails at Initialize (custom_call_test.cc);
      // a malformed call fails the load.
      {"custom_call_without_target", [](auto& a) { a.mutable_payload()->add_thunks()->mutable_custom_call(); },
       "thunks[2].custom_call.target_name: target name is empty"},
      {"custom_call_valueless_attribute", [](auto& a) {
         auto* c = a.mutable_payload()->add_thunks()->mutable_custom_call();
         c->set_target_name("acme.frobnicate");
         c->add_attributes()->set_name("later");
       }, "thunks[2].custom_call.attributes[0]: attribute 'later' has no value of a known type (artifact newer than runtime?)"},
      {"nesting_too_deep", [](auto& a) { *a.mutable_payload()->add_thunks() = NestedSequences(40); },
       "exceed the limit 32"},
      {"output_not_whole_allocation", [](auto& a) { a.mutable_payload()->mutable_outputs(0)->mutable_slice()->set_size(32); },
       "outputs[0].slice: must be the whole of an allocation marked is_output"},
      {"output_bad_shape_index", [](auto& a) { a.mutable_payload()->mutable_outputs(0)->add_shape_index(0); },
       "outputs[0].shape_index: {0} is not an array leaf of the result f32[16]"},
      {"alias_without_parameter_allocation", [](auto& a) {
         auto* alias = a.mutable_payload()->add_input_output_aliases();
         alias->set_parameter_number(0);
         alias->set_kind(gpu::ALIAS_KIND_MUST_ALIAS);
       }, "input_output_aliases[0]: output lives in allocation 2, which is not parameter 0's"},
      {"alias_unknown_kind", [](auto& a) { a.mutable_payload()->add_input_output_aliases(); },
       "input_output_aliases[0].kind: unknown alias kind 0"},
      {"async_done_without_start", [](auto& a) { a.mutable_payload()->add_thunks()->mutable_async_done()->set_async_id(4); },
       "thunks[2]: async_done of id 4 has no earlier async_start"},
      {"gemm_bad_dims", [](auto& a) {
         auto* g = a.mutable_payload()->add_thunks()->mutable_gemm();
         g->set_element_type(xla::PRIMITIVE_TYPE_F32);
         g->set_m(-3);
       }, "thunks[2].gemm.m: -3 is outside [1, 2147483648]"},
      {"wrong_checksum", [](auto& a) { a.mutable_payload()->set_module_name("edited"); },
       "header.payload_checksum: "},
  };
  return *cases;
}

TEST(MalformedArtifact, EveryCaseFailsWithAClearError) {
  int checked = 0;
  for (const Case& c : Cases()) {
    const bool reseal = std::string(c.name) != "wrong_checksum";
    const std::string error = MutatedError(c.mutate, reseal);
    EXPECT_TRUE(absl::StrContains(error, c.expected))
        << c.name << ": expected '" << c.expected << "' in:\n  " << error;
    ++checked;
  }
  EXPECT_GE(checked, 30);
}

TEST(MalformedArtifact, BadBytes) {
  const std::string good = SerializeArtifact(MakeArtifact(kBase));
  EXPECT_TRUE(absl::StrContains(LoadError(good.substr(0, good.size() / 2)), "not a valid GpuExecutableProto"));
  EXPECT_TRUE(absl::StrContains(LoadError(good.substr(0, 7)), "not a valid GpuExecutableProto"));
  EXPECT_TRUE(absl::StrContains(LoadError(std::string("\xff\xff\xff\xff\xff\xff", 6)), "not a valid"));
  EXPECT_TRUE(absl::StrContains(LoadError(""), "header.format_version: is missing"));
  EXPECT_TRUE(absl::StrContains(LoadError("not an artifact at all"), "not a valid"));
  // Every truncation fails cleanly (none loads, none crashes).
  for (size_t n = 0; n < good.size(); n += std::max<size_t>(1, good.size() / 97)) {
    EXPECT_NE(LoadError(good.substr(0, n)), "<loaded>") << n;
  }
}

TEST(MalformedArtifact, RecursionBombIsAParseErrorNotAStackOverflow) {
  GpuExecutableProto a = MakeArtifact(kBase);
  // Encode bottom-up with proper varint lengths.
  auto varint = [](uint64_t v) {
    std::string out;
    while (v >= 0x80) {
      out.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
    return out;
  };
  std::string inner;
  for (int i = 0; i < 20000; ++i) {
    std::string seq = "\x0a" + varint(inner.size()) + inner;          // SequentialThunkProto.thunks
    inner = std::string("\x52") + varint(seq.size()) + seq;           // ThunkProto.sequential (10)
  }
  std::string payload_thunks = "\x52" + varint(inner.size()) + inner;  // payload.thunks (10)
  std::string payload;
  a.payload().SerializeToString(&payload);
  payload += payload_thunks;
  std::string header;
  a.header().SerializeToString(&header);
  std::string bytes = "\x0a" + varint(header.size()) + header + "\x12" + varint(payload.size()) + payload;
  EXPECT_TRUE(absl::StrContains(LoadError(bytes), "nested deeper than 100")) << LoadError(bytes);
}

}  // namespace
}  // namespace xla::aot
