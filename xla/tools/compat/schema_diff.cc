#include "xla/tools/compat/schema_diff.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor_database.h"

namespace xla::compat {

namespace pb = google::protobuf;

absl::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSafe:
      return "SAFE";
    case Verdict::kStagedRollout:
      return "STAGED_ROLLOUT";
    case Verdict::kBreakingBackward:
      return "BREAKING_BACKWARD";
    case Verdict::kForbidden:
      return "FORBIDDEN";
  }
  return "UNKNOWN";
}

std::string SchemaDifference::ToString() const { return absl::StrCat(VerdictName(verdict), " ", path, ": ", message); }

bool IsViolation(const SchemaDifference& difference, const GatePredicate& is_gated) {
  switch (difference.verdict) {
    case Verdict::kSafe:
      return false;
    case Verdict::kStagedRollout:
      return !is_gated || !is_gated(difference.construct);
    case Verdict::kBreakingBackward:
    case Verdict::kForbidden:
      return true;
  }
  return true;
}

std::vector<SchemaDifference> Violations(const std::vector<SchemaDifference>& differences,
                                         const GatePredicate& is_gated) {
  std::vector<SchemaDifference> out;
  for (const SchemaDifference& d : differences) {
    if (IsViolation(d, is_gated)) out.push_back(d);
  }
  return out;
}

absl::StatusOr<pb::FileDescriptorSet> ParseDescriptorSet(absl::string_view bytes, absl::string_view what) {
  pb::FileDescriptorSet set;
  if (!set.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a binary FileDescriptorSet (write one with `protoc --include_imports "
                           "--descriptor_set_out=FILE`)"));
  }
  if (set.file_size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": the FileDescriptorSet holds no file"));
  }
  return set;
}

namespace {

// Collects the first error the pool reports while building a file.
class FirstErrorCollector : public pb::DescriptorPool::ErrorCollector {
 public:
  void AddError(const std::string& filename, const std::string& element_name, const pb::Message*,
                ErrorLocation, const std::string& message) override {
    if (error_.empty()) error_ = absl::StrCat(filename, ": ", element_name, ": ", message);
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

// A descriptor pool built from one FileDescriptorSet, and its root message.
struct LoadedSchema {
  pb::SimpleDescriptorDatabase database;
  FirstErrorCollector errors;
  std::unique_ptr<pb::DescriptorPool> pool;
  const pb::Descriptor* root = nullptr;
};

absl::StatusOr<std::unique_ptr<LoadedSchema>> LoadSchema(const pb::FileDescriptorSet& set, absl::string_view what,
                                                         absl::string_view root_message) {
  auto schema = std::make_unique<LoadedSchema>();
  for (const pb::FileDescriptorProto& file : set.file()) {
    if (!schema->database.Add(file)) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " schema: file '", file.name(), "' appears twice with different contents"));
    }
  }
  schema->pool = std::make_unique<pb::DescriptorPool>(&schema->database, &schema->errors);
  // Building every file up front surfaces errors in files the root does not
  // reach too: a broken descriptor set is a broken input.
  for (const pb::FileDescriptorProto& file : set.file()) {
    if (schema->pool->FindFileByName(file.name()) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(what, " schema: cannot build '", file.name(),
                                                     "': ", schema->errors.error(),
                                                     " (was the set written with --include_imports?)"));
    }
  }
  schema->root = schema->pool->FindMessageTypeByName(std::string(root_message));
  if (schema->root == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " schema: no message '", root_message, "' (is this the artifact schema?)"));
  }
  return schema;
}

// "repeated int64", "optional .xla.ShapeProto", "required .xla.gpu.AliasKindProto".
std::string TypeString(const pb::FieldDescriptor* f) {
  std::string label = f->is_repeated() ? "repeated" : f->is_required() ? "required" : "optional";
  std::string type = f->type_name();
  if (f->message_type() != nullptr) type = absl::StrCat(".", f->message_type()->full_name());
  if (f->enum_type() != nullptr) type = absl::StrCat(".", f->enum_type()->full_name());
  return absl::StrCat(label, " ", type);
}

std::string OneofName(const pb::FieldDescriptor* f) {
  const pb::OneofDescriptor* o = f->real_containing_oneof();
  return o == nullptr ? "(none)" : o->name();
}

// The full name of the message or enum a field refers to ("" for scalars).
std::string TypeName(const pb::FieldDescriptor* f) {
  if (f->message_type() != nullptr) return f->message_type()->full_name();
  if (f->enum_type() != nullptr) return f->enum_type()->full_name();
  return "";
}

// "Outer.Inner" for "xla.gpu.Outer.Inner" in package "xla.gpu".
std::string PackageRelativeName(const std::string& full_name, const std::string& package) {
  if (package.empty() || !absl::StartsWith(full_name, absl::StrCat(package, "."))) return full_name;
  return full_name.substr(package.size() + 1);
}

