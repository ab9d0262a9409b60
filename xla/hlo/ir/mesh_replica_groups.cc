#include "xla/hlo/ir/mesh_replica_groups.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"

namespace xla {
namespace {

constexpr int64_t kMaxDevices = int64_t{1} << 20;

// A left-to-right reader over the text; every Read* returns false (and
// leaves the reader in an unspecified position) when the text does not
// match.
class Reader {
 public:
  explicit Reader(absl::string_view text) : rest_(text) {}

  bool Consume(absl::string_view token) {
    rest_ = absl::StripLeadingAsciiWhitespace(rest_);
    if (!absl::StartsWith(rest_, token)) return false;
    rest_.remove_prefix(token.size());
    return true;
  }
  bool ReadName(std::string* name) {
    if (!Consume("'")) return false;
    const size_t end = rest_.find('\'');
    if (end == absl::string_view::npos || end == 0) return false;
    *name = std::string(rest_.substr(0, end));
    rest_.remove_prefix(end + 1);
    return true;
  }
  bool ReadInt(int64_t* value) {
    rest_ = absl::StripLeadingAsciiWhitespace(rest_);
    size_t n = 0;
    while (n < rest_.size() && absl::ascii_isdigit(static_cast<unsigned char>(rest_[n]))) ++n;
    if (n == 0 || !absl::SimpleAtoi(rest_.substr(0, n), value)) return false;
    rest_.remove_prefix(n);
    return true;
  }
  bool AtEnd() const { return absl::StripAsciiWhitespace(rest_).empty(); }

 private:
  absl::string_view rest_;
};

struct Mesh {
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  std::vector<int64_t> listed;  // axis numbers in the braces, in order
};

std::optional<int64_t> AxisNumber(const Mesh& mesh, const std::string& name) {
  auto it = std::find(mesh.names.begin(), mesh.names.end(), name);
  if (it == mesh.names.end()) return std::nullopt;
  return it - mesh.names.begin();
}

std::optional<Mesh> ParseMesh(absl::string_view text) {
  Reader r(text);
  Mesh mesh;
  if (!r.Consume("mesh") || !r.Consume("[")) return std::nullopt;
  int64_t total = 1;
  do {
    std::string name;
    int64_t size = 0;
    if (!r.ReadName(&name) || !r.Consume("=") || !r.ReadInt(&size)) return std::nullopt;
    if (size < 1 || total > kMaxDevices / size || AxisNumber(mesh, name).has_value()) {
      return std::nullopt;
    }
    total *= size;
    mesh.names.push_back(name);
    mesh.sizes.push_back(size);
  } while (r.Consume(","));
  if (!r.Consume("]") || !r.Consume("{")) return std::nullopt;
  do {
    std::string name;
    if (!r.ReadName(&name)) return std::nullopt;
    const std::optional<int64_t> axis = AxisNumber(mesh, name);
    if (!axis.has_value() ||
        std::find(mesh.listed.begin(), mesh.listed.end(), *axis) != mesh.listed.end()) {
      return std::nullopt;
    }
    mesh.listed.push_back(*axis);
  } while (r.Consume(","));
  if (!r.Consume("}") || !r.AtEnd()) return std::nullopt;
  return mesh;
}

// Row-major iteration over the axes `axes` (first outermost): calls
// `visit` with the coordinate of each of them, filled into `coords`.
template <typename Visit>
void ForEachCoordinate(const Mesh& mesh, const std::vector<int64_t>& axes,
                       std::vector<int64_t>& coords, Visit visit) {
  for (int64_t a : axes) coords[a] = 0;
  while (true) {
    visit();
    int64_t k = static_cast<int64_t>(axes.size()) - 1;
    for (; k >= 0; --k) {
      if (++coords[axes[k]] < mesh.sizes[axes[k]]) break;
      coords[axes[k]] = 0;
    }
    if (k < 0) return;
  }
}

}  // namespace

std::vector<std::vector<int64_t>> ExpandMeshReplicaGroups(absl::string_view text) {
  const std::optional<Mesh> mesh = ParseMesh(text);
  if (!mesh.has_value()) return {};
  std::vector<int64_t> others;
  for (int64_t a = 0; a < static_cast<int64_t>(mesh->sizes.size()); ++a) {
    if (std::find(mesh->listed.begin(), mesh->listed.end(), a) == mesh->listed.end()) {
      others.push_back(a);
    }
  }
  std::vector<int64_t> coords(mesh->sizes.size(), 0);
  auto device_id = [&]() {
    int64_t id = 0;
    for (size_t a = 0; a < coords.size(); ++a) id = id * mesh->sizes[a] + coords[a];
    return id;
  };
  std::vector<std::vector<int64_t>> groups;
  ForEachCoordinate(*mesh, others, coords, [&]() {
    std::vector<int64_t> group;
    ForEachCoordinate(*mesh, mesh->listed, coords, [&]() { group.push_back(device_id()); });
    groups.push_back(std::move(group));
  });
  return groups;
}

}  // namespace xla
