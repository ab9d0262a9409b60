#include "xla/jit/cache_key.h"

#include "absl/strings/str_cat.h"

namespace xla::jit {
namespace {

// Bump when the key's composition changes, so old persistent entries are
// not reused under a new meaning.
constexpr char kKeySchema[] = "xla-jit-cache-key-v1";

}  // namespace

Fingerprint128 FingerprintCompiler(const CompilerIdentity& identity) {
  return Fingerprinter()
      .Add("compiler")
      .Add(identity.target)
      .Add(identity.version)
      .Add(identity.options)
      .Finish();
}

CacheKey MakeCacheKey(const JitModule& module, absl::Span<const Shape> argument_shapes,
                      const Fingerprint128& compiler) {
  Fingerprinter f;
  f.Add(kKeySchema).Add(module.fingerprint()).Add(compiler);
  f.AddInt(static_cast<int64_t>(argument_shapes.size()));
  for (const Shape& shape : argument_shapes) f.Add(shape.ToString(/*print_layout=*/true));
  return CacheKey{f.Finish()};
}

absl::Status CheckArgumentShapes(const JitModule& module, absl::Span<const Shape> argument_shapes) {
  const std::vector<Shape>& params = module.program_shape().parameters;
  if (params.size() != argument_shapes.size()) {
    return absl::InvalidArgumentError(absl::StrCat("module ", module.name(), " takes ", params.size(),
                                                   " arguments but the request has ",
                                                   argument_shapes.size()));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (ShapesCompatible(params[i], argument_shapes[i])) continue;
    return absl::InvalidArgumentError(
        absl::StrCat("module ", module.name(), ": argument ", i, " has shape ",
                     argument_shapes[i].ToString(), " but parameter ", i, " is ",
                     params[i].ToString(), "; pass an argument of the parameter's shape"));
  }
  return absl::OkStatus();
}

}  // namespace xla::jit