// A half-open range of reserved numbers.
using Range = std::pair<int64_t, int64_t>;

std::vector<Range> ReservedRanges(const pb::Descriptor* d) {
  std::vector<Range> out;
  for (int i = 0; i < d->reserved_range_count(); ++i) {
    out.emplace_back(d->reserved_range(i)->start, d->reserved_range(i)->end);
  }
  return out;
}

std::vector<Range> ReservedRanges(const pb::EnumDescriptor* e) {
  std::vector<Range> out;
  for (int i = 0; i < e->reserved_range_count(); ++i) {
    // Enum reserved ranges are inclusive.
    out.emplace_back(e->reserved_range(i)->start, int64_t{e->reserved_range(i)->end} + 1);
  }
  return out;
}

// The parts of `old_ranges` that `new_ranges` does not cover, as half-open
// ranges.
std::vector<Range> Uncovered(const std::vector<Range>& old_ranges, std::vector<Range> new_ranges) {
  std::sort(new_ranges.begin(), new_ranges.end());
  std::vector<Range> out;
  for (const Range& r : old_ranges) {
    int64_t v = r.first;
    for (const Range& n : new_ranges) {
      if (v >= r.second) break;
      if (n.second <= v) continue;
      if (n.first > v) out.emplace_back(v, std::min(n.first, r.second));
      v = std::max(v, n.second);
    }
    if (v < r.second) out.emplace_back(v, r.second);
  }
  return out;
}

std::string RangeText(const Range& r) {
  if (r.second == r.first + 1) return absl::StrCat(r.first);
  return absl::StrCat(r.first, " to ", r.second - 1);
}

std::string ReserveHint(absl::string_view name, int number) {
  return absl::StrCat("keep `reserved ", number, "; reserved \"", name, "\";`");
}

// Walks the baseline and current schemas in lockstep from the root.
class SchemaWalker {
 public:
  explicit SchemaWalker(std::vector<SchemaDifference>* out) : out_(out) {}

  void Run(const pb::Descriptor* old_root, const pb::Descriptor* new_root) {
    Enqueue(old_root, new_root, old_root->name());
    while (!queue_.empty()) {
      Pending p = queue_.front();
      queue_.pop_front();
      CompareMessage(p.old_message, p.new_message, p.path);
    }
  }

 private:
  struct Pending {
    const pb::Descriptor* old_message;
    const pb::Descriptor* new_message;
    std::string path;
  };

  // A difference at a field or enum value: its construct is the scope (the
  // message or enum being compared) and the path's last component.
  void Add(Verdict verdict, std::string path, std::string message) {
    std::string construct = absl::StrCat(scope_, ".", path.substr(path.rfind('.') + 1));
    AddAt(verdict, std::move(path), std::move(construct), std::move(message));
  }

  void AddAt(Verdict verdict, std::string path, std::string construct, std::string message) {
    out_->push_back(SchemaDifference{verdict, std::move(path), std::move(message), std::move(construct)});
  }

  void Enqueue(const pb::Descriptor* o, const pb::Descriptor* n, std::string path) {
    if (!visited_messages_.insert(o->full_name()).second) return;
    queue_.push_back(Pending{o, n, std::move(path)});
  }

  static std::vector<const pb::FieldDescriptor*> ByNumber(const pb::Descriptor* d) {
    std::vector<const pb::FieldDescriptor*> fields;
    for (int i = 0; i < d->field_count(); ++i) fields.push_back(d->field(i));
    std::sort(fields.begin(), fields.end(),
              [](const pb::FieldDescriptor* a, const pb::FieldDescriptor* b) { return a->number() < b->number(); });
    return fields;
  }

  void CompareMessage(const pb::Descriptor* o, const pb::Descriptor* n, const std::string& path) {
    scope_ = PackageRelativeName(n->full_name(), n->file()->package());
    for (const pb::FieldDescriptor* f : ByNumber(o)) CompareOldField(f, n, absl::StrCat(path, ".", f->name()));
    for (const pb::FieldDescriptor* f : ByNumber(n)) CompareNewField(o, f, absl::StrCat(path, ".", f->name()));
    CompareMessageReservations(o, n, path);
  }

