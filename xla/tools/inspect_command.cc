#include "xla/backends/gpu/runtime/thunk_proto_visit.h"
#include "xla/tools/inspect_command.h"

#include <filesystem>
#include <cstring>
#include <fstream>
#include <map>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/ffi/ffi_registry.h"
#include "xla/backends/gpu/runtime/invented_constants.h"
#include "xla/backends/gpu/runtime/kernel_table.h"
#include "xla/backends/gpu/runtime/memory_report.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/thunk_dot.h"
#include "xla/tools/trust_flags.h"
#include "xla/types/xla_data_convert.h"

namespace xla::cli {

const char kInspectHelp[] =
    "usage: xla_aot inspect FILE.xaot [--dump_kernels=DIR] [--dot=GRAPH.dot]\n"
    "\n"
    "Validates a compiled artifact and prints its header, kernels, allocations,\n"
    "constants, outputs, aliases, the custom-call targets whose FFI handlers the\n"
    "runtime must register (and whether this process has them) and the thunk\n"
    "tree (custom calls with api version, shapes and typed attributes).\n"
    "\n"
    "  --dump_kernels=DIR    write kernel payloads: <kernel>.ptx, <kernel>.cubin\n"
    "                        (with <kernel>.ptx beside it when the artifact keeps a\n"
    "                        PTX fallback, --emit_cubin_with_ptx), <module>.so (the\n"
    "                        host shared object)\n"
    "  --dot=PATH            write the thunk tree and the buffers each thunk reads\n"
    "                        and writes as a Graphviz graph (dot -Tsvg PATH)\n"
    XLA_AOT_TRUST_FLAGS_HELP
    "The first line says whether the artifact is signed, by which key, and that\n"
    "the signature verified; a signature that does not verify or names an\n"
    "untrusted key is an error naming the key.\n";

namespace {

using gpu::BufferSliceProto;
using gpu::ThunkProto;

std::string Slice(const BufferSliceProto& s) {
  std::string out = absl::StrCat("alloc", s.allocation(), "[", s.offset(), ":", s.offset() + s.size(), ")");
  if (s.has_shape()) {
    absl::StatusOr<Shape> shape = ShapeFromProto(s.shape());
    if (shape.ok()) absl::StrAppend(&out, " ", shape->ToString(false));
  }
  return out;
}

// " at +B+S*i / +B+S*i of loop L" for a copy with a dynamic offset
// (CopyThunkProto.dynamic_offset); "" otherwise.
std::string DynamicOffset(const gpu::CopyThunkProto& copy) {
  if (!copy.has_dynamic_offset()) return "";
  const gpu::CopyDynamicOffsetProto& d = copy.dynamic_offset();
  return absl::StrCat(" moving by source +", d.source_base(), "+", d.source_stride(),
                      "*i, destination +", d.destination_base(), "+", d.destination_stride(),
                      "*i (i: iteration of the while ", d.loop_depth(), " level(s) out)");
}

// " lhs_type=f8e4m3fn rhs_type=f8e5m2 lhs_scale: ..." for an fp8 GEMM
// (feature gemm.fp8); "" otherwise.
std::string Fp8GemmText(const gpu::GemmThunkProto& g) {
  auto type = [](int value) -> std::string {
    absl::StatusOr<PrimitiveType> t = PrimitiveTypeFromProto(value, "type");
    return t.ok() ? std::string(PrimitiveTypeName(*t)) : absl::StrCat("?", value);
  };
  std::string out;
  if (g.has_lhs_type()) absl::StrAppend(&out, " lhs_type=", type(g.lhs_type()));
  if (g.has_rhs_type()) absl::StrAppend(&out, " rhs_type=", type(g.rhs_type()));
  if (g.has_lhs_scale()) absl::StrAppend(&out, " lhs_scale: ", Slice(g.lhs_scale()));
  if (g.has_rhs_scale()) absl::StrAppend(&out, " rhs_scale: ", Slice(g.rhs_scale()));
  return out;
}

// "forward f32 x[3,3,7,5] w[5,3,3,2] y[3,5,4,3] pad=1,0 stride=2,1 ...", and
// " epilogue: bias <slice> CONVOLUTION_ACTIVATION_RELU" with a fused epilogue.
std::string ConvolutionDetails(const gpu::ConvolutionThunkProto& c) {
  absl::StatusOr<PrimitiveType> type = PrimitiveTypeFromProto(c.element_type(), "type");
  return absl::StrCat(
      gpu::ConvolutionKindProto_Name(c.kind()), " ",
      type.ok() ? std::string(PrimitiveTypeName(*type)) : "?", " x[",
      absl::StrJoin(c.input_dims(), ","), "] ", Slice(c.input()), " w[",
      absl::StrJoin(c.filter_dims(), ","), "] ", gpu::ConvolutionFilterLayoutProto_Name(c.filter_layout()),
      " ", Slice(c.filter()), " y[", absl::StrJoin(c.output_dims(), ","), "] ", Slice(c.output()),
      " pad=", absl::StrJoin(c.padding(), ","), " stride=", absl::StrJoin(c.strides(), ","),
      " dilation=", absl::StrJoin(c.dilations(), ","), " groups=", c.feature_groups(),
      c.allow_tf32() ? " tf32" : "", " workspace: ", Slice(c.workspace()),
      c.has_bias() ? absl::StrCat(" epilogue: bias ", Slice(c.bias()), " ",
                                  gpu::ConvolutionActivationProto_Name(c.activation()))
                   : "");
}

// "FFT_TYPE_RFFT F32 in[6,5,33] length=5,33 in: ... out: ... workspace: ...".
std::string FftDetails(const gpu::FftThunkProto& f) {
  absl::StatusOr<PrimitiveType> type = PrimitiveTypeFromProto(f.precision(), "precision");
  return absl::StrCat(gpu::FftTypeProto_Name(f.fft_type()), " ",
                      type.ok() ? std::string(PrimitiveTypeName(*type)) : "?", " in[",
                      absl::StrJoin(f.input_dims(), ","), "] length=",
                      absl::StrJoin(f.fft_length(), ","), " in: ", Slice(f.input()),
                      " out: ", Slice(f.output()), " workspace: ", Slice(f.workspace()));
}

// "channel=3 rendezvous=\"_x_htod_0\" f32[5] data: alloc1[0:20)".
std::string HostTransferDetails(const gpu::HostTransferProto& h) {
  absl::StatusOr<Shape> shape = ShapeFromProto(h.shape());
  return absl::StrCat("channel=", h.channel_id(), " rendezvous=\"", h.rendezvous(), "\" ",
                      shape.ok() ? shape->ToString(false) : "?", " data: ", Slice(h.slice()));
}

template <typename Slices>
std::string SliceList(const Slices& slices) {
  std::vector<std::string> parts;
  for (const BufferSliceProto& s : slices) parts.push_back(Slice(s));
  return absl::StrJoin(parts, ", ");
}

std::string KindName(const ThunkProto& t) {
  const google::protobuf::FieldDescriptor* f = t.GetDescriptor()->FindFieldByNumber(t.kind_case());
  return f == nullptr ? "unknown" : f->name();
}

void PrintThunk(const ThunkProto& t, const gpu::GpuExecutablePayloadProto& p, int depth, std::ostream& out);

void PrintList(const google::protobuf::RepeatedPtrField<ThunkProto>& list, absl::string_view label,
               const gpu::GpuExecutablePayloadProto& p, int depth, std::ostream& out) {
  if (!label.empty()) out << std::string(2 * depth, ' ') << label << ":\n";
  for (const ThunkProto& t : list) PrintThunk(t, p, depth + 1, out);
}

std::string ApiVersionName(gpu::CustomCallApiVersionProto v) {
  const std::string& name = gpu::CustomCallApiVersionProto_Name(v);
  return name.empty() ? absl::StrCat(static_cast<int>(v)) : name.substr(strlen("CUSTOM_CALL_API_VERSION_"));
}

template <typename Values>
std::string Array(absl::string_view type, const Values& values) {
  return absl::StrCat("array<", type, values.empty() ? "" : ": ", absl::StrJoin(values, ", "), ">");
}

std::string AttributeText(const gpu::FfiAttributeProto& a) {
  switch (a.value_case()) {
    case gpu::FfiAttributeProto::kI64:
      return absl::StrCat(a.i64(), " : i64");
    case gpu::FfiAttributeProto::kF64:
      return absl::StrCat(a.f64(), " : f64");
    case gpu::FfiAttributeProto::kStr:
      return absl::StrCat("\"", absl::CEscape(a.str()), "\"");
    case gpu::FfiAttributeProto::kB:
      return a.b() ? "true" : "false";
    case gpu::FfiAttributeProto::kI64Array:
      return Array("i64", a.i64_array().values());
    case gpu::FfiAttributeProto::kF64Array:
      return Array("f64", a.f64_array().values());
    case gpu::FfiAttributeProto::VALUE_NOT_SET:
      break;
  }
  return "?";
}

std::string CustomCallDetails(const gpu::CustomCallThunkProto& c) {
  std::string out = absl::StrCat("'", c.target_name(), "' ", ApiVersionName(c.api_version()),
                                 " operands: ", SliceList(c.operands()), " results: ",
                                 SliceList(c.results()));
  if (!c.opaque().empty()) absl::StrAppend(&out, " opaque: ", c.opaque().size(), " bytes");
  if (c.attributes_size() > 0) {
    std::vector<std::string> parts;
    for (const gpu::FfiAttributeProto& a : c.attributes()) {
      parts.push_back(absl::StrCat(a.name(), " = ", AttributeText(a)));
    }
    absl::StrAppend(&out, " attributes: {", absl::StrJoin(parts, ", "), "}");
  }
  return out;
}

// The custom-call targets in `list` and the thunks nested in it.
void CollectCustomCalls(const google::protobuf::RepeatedPtrField<ThunkProto>& list,
                        std::map<std::string, int>* targets) {
  gpu::ForEachThunkProto(list, [targets](const ThunkProto& t) {
    if (t.has_custom_call()) ++(*targets)[t.custom_call().target_name()];
  });
}

// The FFI handlers the artifact needs, and whether this process has them.
void PrintCustomCalls(const aot::Executable& exe, std::ostream& out) {
  std::map<std::string, int> targets;
  CollectCustomCalls(exe.program().payload().thunks(), &targets);
  const std::string& platform = exe.program().target.platform;
  out << "custom_call_targets (" << targets.size() << "): handlers the runtime must register"
      << " for platform " << platform << "\n";
  for (const auto& [name, calls] : targets) {
    const bool here = gpu::ffi::FfiRegistry::Global().Lookup(name, platform).ok();
    out << "  " << name << ": " << calls << " call(s), "
        << (here ? "registered in this process"
                 : "not registered in this process (Initialize fails here)")
        << "\n";
  }
}

// One line of detail per kind.
std::string Details(const ThunkProto& t, const gpu::GpuExecutablePayloadProto& p) {
  switch (t.kind_case()) {
    case ThunkProto::kKernel: {
      const auto& k = t.kernel();
      const auto& d = k.launch_dimensions();
      std::string name = k.kernel_index() < p.kernels_size() ? p.kernels(k.kernel_index()).name() : "?";
      return absl::StrCat("kernel ", k.kernel_index(), " '", name, "' grid={", d.grid_x(), ",", d.grid_y(), ",",
                          d.grid_z(), "} block={", d.block_x(), ",", d.block_y(), ",", d.block_z(),
                          "} args: ", SliceList(k.args()),
                          k.has_argument_table()
                              ? absl::StrCat(" through argument table ", Slice(k.argument_table()))
                              : "");
    }
    case ThunkProto::kCopy:
      return absl::StrCat(Slice(t.copy().source()), " -> ", Slice(t.copy().destination()),
                          DynamicOffset(t.copy()));
    case ThunkProto::kMemset:
      return absl::StrCat(Slice(t.memset().destination()), " = 0x", absl::Hex(t.memset().pattern()));
    case ThunkProto::kGemm: {
      const auto& g = t.gemm();
      return absl::StrCat("m=", g.m(), " n=", g.n(), " k=", g.k(), " batch=", g.batch_size(),
                          " lhs: ", Slice(g.lhs()), " rhs: ", Slice(g.rhs()), " out: ", Slice(g.output()),
                          " alpha=", g.alpha(), " beta=", g.beta(), Fp8GemmText(g));
    }
    case ThunkProto::kWhile:
      return absl::StrCat("predicate: ", Slice(t.while_().predicate()),
                          t.while_().has_known_trip_count()
                              ? absl::StrCat(" trip_count=", t.while_().known_trip_count())
                              : "");
    case ThunkProto::kConditional:
      return absl::StrCat("index: ", Slice(t.conditional().branch_index()));
    case ThunkProto::kCustomCall:
      return CustomCallDetails(t.custom_call());
    case ThunkProto::kAsyncStart:
      return absl::StrCat("id=", t.async_start().async_id(), " on stream ", t.async_start().stream_id());
    case ThunkProto::kAsyncDone:
      return absl::StrCat("id=", t.async_done().async_id());
    case ThunkProto::kConvolution:
      return ConvolutionDetails(t.convolution());
    case ThunkProto::kFft:
      return FftDetails(t.fft());
    case ThunkProto::kHostSend:
      return HostTransferDetails(t.host_send());
    case ThunkProto::kHostRecv:
      return HostTransferDetails(t.host_recv());
    case ThunkProto::kSequential:
    case ThunkProto::kAllReduce:
    case ThunkProto::kCollective:
    case ThunkProto::KIND_NOT_SET:
      return "";
  }
  return "";
}

void PrintThunk(const ThunkProto& t, const gpu::GpuExecutablePayloadProto& p, int depth, std::ostream& out) {
  out << std::string(2 * depth, ' ') << KindName(t) << " [stream " << t.execution_stream_id() << "]";
  if (!t.profile_annotation().empty()) out << " \"" << t.profile_annotation() << "\"";
  const std::string details = Details(t, p);
  if (!details.empty()) out << " " << details;
  out << "\n";
  if (t.has_sequential()) PrintList(t.sequential().thunks(), "", p, depth, out);
  if (t.has_while_()) {
    PrintList(t.while_().condition().thunks(), "condition", p, depth + 1, out);
    PrintList(t.while_().body().thunks(), "body", p, depth + 1, out);
  }
  for (int i = 0; t.has_conditional() && i < t.conditional().branches_size(); ++i) {
    PrintList(t.conditional().branches(i).thunks(), absl::StrCat("branch ", i), p, depth + 1, out);
  }
  if (t.has_async_start()) PrintList(t.async_start().thunks().thunks(), "", p, depth, out);
}

void PrintHeader(const gpu::ArtifactHeaderProto& h, std::ostream& out) {
  out << "header:\n"
      << "  format_version: " << h.format_version() << "\n"
      << "  compiler: " << h.compiler_version() << " (" << h.production_date() << ")\n"
      << "  target: " << h.target() << "\n"
      << "  required_runtime_features: [" << absl::StrJoin(h.required_runtime_features(), ", ") << "]\n"
      << "  payload_checksum: "
      << (h.checksum_algorithm() == gpu::CHECKSUM_ALGORITHM_CRC32C
              ? absl::StrCat("crc32c 0x", absl::Hex(h.payload_checksum(), absl::kZeroPad8))
              : absl::StrCat("fnv1a64 0x", absl::Hex(h.payload_checksum(), absl::kZeroPad16)))
      << "\n";
  for (const auto& r : h.toolchain_requirements()) {
    out << "  needs: " << r.component() << " >= " << r.min_version() << "\n";
  }
  if (h.host_cpu_features_size() > 0) {
    out << "  host_cpu_features: [" << absl::StrJoin(h.host_cpu_features(), ", ") << "]\n";
  }
}

void PrintTables(const aot::Executable& exe, std::ostream& out) {
  const gpu::GpuExecutablePayloadProto& p = exe.program().payload();
  out << "module: " << p.module_name() << "\n"
      << "program_shape: " << exe.program_shape().ToString() << "\n"
      << "streams: " << exe.program().num_streams << "\n"
      << "devices: " << std::max<int64_t>(1, p.num_replicas()) << " replica(s) x "
      << std::max<int64_t>(1, p.num_partitions()) << " partition(s)\n"
      << (p.has_invented_constants()
              ? absl::StrCat("constants: ", gpu::InventedConstantsSummary(p.invented_constants()), "\n")
              : std::string())
      << "kernels (" << p.kernels_size() << "):\n";
  for (size_t i = 0; i < exe.program().kernels.size(); ++i) {
    const gpu::KernelSpec& k = exe.program().kernels[i];
    out << "  [" << i << "] " << k.name << ": " << gpu::KernelKindName(k.kind) << " " << k.entry;
    if (!k.code.empty()) out << " (" << k.code.size() << " bytes)";
    if (!k.ptx_fallback.empty()) out << " + PTX fallback (" << k.ptx_fallback.size() << " bytes)";
    out << "\n";
  }
  if (!p.host_shared_object().empty()) out << "host_shared_object: " << p.host_shared_object().size() << " bytes\n";
  for (int i = 0; i < p.host_object_variants_size(); ++i) {
    const gpu::HostObjectVariantProto& v = p.host_object_variants(i);
    out << "host_object_variants[" << i << "]: " << v.shared_object().size() << " bytes for ["
        << absl::StrJoin(v.cpu_features(), ", ") << "]\n";
  }
  out << "allocations (" << p.allocations_size() << "):\n";
  for (const gpu::BufferAllocation& a : exe.program().allocations) {
    out << "  [" << a.index << "] " << a.size << " bytes";
    if (a.is_parameter) out << " parameter " << a.parameter_number;
    if (a.is_constant) out << " constant " << a.constant_index;
    if (a.is_output) out << " output";
    if (a.is_temp) out << " temp";
    if (a.in_host_memory()) out << " host_memory";
    out << "\n";
  }
  out << gpu::FormatMemoryReport(gpu::ComputeMemoryReport(p), "");
  out << "constants (" << p.constants_size() << "):\n";
  for (int i = 0; i < p.constants_size(); ++i) {
    out << "  [" << i << "] " << p.constants(i).content().size() << " bytes\n";
  }
  out << "outputs:\n";
  for (const gpu::OutputInfo& o : exe.outputs()) {
    out << "  {" << absl::StrJoin(o.shape_index, ",") << "} " << o.shape.ToString(false) << " in alloc"
        << o.allocation << "\n";
  }
  for (const gpu::AliasInfo& a : exe.program().aliases) {
    out << "  alias: output " << a.output << " <- parameter " << a.parameter_number
        << (a.kind == gpu::ALIAS_KIND_MUST_ALIAS ? " (must)" : " (may)") << "\n";
  }
}

absl::Status DumpKernels(const aot::Executable& exe, const std::string& dir, std::ostream& out) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  auto write = [&](const std::string& name, absl::string_view bytes) -> absl::Status {
    const std::string path = absl::StrCat(dir, "/", name);
    std::ofstream file(path, std::ios::binary);
    file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!file) return absl::InvalidArgumentError(absl::StrCat("cannot write ", path));
    out << "wrote " << path << "\n";
    return absl::OkStatus();
  };
  const gpu::GpuExecutablePayloadProto& p = exe.program().payload();
  if (!p.host_shared_object().empty()) {
    absl::Status s = write(absl::StrCat(p.module_name().empty() ? "module" : p.module_name(), ".so"),
                           p.host_shared_object());
    if (!s.ok()) return s;
  }
  for (const gpu::KernelSpec& k : exe.program().kernels) {
    if (k.code.empty()) continue;
    const char* ext = k.kind == gpu::KernelSpec::Kind::kPtx ? ".ptx" : ".cubin";
    absl::Status s = write(absl::StrCat(k.name, ext), k.code);
    if (!s.ok()) return s;
    if (k.ptx_fallback.empty()) continue;
    s = write(absl::StrCat(k.name, ".ptx"), k.ptx_fallback);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

void PrintArtifact(const aot::Executable& exe, const aot::LoadOptions& load, std::ostream& out) {
  out << DescribeSignature(exe.program().signature, load) << "\n";
  PrintHeader(exe.program().artifact->header(), out);
  PrintTables(exe, out);
  PrintCustomCalls(exe, out);
  out << "thunks:\n";
  PrintList(exe.program().payload().thunks(), "", exe.program().payload(), 0, out);
}

int RunInspect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string path, dump_dir, dot_path;
  TrustFlags trust;
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      out << kInspectHelp;
      return kExitOk;
    }
    std::string error;
    if (ParseTrustFlag(a, &trust, &error)) {
      if (!error.empty()) {
        err << "xla_aot inspect: " << error << "\n" << kInspectHelp;
        return kExitUsage;
      }
    } else if (absl::StartsWith(a, "--dump_kernels=")) {
      dump_dir = a.substr(std::string("--dump_kernels=").size());
    } else if (absl::StartsWith(a, "--dot=")) {
      dot_path = a.substr(std::string("--dot=").size());
    } else if (absl::StartsWith(a, "-") || !path.empty()) {
      err << "xla_aot inspect: unexpected argument '" << a << "'\n" << kInspectHelp;
      return kExitUsage;
    } else {
      path = a;
    }
  }
  if (path.empty()) {
    err << "xla_aot inspect: no artifact file\n" << kInspectHelp;
    return kExitUsage;
  }
  absl::StatusOr<aot::LoadOptions> load = LoadOptionsFromFlags(trust);
  if (!load.ok()) {
    err << "xla_aot inspect: " << load.status().message() << "\n";
    return kExitBadInput;
  }
  absl::StatusOr<std::unique_ptr<aot::Executable>> exe = aot::Executable::LoadFromFile(path, *load);
  if (!exe.ok()) {
    err << "xla_aot inspect: " << path << ": " << exe.status().message() << "\n";
    return kExitBadInput;
  }
  PrintArtifact(**exe, *load, out);
  if (!dump_dir.empty()) {
    if (absl::Status s = DumpKernels(**exe, dump_dir, out); !s.ok()) {
      err << "xla_aot inspect: " << s.message() << "\n";
      return kExitBadInput;
    }
  }
  if (!dot_path.empty()) {
    std::ofstream dot(dot_path);
    dot << ThunkDot((*exe)->program());
    dot.close();
    if (!dot) {
      err << "xla_aot inspect: cannot write " << dot_path << "\n";
      return kExitBadInput;
    }
    out << "wrote " << dot_path << "\n";
  }
  return kExitOk;
}

}  // namespace xla::cli
