#include "tests/fuzz/proto_mutator.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"

namespace xla::fuzz {
namespace {

using ::google::protobuf::FieldDescriptor;
using ::google::protobuf::Message;
using ::google::protobuf::Reflection;

constexpr int kMaxDepth = 64;

// One place a mutation can land: `field` of `message`; `index` is the
// element of a repeated field, or -1 for a singular field or for an edit of
// the repeated field as a whole.
struct Site {
  Message* message;
  const FieldDescriptor* field;
  int index;
  std::string path;
};

void CollectSites(Message* message, const std::string& path, int depth, std::vector<Site>* sites) {
  if (depth > kMaxDepth) return;
  const Reflection* refl = message->GetReflection();
  const auto* desc = message->GetDescriptor();
  for (int f = 0; f < desc->field_count(); ++f) {
    const FieldDescriptor* field = desc->field(f);
    const std::string name = path.empty() ? field->name() : absl::StrCat(path, ".", field->name());
    if (field->is_repeated()) {
      const int n = refl->FieldSize(*message, field);
      sites->push_back({message, field, -1, name});
      for (int i = 0; i < n; ++i) {
        const std::string elem = absl::StrCat(name, "[", i, "]");
        if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
          CollectSites(refl->MutableRepeatedMessage(message, field, i), elem, depth + 1, sites);
        } else {
          sites->push_back({message, field, i, elem});
        }
      }
      continue;
    }
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      // An unset message is a site (creating it); a set one is descended.
      if (!refl->HasField(*message, field)) {
        sites->push_back({message, field, -1, name});
      } else {
        CollectSites(refl->MutableMessage(message, field), name, depth + 1, sites);
      }
      continue;
    }
    sites->push_back({message, field, -1, name});
  }
}

int64_t InterestingInt(int64_t current, std::mt19937_64& rng) {
  static const int64_t kValues[] = {0,
                                    1,
                                    -1,
                                    2,
                                    3,
                                    7,
                                    64,
                                    4096,
                                    int64_t{1} << 31,
                                    (int64_t{1} << 31) - 1,
                                    int64_t{1} << 32,
                                    int64_t{1} << 62,
                                    std::numeric_limits<int64_t>::max(),
                                    std::numeric_limits<int64_t>::max() - 7,
                                    std::numeric_limits<int64_t>::min()};
  // Off-by-one edits wrap around (in unsigned arithmetic, which is
  // defined) rather than overflow.
  switch (rng() % 4) {
    case 0:
      return static_cast<int64_t>(static_cast<uint64_t>(current) + 1);
    case 1:
      return static_cast<int64_t>(static_cast<uint64_t>(current) - 1);
    case 2:
      return static_cast<int64_t>(rng() % 256);
    default:
      return kValues[rng() % (sizeof(kValues) / sizeof(kValues[0]))];
  }
}

double InterestingDouble(std::mt19937_64& rng) {
  static const double kValues[] = {0.0, -1.0, 1.0, 0.5, 1e308, -1e308,
                                   std::numeric_limits<double>::quiet_NaN(),
                                   std::numeric_limits<double>::infinity()};
  return kValues[rng() % (sizeof(kValues) / sizeof(kValues[0]))];
}

// `utf8`: the field is a proto3 string, which must stay valid UTF-8 (else
// the edit would only ever test the wire parser), so new bytes are ASCII.
std::string MutateString(std::string s, bool utf8, std::mt19937_64& rng) {
  auto byte = [&] { return static_cast<char>(utf8 ? 0x20 + rng() % 0x5f : rng()); };
  switch (rng() % 5) {
    case 0:
      return "";
    case 1:
      s.resize(s.empty() ? 0 : rng() % s.size());
      return s;
    case 2:
      return s + std::string(1 + rng() % 8, byte());
    case 3:
      if (!s.empty()) {
        const size_t at = rng() % s.size();
        // Overwrite an ASCII byte only, so a multi-byte character is not cut.
        if (!utf8 || static_cast<unsigned char>(s[at]) < 0x80) s[at] = byte();
      }
      return s;
    default:
      // Doubling, bounded so repeated edits do not grow without limit.
      return s.size() < 4096 ? s + s : s.substr(0, s.size() / 2);
  }
}