  // A field of the baseline: still there, renumbered, reused or removed.
  void CompareOldField(const pb::FieldDescriptor* f, const pb::Descriptor* n, const std::string& path) {
    const pb::FieldDescriptor* same_number = n->FindFieldByNumber(f->number());
    const pb::FieldDescriptor* same_name = n->FindFieldByName(f->name());
    if (same_name != nullptr && same_name->number() != f->number()) {
      Add(Verdict::kForbidden, path,
          n->IsReservedNumber(f->number())
              ? absl::StrCat("name '", f->name(), "' reused: was number ", f->number(),
                             " (now reserved), now number ", same_name->number(), "; pick a new name")
              : absl::StrCat("field '", f->name(), "' renumbered ", f->number(), " -> ", same_name->number(),
                             "; never renumber a field"));
    }
    if (same_number != nullptr && same_number->name() != f->name()) {
      Add(Verdict::kForbidden, path,
          absl::StrCat("number ", f->number(), " was '", f->name(), "' (", TypeString(f), "), now '",
                       same_number->name(), "' (", TypeString(same_number),
                       "); never rename a field or reuse its number"));
      return;
    }
    if (same_number != nullptr) {
      CompareSameField(f, same_number, path);
      return;
    }
    if (same_name != nullptr) return;  // renumbered: reported above
    ReportRemovedField(f, n, path);
  }

  void ReportRemovedField(const pb::FieldDescriptor* f, const pb::Descriptor* n, const std::string& path) {
    std::string what = f->real_containing_oneof() != nullptr
                           ? absl::StrCat("oneof case '", f->real_containing_oneof()->name(), ".", f->name(), "'")
                           : absl::StrCat("field '", f->name(), "'");
    absl::StrAppend(&what, " = ", f->number(), " (", TypeString(f), ") removed");
    if (n->IsReservedNumber(f->number()) && n->IsReservedName(f->name())) {
      Add(Verdict::kSafe, path, absl::StrCat(what, "; number and name reserved"));
      return;
    }
    Add(Verdict::kBreakingBackward, path,
        absl::StrCat(what, " without reserving ",
                     n->IsReservedNumber(f->number()) ? "its name" : "its number", "; ",
                     ReserveHint(f->name(), f->number()), " and keep reading it until its window ends"));
  }

  // The same number and name in both: the type, label and oneof must match.
  void CompareSameField(const pb::FieldDescriptor* f, const pb::FieldDescriptor* g, const std::string& path) {
    if (f->type() != g->type() || f->label() != g->label() || TypeName(f) != TypeName(g)) {
      Add(Verdict::kForbidden, path,
          absl::StrCat("field ", f->number(), " retyped: ", TypeString(f), " -> ", TypeString(g),
                       "; add a new field instead"));
      return;
    }
    if (OneofName(f) != OneofName(g)) {
      Add(Verdict::kForbidden, path,
          absl::StrCat("field ", f->number(), " moved from oneof ", OneofName(f), " to oneof ", OneofName(g),
                       "; add a new field instead"));
      return;
    }
    if (f->message_type() != nullptr) Enqueue(f->message_type(), g->message_type(), path);
    if (f->enum_type() != nullptr) CompareEnum(f->enum_type(), g->enum_type(), path);
  }

  // A field of the current schema that the baseline lacks (by number and name).
  void CompareNewField(const pb::Descriptor* o, const pb::FieldDescriptor* g, const std::string& path) {
    if (o->FindFieldByNumber(g->number()) != nullptr || o->FindFieldByName(g->name()) != nullptr) return;
    std::string what = absl::StrCat("'", g->name(), "' = ", g->number(), " (", TypeString(g), ")");
    if (o->IsReservedNumber(g->number())) {
      Add(Verdict::kForbidden, path, absl::StrCat("new field ", what, " reuses a reserved number"));
      return;
    }
    if (o->IsReservedName(g->name())) {
      Add(Verdict::kForbidden, path, absl::StrCat("new field ", what, " reuses a reserved name"));
      return;
    }
    if (g->real_containing_oneof() != nullptr) {
      Add(Verdict::kStagedRollout, path,
          absl::StrCat("new oneof case ", what, " in oneof '", g->real_containing_oneof()->name(),
                       "': an older runtime sees an unset oneof; gate its emission in the feature registry"));
      return;
    }
    if (g->is_required()) {
      Add(Verdict::kStagedRollout, path,
          absl::StrCat("new required field ", what, ": an older runtime ignores it; gate its emission"));
      return;
    }
    Add(Verdict::kSafe, path, absl::StrCat("new optional field ", what));
  }

  void CompareMessageReservations(const pb::Descriptor* o, const pb::Descriptor* n, const std::string& path) {
    for (const Range& r : Uncovered(ReservedRanges(o), ReservedRanges(n))) {
      AddAt(Verdict::kForbidden, path, scope_,
          absl::StrCat("reserved number(s) ", RangeText(r), " no longer reserved in ", n->full_name(),
                       "; reservations are forever"));
    }
    for (int i = 0; i < o->reserved_name_count(); ++i) {
      if (n->IsReservedName(o->reserved_name(i))) continue;
      AddAt(Verdict::kForbidden, path, scope_,
          absl::StrCat("reserved name '", o->reserved_name(i), "' no longer reserved in ", n->full_name(),
                       "; reservations are forever"));
    }
  }

