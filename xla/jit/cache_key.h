// The JIT cache key: a fingerprint of the module (debug metadata stripped,
// see jit_module.h), the argument shapes with their layouts, and the
// compiler's identity (target, version, code-changing options).
//
// Thread-safety: values and pure functions.
#ifndef XLA_JIT_CACHE_KEY_H_
#define XLA_JIT_CACHE_KEY_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "xla/jit/fingerprint.h"
#include "xla/jit/jit_compiler.h"
#include "xla/jit/jit_module.h"
#include "xla/types/shape.h"

namespace xla::jit {

struct CacheKey {
  Fingerprint128 fingerprint;

  // 32 hex digits; also the persistent cache's file stem.
  std::string ToString() const { return fingerprint.ToHex(); }
  bool operator==(const CacheKey& o) const { return fingerprint == o.fingerprint; }
  bool operator!=(const CacheKey& o) const { return !(*this == o); }
  bool operator<(const CacheKey& o) const { return fingerprint < o.fingerprint; }
};

struct CacheKeyHash {
  size_t operator()(const CacheKey& k) const { return Fingerprint128Hash()(k.fingerprint); }
};

// Fingerprint of a compiler identity; compute it once per cache.
Fingerprint128 FingerprintCompiler(const CompilerIdentity& identity);

// The key of `module` called with `argument_shapes` on the compiler whose
// identity fingerprint is `compiler`. Does not check the shapes (see
// CheckArgumentShapes).
CacheKey MakeCacheKey(const JitModule& module, absl::Span<const Shape> argument_shapes,
                      const Fingerprint128& compiler);

// OK when there is one shape per entry parameter and each has the
// parameter's element type and dimensions (layouts may differ: they are
// part of the key). Otherwise InvalidArgument naming the module, the
// parameter and both shapes.
absl::Status CheckArgumentShapes(const JitModule& module, absl::Span<const Shape> argument_shapes);

}  // namespace xla::jit

#endif  // XLA_JIT_CACHE_KEY_H_
