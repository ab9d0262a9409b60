// `xla_aot check-compat`: compare the artifact schema against a released
// baseline.
//
//   xla_aot check-compat --baseline=OLD.pb --current=NEW.pb
//
// Both files are binary FileDescriptorSets (`protoc --include_imports
// --descriptor_set_out=FILE`). Prints one line per difference in the
// messages reachable from xla.gpu.GpuExecutableProto (see schema_diff.h for
// the verdicts), then a summary. Returns kExitOk when nothing is a
// violation, kExitBadInput (1) when a file is unreadable or not a valid
// descriptor set, or when any difference is a violation, and kExitUsage for
// a bad command line. Thread-compatible: writes only to the given streams.
#ifndef XLA_TOOLS_COMPAT_CHECK_COMPAT_COMMAND_H_
#define XLA_TOOLS_COMPAT_CHECK_COMPAT_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "xla/tools/compat/schema_diff.h"

namespace xla::cli {

// The subcommand's help text.
extern const char kCheckCompatHelp[];

// The feature registry's gate (xla/backends/gpu/runtime/feature_registry.h):
// a STAGED_ROLLOUT difference is gated when a registry entry's construct
// ("Message.field" or "Enum.VALUE", package-relative) is exactly the
// difference's SchemaDifference::construct and the entry has an emission
// flag that is off by default, or was turned on at least kForwardWindowDays
// after runtime support (CheckFeatureRegistry enforces the window). A field
// of the same name in another message is not gated by that entry.
compat::GatePredicate FeatureRegistryGate();

// Runs `xla_aot check-compat ARGS...` with the feature registry's gate.
int RunCheckCompat(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// As RunCheckCompat, but STAGED_ROLLOUT lines whose construct `is_gated` accepts
// are reported as gated and are not violations (the feature registry's
// hook). `is_gated` may be empty (nothing gated).
int RunCheckCompatWithGate(const std::vector<std::string>& args, const compat::GatePredicate& is_gated,
                           std::ostream& out, std::ostream& err);

}  // namespace xla::cli

#endif  // XLA_TOOLS_COMPAT_CHECK_COMPAT_COMMAND_H_