  void CompareEnum(const pb::EnumDescriptor* o, const pb::EnumDescriptor* n, const std::string& path) {
    if (!visited_enums_.insert(o->full_name()).second) return;
    // Entered from a field of the message being compared: its scope comes back after.
    const std::string message_scope = scope_;
    scope_ = PackageRelativeName(n->full_name(), n->file()->package());
    for (int i = 0; i < o->value_count(); ++i) CompareOldValue(o->value(i), n, path);
    for (int i = 0; i < n->value_count(); ++i) CompareNewValue(o, n->value(i), path);
    for (const Range& r : Uncovered(ReservedRanges(o), ReservedRanges(n))) {
      AddAt(Verdict::kForbidden, path, scope_,
          absl::StrCat("reserved enum number(s) ", RangeText(r), " no longer reserved in ", n->full_name(),
                       "; reservations are forever"));
    }
    for (int i = 0; i < o->reserved_name_count(); ++i) {
      if (n->IsReservedName(o->reserved_name(i))) continue;
      AddAt(Verdict::kForbidden, path, scope_,
          absl::StrCat("reserved enum name '", o->reserved_name(i), "' no longer reserved in ", n->full_name(),
                       "; reservations are forever"));
    }
    scope_ = message_scope;
  }

  void CompareOldValue(const pb::EnumValueDescriptor* v, const pb::EnumDescriptor* n, const std::string& field_path) {
    std::string path = absl::StrCat(field_path, ".", v->name());
    const pb::EnumValueDescriptor* same_name = n->FindValueByName(v->name());
    if (same_name != nullptr) {
      if (same_name->number() != v->number()) {
        Add(Verdict::kForbidden, path,
            absl::StrCat("enum value ", v->name(), " renumbered ", v->number(), " -> ", same_name->number()));
      }
      return;
    }
    const pb::EnumValueDescriptor* same_number = n->FindValueByNumber(v->number());
    if (same_number != nullptr) {
      Add(Verdict::kForbidden, path,
          absl::StrCat("enum number ", v->number(), " was ", v->name(), ", now ", same_number->name(),
                       "; never rename a value or reuse its number"));
      return;
    }
    std::string what = absl::StrCat("enum value ", v->name(), " = ", v->number(), " of ", n->full_name(), " removed");
    if (n->IsReservedNumber(v->number()) && n->IsReservedName(v->name())) {
      Add(Verdict::kSafe, path, absl::StrCat(what, "; number and name reserved"));
      return;
    }
    Add(Verdict::kBreakingBackward, path,
        absl::StrCat(what, " without reserving its number and name; ", ReserveHint(v->name(), v->number()),
                     " and keep accepting it until its window ends"));
  }

  void CompareNewValue(const pb::EnumDescriptor* o, const pb::EnumValueDescriptor* v, const std::string& field_path) {
    if (o->FindValueByName(v->name()) != nullptr || o->FindValueByNumber(v->number()) != nullptr) return;
    std::string path = absl::StrCat(field_path, ".", v->name());
    std::string what = absl::StrCat("new enum value ", v->name(), " = ", v->number(), " of ", o->full_name());
    if (o->IsReservedNumber(v->number()) || o->IsReservedName(v->name())) {
      Add(Verdict::kForbidden, path, absl::StrCat(what, " reuses a reserved number or name"));
      return;
    }
    Add(Verdict::kStagedRollout, path,
        absl::StrCat(what, ": an older runtime does not know it; gate its emission in the feature registry"));
  }

  std::vector<SchemaDifference>* out_;
  std::deque<Pending> queue_;
  std::set<std::string> visited_messages_;
  std::set<std::string> visited_enums_;
  std::string scope_;  // the message or enum whose members are being compared
};

}  // namespace

absl::StatusOr<std::vector<SchemaDifference>> DiffSchemas(const pb::FileDescriptorSet& baseline,
                                                          const pb::FileDescriptorSet& current,
                                                          absl::string_view root_message) {
  absl::StatusOr<std::unique_ptr<LoadedSchema>> old_schema = LoadSchema(baseline, "baseline", root_message);
  if (!old_schema.ok()) return old_schema.status();
  absl::StatusOr<std::unique_ptr<LoadedSchema>> new_schema = LoadSchema(current, "current", root_message);
  if (!new_schema.ok()) return new_schema.status();
  std::vector<SchemaDifference> out;
  SchemaWalker(&out).Run((*old_schema)->root, (*new_schema)->root);
  return out;
}

}  // namespace xla::compat
