#include "xla/tools/thunk_dot.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace xla::cli {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

enum class Access { kRead, kWrite, kUnknown };

// Direction of a slice field by its name; everything else is kUnknown.
Access AccessOf(absl::string_view field) {
  static const auto* reads = new std::set<std::string>{"lhs",      "rhs",          "source",
                                                        "operands", "predicate",    "branch_index",
                                                        "operand",  "input"};
  static const auto* writes = new std::set<std::string>{"output", "destination", "results", "result"};
  if (reads->count(std::string(field))) return Access::kRead;
  if (writes->count(std::string(field))) return Access::kWrite;
  return Access::kUnknown;
}

std::string Escape(absl::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string KindName(const gpu::ThunkProto& t) {
  const FieldDescriptor* f = t.GetDescriptor()->FindFieldByNumber(t.kind_case());
  return f == nullptr ? "unknown" : f->name();
}

struct Slice {
  std::string field;
  int64_t allocation;
  int64_t size;
};

class DotWriter {
 public:
  std::string out;

  // Emits thunk `t` (and its nested thunks) at indentation `indent`.
  void Thunk(const gpu::ThunkProto& t, int indent) {
    const std::string id = absl::StrCat("t", next_++);
    std::vector<Slice> slices;
    std::vector<std::pair<std::string, std::vector<const gpu::ThunkProto*>>> nested;
    Collect(t, "", slices, nested, /*top=*/true);
    const std::string pad(indent, ' ');
    std::string label = KindName(t);
    if (!t.profile_annotation().empty()) absl::StrAppend(&label, "\\n", Escape(t.profile_annotation()));
    absl::StrAppend(&label, "\\nstream ", t.execution_stream_id());
    const bool cluster = !nested.empty();
    if (cluster) {
      absl::StrAppend(&out, pad, "subgraph cluster_", id, " {\n", pad, "  label=\"", label, "\";\n");
    }
    absl::StrAppend(&out, pad, cluster ? "  " : "", id, " [label=\"", label, "\"];\n");
    for (const auto& [field, list] : nested) {
      const bool sub = !field.empty();
      const std::string inner_pad(indent + (sub ? 4 : 2), ' ');
      if (sub) {
        absl::StrAppend(&out, pad, "  subgraph cluster_", id, "_", clusters_++, " {\n", pad,
                        "    label=\"", Escape(field), "\"; style=dashed;\n");
      }
      std::string previous;
      for (const gpu::ThunkProto* child : list) {
        const std::string child_id = absl::StrCat("t", next_);
        Thunk(*child, static_cast<int>(inner_pad.size()));
        // Program order inside the list.
        if (!previous.empty()) order_.push_back(absl::StrCat(previous, " -> ", child_id));
        else order_.push_back(absl::StrCat(id, " -> ", child_id, " [style=bold]"));
        previous = child_id;
      }
      if (sub) absl::StrAppend(&out, pad, "  }\n");
    }
    if (cluster) absl::StrAppend(&out, pad, "}\n");
    for (const Slice& s : slices) {
      const std::string alloc = absl::StrCat("a", s.allocation);
      switch (AccessOf(s.field)) {
        case Access::kRead:
          uses_.push_back(absl::StrCat(alloc, " -> ", id, " [label=\"", s.field, " ", s.size, "B\" color=blue]"));
          break;
        case Access::kWrite:
          uses_.push_back(absl::StrCat(id, " -> ", alloc, " [label=\"", s.field, " ", s.size, "B\" color=red]"));
          break;
        case Access::kUnknown:
          uses_.push_back(absl::StrCat(id, " -> ", alloc, " [label=\"", s.field, " ", s.size,
                                       "B\" style=dashed dir=both]"));
          break;
      }
    }
  }

  // Emits the program's top-level list, chained in program order.
  void TopLevel(const google::protobuf::RepeatedPtrField<gpu::ThunkProto>& list) {
    std::string previous;
    for (const gpu::ThunkProto& t : list) {
      const std::string id = absl::StrCat("t", next_);
      Thunk(t, 2);
      if (!previous.empty()) order_.push_back(absl::StrCat(previous, " -> ", id));
      previous = id;
    }
  }

  void Finish() {
    for (const std::string& e : order_) absl::StrAppend(&out, "  ", e, ";\n");
    for (const std::string& e : uses_) absl::StrAppend(&out, "  ", e, ";\n");
  }

 private:
  // Gathers the slices of `m` and the thunk lists nested in it. `path` is
  // the field path below the thunk ("while.body"); lists directly under a
  // sequential or async start are unlabelled.
  void Collect(const Message& m, const std::string& path, std::vector<Slice>& slices,
               std::vector<std::pair<std::string, std::vector<const gpu::ThunkProto*>>>& nested,
               bool top) {
    const Reflection* r = m.GetReflection();
    std::vector<const FieldDescriptor*> fields;
    r->ListFields(m, &fields);
    for (const FieldDescriptor* f : fields) {
      if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
      const int count = f->is_repeated() ? r->FieldSize(m, f) : 1;
      const std::string name = f->name();
      const google::protobuf::Descriptor* type = f->message_type();
      if (type == gpu::ThunkProto::descriptor()) {
        std::vector<const gpu::ThunkProto*> list;
        for (int i = 0; i < count; ++i) {
          const Message& child = f->is_repeated() ? r->GetRepeatedMessage(m, f, i) : r->GetMessage(m, f);
          list.push_back(static_cast<const gpu::ThunkProto*>(&child));
        }
        nested.emplace_back(path, std::move(list));
        continue;
      }
      for (int i = 0; i < count; ++i) {
        const Message& sub = f->is_repeated() ? r->GetRepeatedMessage(m, f, i) : r->GetMessage(m, f);
        if (type == gpu::BufferSliceProto::descriptor()) {
          const auto& s = static_cast<const gpu::BufferSliceProto&>(sub);
          slices.push_back({name, s.allocation(), s.size()});
          continue;
        }
        // The kind's own message (the oneof member) adds no label; deeper
        // fields do ("body", "branches[1]").
        std::string sub_path = top ? "" : path;
        if (!top) {
          sub_path = absl::StrCat(path.empty() ? "" : absl::StrCat(path, "."), name,
                                  f->is_repeated() ? absl::StrCat("[", i, "]") : "");
        }
        Collect(sub, sub_path, slices, nested, false);
      }
    }
  }

  int next_ = 0;
  int clusters_ = 0;
  std::vector<std::string> order_;
  std::vector<std::string> uses_;
};

std::string AllocationLabel(const gpu::BufferAllocation& a) {
  std::vector<std::string> kinds;
  if (a.is_parameter) kinds.push_back(absl::StrCat("parameter ", a.parameter_number));
  if (a.is_constant) kinds.push_back(absl::StrCat("constant ", a.constant_index));
  if (a.is_output) kinds.push_back("output");
  if (a.is_temp) kinds.push_back("temp");
  return absl::StrCat("alloc ", a.index, "\\n", a.size, " bytes\\n", absl::StrJoin(kinds, ", "));
}

}  // namespace

std::string ThunkDot(const gpu::Program& program) {
  const gpu::GpuExecutablePayloadProto& p = program.payload();
  DotWriter w;
  absl::StrAppend(&w.out, "digraph \"", Escape(p.module_name()), "\" {\n",
                  "  rankdir=LR;\n  compound=true;\n  node [shape=ellipse fontsize=10];\n");
  for (const gpu::BufferAllocation& a : program.allocations) {
    absl::StrAppend(&w.out, "  a", a.index, " [shape=box label=\"", AllocationLabel(a), "\"",
                    a.is_parameter ? " style=filled fillcolor=lightblue" : "",
                    a.is_output ? " style=filled fillcolor=salmon" : "", "];\n");
  }
  w.TopLevel(p.thunks());
  w.Finish();
  w.out += "}\n";
  return w.out;
}

}  // namespace xla::cli
