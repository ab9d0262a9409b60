// FfiRegistry: the custom-call (FFI) handlers a runtime offers, keyed by
// target name and platform.
//
// Registered names are part of the artifact contract (DESIGN.md section 6):
// an artifact names its custom calls by these strings, so a rename keeps the
// old name as an alias for 6 months, and every alias carries its expiry date
// (a test fails once one is past due). Resolution happens when an artifact is
// loaded: an unknown name, or a call whose operand/result counts or
// attributes do not match the handler's signature, fails the load, never the
// run.
//
// Built-in handlers (builtin_handlers.cc, linked with this library):
//   "xla.host.fill_f32"  platform host; 0 operands, 1 result; attribute
//                        `value` (f64): writes `value` as f32 to every element
//                        of the result (size a multiple of 4).
//   "xla.host.add_f32"   platform host; 2 operands, 1 result, equal sizes (a
//                        multiple of 4): result = operand0 + operand1.
//   "te_fused_attn_forward_ffi", "te_fused_attn_backward_ffi"
//                        platform host; Transformer Engine's fused attention
//                        (te_fused_attention_host.h); any operand count, 4
//                        and 5 results; attributes checked by the handler.
//   alias "xla_host_fill_f32" -> "xla.host.fill_f32", expires 2027-05-01.
//
// Thread-safety: Register* and Lookup may be called from any thread.
#ifndef XLA_BACKENDS_GPU_FFI_FFI_REGISTRY_H_
#define XLA_BACKENDS_GPU_FFI_FFI_REGISTRY_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/stream_executor/device_memory.h"
#include "xla/stream_executor/stream.h"
#include "xla/stream_executor/stream_executor.h"
#include "xla/types/shape.h"

namespace xla::gpu::ffi {

// A typed attribute value (FfiAttributeProto), alternatives in the order
// of AttributeKind. Build strings as std::string: a string literal would
// convert to bool.
using AttributeValue = std::variant<int64_t, double, std::string, bool, std::vector<int64_t>,
                                    std::vector<double>>;
using Attributes = std::map<std::string, AttributeValue, std::less<>>;

// The kind of an AttributeValue: its variant index.
enum class AttributeKind { kI64 = 0, kF64, kStr, kBool, kI64Array, kF64Array };

// The kind of `value`. Never fails.
inline AttributeKind KindOf(const AttributeValue& value) {
  return static_cast<AttributeKind>(value.index());
}
// "i64", "f64", "str", "bool", "array<i64>", "array<f64>".
absl::string_view AttributeKindName(AttributeKind kind);

// Most elements of one array attribute an artifact may carry (checked at
// load).
inline constexpr int64_t kMaxAttributeArrayElements = 65536;

// An attribute a handler needs, with its kind.
struct AttributeSpec {
  std::string name;
  AttributeKind kind = AttributeKind::kI64;
};

// What a handler gets for one call. Valid only during the call.
struct CallFrame {
  stream_executor::StreamExecutor* executor = nullptr;
  // The stream to enqueue work on; handlers must not block on it.
  stream_executor::Stream* stream = nullptr;
  absl::Span<const stream_executor::DeviceMemoryBase> operands;
  absl::Span<const stream_executor::DeviceMemoryBase> results;
  // The shape (with layout) of each operand and result as the artifact
  // records it, index-aligned with operands/results; an entry is null where
  // the artifact has none (artifacts before 2026-12-02).
  absl::Span<const Shape* const> operand_shapes;
  absl::Span<const Shape* const> result_shapes;
  absl::string_view opaque;
  const Attributes* attributes = nullptr;
};

// Enqueues the call's work on frame.stream. Errors become the run's error.
using Handler = absl::Status (*)(const CallFrame& frame);

// What a handler accepts, checked at load. -1 means "any count".
struct Signature {
  int num_operands = -1;
  int num_results = -1;
  // Attributes that must be present, of any kind (others are ignored).
  std::vector<std::string> required_attributes;
  // Attributes that must be present with exactly this kind.
  std::vector<AttributeSpec> typed_attributes;
};

struct HandlerEntry {
  std::string name;
  std::string platform;
  Handler handler = nullptr;
  Signature signature;
};

struct AliasEntry {
  std::string old_name;
  std::string new_name;
  // "YYYY-MM-DD": after this date the alias may be removed.
  std::string expiry_date;
};

class FfiRegistry {
 public:
  // The process-wide registry, with the built-in handlers.
  static FfiRegistry& Global();

  // Registers a handler. AlreadyExists when (name, platform) is taken;
  // InvalidArgument for an empty name/platform or a null handler.
  absl::Status Register(HandlerEntry entry);
  // Makes `old_name` resolve to `new_name` until at least `expiry_date`.
  // AlreadyExists when `old_name` is a handler or an alias already.
  absl::Status RegisterAlias(AliasEntry alias);

  // The handler for `name` (or the handler an alias names) on `platform`.
  // NotFound naming the target, the platform and the registered names.
  absl::StatusOr<const HandlerEntry*> Lookup(absl::string_view name,
                                             absl::string_view platform) const;

  std::vector<AliasEntry> Aliases() const;
  // Registered handler names, "name@platform", sorted.
  std::vector<std::string> HandlerNames() const;

 private:
  mutable std::mutex mu_;
  // Entries are never removed, so the returned pointers stay valid.
  std::map<std::pair<std::string, std::string>, std::unique_ptr<HandlerEntry>> handlers_;
  std::map<std::string, AliasEntry, std::less<>> aliases_;
};

// Checks a call against a handler's signature: operand and result counts,
// required attributes present, typed ones of the right kind.
// InvalidArgument starting with `path` and naming the handler otherwise.
// Thread-safe.
absl::Status CheckSignature(const HandlerEntry& entry, int64_t num_operands,
                            int64_t num_results, const Attributes& attributes,
                            absl::string_view path);

}  // namespace xla::gpu::ffi

#endif  // XLA_BACKENDS_GPU_FFI_FFI_REGISTRY_H_
