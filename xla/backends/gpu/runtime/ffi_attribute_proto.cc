#include "xla/backends/gpu/runtime/ffi_attribute_proto.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

absl::Status Invalid(absl::string_view at, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(at, ": ", what));
}

template <typename T>
absl::StatusOr<std::vector<T>> ArrayFromProto(const google::protobuf::RepeatedField<T>& values,
                                              absl::string_view name, absl::string_view at) {
  if (values.size() > ffi::kMaxAttributeArrayElements) {
    return Invalid(at, absl::StrCat("array attribute '", name, "' has ", values.size(),
                                    " elements, more than the limit ",
                                    ffi::kMaxAttributeArrayElements));
  }
  return std::vector<T>(values.begin(), values.end());
}

absl::StatusOr<ffi::AttributeValue> ValueFromProto(const FfiAttributeProto& a,
                                                   absl::string_view at) {
  switch (a.value_case()) {
    case FfiAttributeProto::kI64:
      return ffi::AttributeValue(a.i64());
    case FfiAttributeProto::kF64:
      return ffi::AttributeValue(a.f64());
    case FfiAttributeProto::kStr:
      return ffi::AttributeValue(a.str());
    case FfiAttributeProto::kB:
      return ffi::AttributeValue(a.b());
    case FfiAttributeProto::kI64Array: {
      ASSIGN_OR_RETURN(std::vector<int64_t> v, ArrayFromProto(a.i64_array().values(), a.name(), at));
      return ffi::AttributeValue(std::move(v));
    }
    case FfiAttributeProto::kF64Array: {
      ASSIGN_OR_RETURN(std::vector<double> v, ArrayFromProto(a.f64_array().values(), a.name(), at));
      return ffi::AttributeValue(std::move(v));
    }
    case FfiAttributeProto::VALUE_NOT_SET:
      break;
  }
  return Invalid(at, absl::StrCat("attribute '", a.name(),
                                  "' has no value of a known type (artifact newer than runtime?)"));
}

void ValueToProto(const ffi::AttributeValue& value, FfiAttributeProto* a) {
  switch (ffi::KindOf(value)) {
    case ffi::AttributeKind::kI64:
      a->set_i64(std::get<int64_t>(value));
      return;
    case ffi::AttributeKind::kF64:
      a->set_f64(std::get<double>(value));
      return;
    case ffi::AttributeKind::kStr:
      a->set_str(std::get<std::string>(value));
      return;
    case ffi::AttributeKind::kBool:
      a->set_b(std::get<bool>(value));
      return;
    case ffi::AttributeKind::kI64Array: {
      // An empty array is still an array (the message is set).
      const auto& v = std::get<std::vector<int64_t>>(value);
      a->mutable_i64_array()->mutable_values()->Add(v.begin(), v.end());
      return;
    }
    case ffi::AttributeKind::kF64Array: {
      const auto& v = std::get<std::vector<double>>(value);
      a->mutable_f64_array()->mutable_values()->Add(v.begin(), v.end());
      return;
    }
  }
}

}  // namespace

absl::StatusOr<ffi::Attributes> AttributesFromProto(
    const google::protobuf::RepeatedPtrField<FfiAttributeProto>& protos, absl::string_view path) {
  ffi::Attributes attributes;
  for (int i = 0; i < protos.size(); ++i) {
    const FfiAttributeProto& a = protos[i];
    const std::string at = absl::StrCat(path, path.empty() ? "" : ".", "attributes[", i, "]");
    ASSIGN_OR_RETURN(ffi::AttributeValue value, ValueFromProto(a, at));
    if (a.name().empty()) return Invalid(at, "attribute name is empty");
    if (!attributes.emplace(a.name(), std::move(value)).second) {
      return Invalid(at, absl::StrCat("attribute '", a.name(), "' appears twice"));
    }
  }
  return attributes;
}

void AttributesToProto(const ffi::Attributes& attributes,
                       google::protobuf::RepeatedPtrField<FfiAttributeProto>* out) {
  for (const auto& [name, value] : attributes) {
    FfiAttributeProto* a = out->Add();
    a->set_name(name);
    ValueToProto(value, a);
  }
}

}  // namespace xla::gpu