// Sets a scalar (singular or element `index` of a repeated field).
std::string MutateScalar(const Site& site, std::mt19937_64& rng) {
  Message* m = site.message;
  const Reflection* r = m->GetReflection();
  const FieldDescriptor* f = site.field;
  const bool rep = site.index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: {
      const int32_t v = static_cast<int32_t>(InterestingInt(rep ? r->GetRepeatedInt32(*m, f, site.index) : r->GetInt32(*m, f), rng));
      rep ? r->SetRepeatedInt32(m, f, site.index, v) : r->SetInt32(m, f, v);
      return absl::StrCat(site.path, " = ", v);
    }
    case FieldDescriptor::CPPTYPE_INT64: {
      const int64_t v = InterestingInt(rep ? r->GetRepeatedInt64(*m, f, site.index) : r->GetInt64(*m, f), rng);
      rep ? r->SetRepeatedInt64(m, f, site.index, v) : r->SetInt64(m, f, v);
      return absl::StrCat(site.path, " = ", v);
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      const uint32_t v = static_cast<uint32_t>(InterestingInt(rep ? r->GetRepeatedUInt32(*m, f, site.index) : r->GetUInt32(*m, f), rng));
      rep ? r->SetRepeatedUInt32(m, f, site.index, v) : r->SetUInt32(m, f, v);
      return absl::StrCat(site.path, " = ", v);
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      const uint64_t v = static_cast<uint64_t>(InterestingInt(
          static_cast<int64_t>(rep ? r->GetRepeatedUInt64(*m, f, site.index) : r->GetUInt64(*m, f)), rng));
      rep ? r->SetRepeatedUInt64(m, f, site.index, v) : r->SetUInt64(m, f, v);
      return absl::StrCat(site.path, " = ", v);
    }
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      const double v = InterestingDouble(rng);
      rep ? r->SetRepeatedDouble(m, f, site.index, v) : r->SetDouble(m, f, v);
      return absl::StrCat(site.path, " = ", v);
    }
    case FieldDescriptor::CPPTYPE_FLOAT: {
      const float v = static_cast<float>(InterestingDouble(rng));
      rep ? r->SetRepeatedFloat(m, f, site.index, v) : r->SetFloat(m, f, v);
      return absl::StrCat(site.path, " = ", v);
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      const bool v = !(rep ? r->GetRepeatedBool(*m, f, site.index) : r->GetBool(*m, f));
      rep ? r->SetRepeatedBool(m, f, site.index, v) : r->SetBool(m, f, v);
      return absl::StrCat(site.path, " = ", v);
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      const auto* e = f->enum_type();
      const int v = rng() % 3 == 0 ? static_cast<int>(InterestingInt(0, rng))
                                   : e->value(static_cast<int>(rng() % e->value_count()))->number();
      // Closed (proto2) enums cannot hold unknown numbers; fall back to a
      // declared value there.
      const bool open = f->file()->syntax() == google::protobuf::FileDescriptor::SYNTAX_PROTO3;
      const int set = open || e->FindValueByNumber(v) != nullptr ? v : e->value(0)->number();
      rep ? r->SetRepeatedEnumValue(m, f, site.index, set) : r->SetEnumValue(m, f, set);
      return absl::StrCat(site.path, " = enum ", set);
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      const std::string v = MutateString(rep ? r->GetRepeatedString(*m, f, site.index) : r->GetString(*m, f),
                                         f->type() == FieldDescriptor::TYPE_STRING, rng);
      rep ? r->SetRepeatedString(m, f, site.index, v) : r->SetString(m, f, v);
      return absl::StrCat(site.path, " = <", v.size(), " bytes>");
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      r->MutableMessage(m, f);  // creates an empty message
      return absl::StrCat(site.path, " = {}");
  }
  return "";
}

// Removes, duplicates, swaps or clears elements of a repeated field.
std::string MutateRepeated(const Site& site, std::mt19937_64& rng) {
  Message* m = site.message;
  const Reflection* r = m->GetReflection();
  const FieldDescriptor* f = site.field;
  const int n = r->FieldSize(*m, f);
  const int op = static_cast<int>(rng() % 4);
  if (n == 0 || op == 3) {
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      r->ClearField(m, f);
      return absl::StrCat(site.path, " cleared");
    }
    r->AddMessage(m, f);
    return absl::StrCat(site.path, " += {}");
  }
  const int i = static_cast<int>(rng() % n);
  if (op == 0) {
    r->SwapElements(m, f, i, n - 1);
    r->RemoveLast(m, f);
    return absl::StrCat(site.path, "[", i, "] removed");
  }
  if (op == 1) {
    const int j = static_cast<int>(rng() % n);
    r->SwapElements(m, f, i, j);
    return absl::StrCat(site.path, "[", i, "] <-> [", j, "]");
  }
  // Duplicate element i at the end.
  if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
    r->AddMessage(m, f)->CopyFrom(r->GetRepeatedMessage(*m, f, i));
  } else {
    // Scalars: add any value, then set it through the scalar path.
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32: r->AddInt32(m, f, r->GetRepeatedInt32(*m, f, i)); break;
      case FieldDescriptor::CPPTYPE_INT64: r->AddInt64(m, f, r->GetRepeatedInt64(*m, f, i)); break;
      case FieldDescriptor::CPPTYPE_UINT32: r->AddUInt32(m, f, r->GetRepeatedUInt32(*m, f, i)); break;
      case FieldDescriptor::CPPTYPE_UINT64: r->AddUInt64(m, f, r->GetRepeatedUInt64(*m, f, i)); break;
      case FieldDescriptor::CPPTYPE_DOUBLE: r->AddDouble(m, f, r->GetRepeatedDouble(*m, f, i)); break;
      case FieldDescriptor::CPPTYPE_FLOAT: r->AddFloat(m, f, r->GetRepeatedFloat(*m, f, i)); break;
      case FieldDescriptor::CPPTYPE_BOOL: r->AddBool(m, f, r->GetRepeatedBool(*m, f, i)); break;
      case FieldDescriptor::CPPTYPE_ENUM: r->AddEnumValue(m, f, r->GetRepeatedEnumValue(*m, f, i)); break;
      case FieldDescriptor::CPPTYPE_STRING: r->AddString(m, f, r->GetRepeatedString(*m, f, i)); break;
      case FieldDescriptor::CPPTYPE_MESSAGE: break;
    }
  }
  return absl::StrCat(site.path, "[", i, "] duplicated");
}

}  // namespace

std::string MutateMessage(google::protobuf::Message* message, std::mt19937_64& rng) {
  std::vector<Site> sites;
  CollectSites(message, "", 0, &sites);
  if (sites.empty()) return "";
  const Site& site = sites[rng() % sites.size()];
  if (site.field->is_repeated() && site.index < 0) return MutateRepeated(site, rng);
  return MutateScalar(site, rng);
}

}  // namespace xla::fuzz
