// check_host_objects: the host shared object check (CheckHostObjects, as
// artifact load runs it) over files, one verdict per object. For the
// compatibility audit in docs/aot_compatibility.md.
//
//   check_host_objects FILE...
//
// A FILE starting with the ELF magic is checked as a bare object (no export
// list); any other FILE is read as a .xaot artifact and each of its objects
// (payload.host_shared_object, payload.host_object_variants[i].shared_object)
// is checked with the kernels' host symbols as the export list. Prints
//   <file> <field> <bytes> ok|refused: <message>
// then "checked N objects in M files: K refused"; exits 1 when any object is
// refused or a file cannot be read.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/backends/gpu/runtime/host_object_variants.h"
#include "xla/stream_executor/host/host_object_check.h"

namespace {

struct Counts {
  int files = 0;
  int objects = 0;
  int refused = 0;
};

void Report(const std::string& file, const std::string& field, size_t size, const absl::Status& verdict,
            Counts* counts) {
  ++counts->objects;
  if (!verdict.ok()) ++counts->refused;
  std::printf("%s %s %zu %s%s\n", file.c_str(), field.c_str(), size,
              verdict.ok() ? "ok" : "refused: ", verdict.ok() ? "" : std::string(verdict.message()).c_str());
}

// False when `path` cannot be read or parsed.
bool CheckFile(const std::string& path, Counts* counts) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream read;
  read << file.rdbuf();
  const std::string bytes = read.str();
  if (!file) return false;
  ++counts->files;
  if (absl::StartsWith(bytes,
                       "\x7f"
                       "ELF")) {
    Report(path, "file", bytes.size(), stream_executor::host::CheckHostSharedObject(bytes, path), counts);
    return true;
  }
  xla::gpu::GpuExecutableProto artifact;
  if (!artifact.ParseFromString(bytes)) return false;
  const xla::gpu::GpuExecutablePayloadProto& payload = artifact.payload();
  std::set<std::string, std::less<>> symbols = xla::gpu::HostKernelSymbols(payload);
  stream_executor::host::HostObjectRules rules;
  rules.allowed_exports = &symbols;
  for (const xla::gpu::HostObjectField& o : xla::gpu::HostObjectsOf(payload, payload.host_shared_object())) {
    if (o.bytes.empty()) continue;
    Report(path, o.field, o.bytes.size(),
           stream_executor::host::CheckHostSharedObject(o.bytes, o.field, rules), counts);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Counts counts;
  bool readable = true;
  for (int i = 1; i < argc; ++i) {
    if (CheckFile(argv[i], &counts)) continue;
    std::fprintf(stderr, "check_host_objects: cannot read %s as an ELF object or a .xaot artifact\n",
                 argv[i]);
    readable = false;
  }
  std::printf("checked %d objects in %d files: %d refused\n", counts.objects, counts.files, counts.refused);
  return readable && counts.refused == 0 ? 0 : 1;
}
