#include "xla/backends/gpu/runtime/kernel_table.h"

#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

absl::Status Invalid(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

absl::Status NeedPlatform(const Target& target, absl::string_view platform,
                          absl::string_view path, absl::string_view kind) {
  if (target.platform == platform) return absl::OkStatus();
  return Invalid(path, absl::StrCat("a ", kind, " kernel cannot run on target ", target.name));
}

absl::StatusOr<KernelSpec> SpecFromProto(const KernelProto& p, absl::string_view host_shared_object,
                                         const Target& target, const std::string& path) {
  KernelSpec spec;
  spec.name = p.name();
  switch (p.spec_case()) {
    case KernelProto::kPtx:
      RETURN_IF_ERROR(NeedPlatform(target, "cuda", path, "PTX"));
      spec.kind = KernelSpec::Kind::kPtx;
      spec.code = p.ptx().ptx();
      spec.entry = p.ptx().entry();
      break;
    case KernelProto::kCubin:
      RETURN_IF_ERROR(NeedPlatform(target, "cuda", path, "cubin"));
      spec.kind = KernelSpec::Kind::kCubin;
      spec.code = p.cubin().cubin();
      spec.entry = p.cubin().entry();
      break;
    case KernelProto::kCubinWithPtx:
      RETURN_IF_ERROR(NeedPlatform(target, "cuda", path, "cubin_with_ptx"));
      if (p.cubin_with_ptx().ptx().empty()) {
        return Invalid(path + ".cubin_with_ptx.ptx", "is empty (use `cubin` for a cubin alone)");
      }
      spec.kind = KernelSpec::Kind::kCubin;
      spec.code = p.cubin_with_ptx().cubin();
      spec.ptx_fallback = p.cubin_with_ptx().ptx();
      spec.entry = p.cubin_with_ptx().entry();
      break;
    case KernelProto::kHostSymbol:
      RETURN_IF_ERROR(NeedPlatform(target, "host", path, "host_symbol"));
      if (host_shared_object.empty()) {
        return Invalid(path + ".host_symbol", "the artifact has no host_shared_object");
      }
      spec.kind = KernelSpec::Kind::kHostSymbol;
      spec.entry = p.host_symbol();
      break;
    case KernelProto::kRegisteredKernel:
      spec.kind = KernelSpec::Kind::kRegistered;
      spec.entry = p.registered_kernel();
      spec.registered = FindRegisteredKernel(spec.entry);
      if (spec.registered == nullptr || spec.registered->platform != target.platform) {
        return Invalid(path + ".registered_kernel",
                       absl::StrCat("no kernel '", spec.entry, "' is registered in this runtime for platform ",
                                    target.platform));
      }
      break;
    case KernelProto::SPEC_NOT_SET:
      return Invalid(path, "unknown kernel spec (no known field set): the artifact is newer than "
                           "this runtime; upgrade the runtime or compile for format 1");
  }
  if (spec.entry.empty()) return Invalid(path, "empty entry symbol");
  return spec;
}

}  // namespace

absl::string_view KernelKindName(KernelSpec::Kind kind) {
  switch (kind) {
    case KernelSpec::Kind::kPtx:
      return "ptx";
    case KernelSpec::Kind::kCubin:
      return "cubin";
    case KernelSpec::Kind::kHostSymbol:
      return "host_symbol";
    case KernelSpec::Kind::kRegistered:
      return "registered_kernel";
  }
  return "?";
}

absl::StatusOr<std::vector<KernelSpec>> KernelsFromProto(const GpuExecutablePayloadProto& payload,
                                                         absl::string_view host_shared_object,
                                                         const Target& target) {
  if (payload.kernels_size() > kMaxKernels) {
    return Invalid("kernels", absl::StrCat(payload.kernels_size(), " entries exceed the limit ", kMaxKernels));
  }
  std::vector<KernelSpec> specs;
  specs.reserve(payload.kernels_size());
  std::set<absl::string_view> names;
  for (int i = 0; i < payload.kernels_size(); ++i) {
    const std::string path = absl::StrCat("kernels[", i, "]");
    const KernelProto& p = payload.kernels(i);
    if (p.name().empty()) return Invalid(path + ".name", "is empty");
    if (!names.insert(p.name()).second) {
      return Invalid(path + ".name", absl::StrCat("'", p.name(), "' appears twice; each kernel is stored once"));
    }
    ASSIGN_OR_RETURN(KernelSpec spec, SpecFromProto(p, host_shared_object, target, path));
    specs.push_back(std::move(spec));
  }
  return specs;
}

DeviceKernels::DeviceKernels(stream_executor::StreamExecutor* executor,
                             absl::Span<const KernelSpec> specs,
                             absl::string_view host_shared_object, std::string module_name)
    : executor_(executor),
      specs_(specs),
      host_shared_object_(host_shared_object),
      module_name_(std::move(module_name)),
      kernels_(specs.size()) {}

absl::StatusOr<std::unique_ptr<stream_executor::Kernel>> DeviceKernels::LoadLocked(
    const KernelSpec& spec) {
  if (spec.kind == KernelSpec::Kind::kHostSymbol) {
    if (host_module_ == nullptr) {
      ASSIGN_OR_RETURN(host_module_, executor_->LoadKernelModule(module_name_, host_shared_object_));
    }
    return host_module_->GetKernel(spec.entry);
  }
  const std::string name = absl::StrCat(module_name_, ".", spec.name);
  absl::StatusOr<std::unique_ptr<stream_executor::KernelModule>> loaded =
      executor_->LoadKernelModule(name, spec.code);
  if (!loaded.ok() && !spec.ptx_fallback.empty()) {
    // The cubin does not fit this GPU (e.g. a newer architecture): JIT the
    // PTX stored beside it, and report both failures if that fails too.
    absl::StatusOr<std::unique_ptr<stream_executor::KernelModule>> jit =
        executor_->LoadKernelModule(name, spec.ptx_fallback);
    if (!jit.ok()) {
      return absl::Status(jit.status().code(),
                          absl::StrCat("cubin: ", loaded.status().message(),
                                       "; PTX fallback: ", jit.status().message()));
    }
    loaded = std::move(jit);
  }
  if (!loaded.ok()) return loaded.status();
  std::unique_ptr<stream_executor::KernelModule> module = std::move(*loaded);
  auto kernel = module->GetKernel(spec.entry);
  own_modules_.push_back(std::move(module));
  return kernel;
}

absl::Status DeviceKernels::Load(int64_t index) {
  const KernelSpec& spec = specs_[index];
  if (spec.kind == KernelSpec::Kind::kRegistered) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(mu_);
  if (kernels_[index] != nullptr) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<stream_executor::Kernel>> kernel = LoadLocked(spec);
  if (!kernel.ok()) {
    return absl::Status(kernel.status().code(),
                        absl::StrCat("loading kernel '", spec.name, "' (", KernelKindName(spec.kind),
                                     " ", spec.entry, "): ", kernel.status().message()));
  }
  kernels_[index] = std::move(*kernel);
  return absl::OkStatus();
}

const stream_executor::Kernel* DeviceKernels::Get(int64_t index) const {
  std::lock_guard<std::mutex> lock(mu_);
  return kernels_[index].get();
}

}  // namespace xla::gpu
