#include "xla/hlo/parser/attribute_text.h"

#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "xla/hlo/ir/conv_dim_labels.h"
#include "xla/hlo/parser/shape_text.h"
#include "xla/util/status_macros.h"

namespace xla {

absl::StatusOr<std::vector<int64_t>> ParseIntList(TextCursor& c, absl::string_view what) {
  RETURN_IF_ERROR(c.Expect('{', absl::StrCat("to start ", what)));
  std::vector<int64_t> out;
  if (c.TryConsume('}')) return out;
  while (true) {
    ASSIGN_OR_RETURN(int64_t v, c.ParseInt(absl::StrCat("in ", what)));
    out.push_back(v);
    if (c.TryConsume('}')) return out;
    RETURN_IF_ERROR(c.Expect(',', absl::StrCat("between values of ", what)));
  }
}

absl::StatusOr<std::string> ParseRawValue(TextCursor& c, absl::string_view what) {
  RETURN_IF_ERROR(c.SkipWhitespace());
  char first = c.Peek();
  if (first == '{' || first == '(' || first == '[') return c.ParseBalancedVerbatim(what);
  if (first == '"') return c.ParseStringVerbatim(what);
  // Bare value (e.g. `literal=s32[] 1`): up to a top-level ',' or line end.
  const size_t start = c.pos();
  std::string open;  // the closers still expected, innermost last
  while (!c.AtEnd()) {
    char ch = c.Peek();
    if (ch == '\n' || (open.empty() && (ch == ',' || ch == '}'))) break;
    if (ch == '{' || ch == '(' || ch == '[') open.push_back(ch == '{' ? '}' : ch == '(' ? ')' : ']');
    if (ch == '}' || ch == ')' || ch == ']') {
      if (open.empty() || open.back() != ch) {
        return c.Error(absl::StrCat("unbalanced '", std::string(1, ch), "' in the value of ", what));
      }
      open.pop_back();
    }
    c.Advance();
  }
  if (!open.empty()) {
    // A value must close what it opens on its own line: anything else would
    // print back as text that parses differently.
    return c.Error(absl::StrCat("unclosed bracket in the value of ", what, " (expected '",
                                std::string(1, open.back()), "' before the end of the line)"));
  }
  absl::string_view raw = c.text().substr(start, c.pos() - start);
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\r')) {
    raw.remove_suffix(1);
  }
  if (raw.empty()) return c.Error(absl::StrCat("expected a value for ", what));
  return std::string(raw);
}

namespace {

template <typename T, typename F>
absl::StatusOr<std::vector<T>> ParseBracedList(TextCursor& c, absl::string_view what, F parse_one) {
  RETURN_IF_ERROR(c.Expect('{', absl::StrCat("to start ", what)));
  std::vector<T> out;
  if (c.TryConsume('}')) return out;
  while (true) {
    ASSIGN_OR_RETURN(T v, parse_one());
    out.push_back(std::move(v));
    if (c.TryConsume('}')) return out;
    RETURN_IF_ERROR(c.Expect(',', absl::StrCat("between elements of ", what)));
  }
}

absl::StatusOr<bool> ParseBool(TextCursor& c, absl::string_view what) {
  RETURN_IF_ERROR(c.SkipWhitespace());
  absl::string_view w = c.PeekWord();
  if (w == "true" || w == "false") {
    c.Advance(w.size());
    return w == "true";
  }
  return c.Error(absl::StrCat("expected true or false for ", what));
}

// Reads `lo_hi` or `lo_hi_interior` items separated by 'x'.
absl::StatusOr<std::vector<PaddingDim>> ParsePadding(TextCursor& c) {
  std::vector<PaddingDim> out;
  RETURN_IF_ERROR(c.SkipWhitespace());
  while (true) {
    PaddingDim d;
    ASSIGN_OR_RETURN(d.low, c.ParseInt("(low padding)"));
    RETURN_IF_ERROR(c.Expect('_', "between low and high padding"));
    ASSIGN_OR_RETURN(d.high, c.ParseInt("(high padding)"));
    if (c.Peek() == '_') {
      c.Advance();
      const size_t pos = c.pos();
      ASSIGN_OR_RETURN(d.interior, c.ParseInt("(interior padding)"));
      if (d.interior < 0) return c.ErrorAt(pos, "interior padding must not be negative");
    }
    out.push_back(d);
    if (c.Peek() != 'x') return out;
    c.Advance();
  }
}

// Reads the 'x'-separated items of one window field; `read_one` reads one.
template <typename T, typename F>
absl::StatusOr<std::vector<T>> ParseXSeparated(TextCursor& c, F read_one) {
  std::vector<T> out;
  while (true) {
    ASSIGN_OR_RETURN(T v, read_one());
    out.push_back(v);
    if (c.Peek() != 'x') return out;
    c.Advance();
  }
}

// `{size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=.. rhs_dilate=.. rhs_reversal=0x1}`;
// fields may come in any order, `size` is required.
absl::StatusOr<Window> ParseWindow(TextCursor& c) {
  RETURN_IF_ERROR(c.Expect('{', "to start the window"));
  const size_t start = c.pos();
  absl::flat_hash_map<std::string, std::vector<int64_t>> ints;
  std::vector<std::pair<int64_t, int64_t>> pads;
  bool has_pad = false;
  while (!c.TryConsume('}')) {
    const size_t key_pos = c.pos();
    ASSIGN_OR_RETURN(std::string key, c.ParseWord("window field"));
    RETURN_IF_ERROR(c.Expect('=', "after the window field name"));
    if (ints.contains(key) || (key == "pad" && has_pad)) {
      return c.ErrorAt(key_pos, absl::StrCat("window field '", key, "' given twice"));
    }
    if (key == "pad") {
      has_pad = true;
      ASSIGN_OR_RETURN(pads, (ParseXSeparated<std::pair<int64_t, int64_t>>(
                                 c, [&]() -> absl::StatusOr<std::pair<int64_t, int64_t>> {
                                   ASSIGN_OR_RETURN(int64_t lo, c.ParseInt("(window low padding)"));
                                   RETURN_IF_ERROR(c.Expect('_', "between low and high window padding"));
                                   ASSIGN_OR_RETURN(int64_t hi, c.ParseInt("(window high padding)"));
                                   return std::make_pair(lo, hi);
                                 })));
      continue;
    }
    const bool reversal = key == "rhs_reversal";
    if (!reversal && key != "size" && key != "stride" && key != "lhs_dilate" && key != "rhs_dilate") {
      return c.ErrorAt(key_pos, absl::StrCat("unknown window field '", key,
                                             "' (expected size, stride, pad, lhs_dilate, "
                                             "rhs_dilate or rhs_reversal)"));
    }
    ASSIGN_OR_RETURN(ints[key], ParseXSeparated<int64_t>(c, [&]() -> absl::StatusOr<int64_t> {
      const size_t pos = c.pos();
      ASSIGN_OR_RETURN(int64_t v, c.ParseInt(absl::StrCat("(window ", key, ")")));
      if (reversal ? (v != 0 && v != 1) : v <= 0) {
        return c.ErrorAt(pos, reversal ? std::string("rhs_reversal values must be 0 or 1")
                                       : absl::StrCat("window ", key, " must be positive"));
      }
      return v;
    }));
  }
  auto size_it = ints.find("size");
  if (size_it == ints.end()) return c.ErrorAt(start, "window has no size");
  Window w;
  w.dims.resize(size_it->second.size());
  for (const auto& [key, values] : ints) {
    if (values.size() != w.dims.size()) {
      return c.ErrorAt(start, absl::StrCat("window ", key, " has ", values.size(),
                                           " dimensions, size has ", w.dims.size()));
    }
  }
  if (has_pad && pads.size() != w.dims.size()) {
    return c.ErrorAt(start, absl::StrCat("window pad has ", pads.size(), " dimensions, size has ",
                                         w.dims.size()));
  }
  auto get = [&](const char* key, size_t i, int64_t dflt) {
    auto it = ints.find(key);
    return it == ints.end() ? dflt : it->second[i];
  };
  for (size_t i = 0; i < w.dims.size(); ++i) {
    WindowDim& d = w.dims[i];
    d.size = get("size", i, 1);
    d.stride = get("stride", i, 1);
    d.lhs_dilate = get("lhs_dilate", i, 1);
    d.rhs_dilate = get("rhs_dilate", i, 1);
    d.reversal = get("rhs_reversal", i, 0) == 1;
    if (has_pad) std::tie(d.pad_low, d.pad_high) = pads[i];
  }
  return w;
}

absl::StatusOr<std::vector<SliceDim>> ParseSlice(TextCursor& c) {
  return ParseBracedList<SliceDim>(c, "slice", [&]() -> absl::StatusOr<SliceDim> {
    SliceDim d;
    RETURN_IF_ERROR(c.Expect('[', "to start a slice range"));
    ASSIGN_OR_RETURN(d.start, c.ParseInt("(slice start)"));
    RETURN_IF_ERROR(c.Expect(':', "in a slice range"));
    ASSIGN_OR_RETURN(d.limit, c.ParseInt("(slice limit)"));
    if (c.TryConsume(':')) {
      const size_t pos = c.pos();
      ASSIGN_OR_RETURN(d.stride, c.ParseInt("(slice stride)"));
      if (d.stride <= 0) return c.ErrorAt(pos, "slice stride must be positive");
    }
    RETURN_IF_ERROR(c.Expect(']', "to close a slice range"));
    return d;
  });
}

absl::StatusOr<ReplicaGroups> ParseReplicaGroups(TextCursor& c) {
  ReplicaGroups g;
  RETURN_IF_ERROR(c.SkipWhitespace());
  if (c.PeekWord() == "mesh") {
    // Mesh-axis form, e.g. mesh['x'=2,'y'=2] {'y'}: kept verbatim.
    ASSIGN_OR_RETURN(g.raw, ParseRawValue(c, "replica_groups"));
    return g;
  }
  if (c.Peek() == '[') {
    g.iota = true;
    auto bracketed = [&](absl::string_view what) -> absl::StatusOr<std::vector<int64_t>> {
      RETURN_IF_ERROR(c.Expect('[', what));
      std::vector<int64_t> v;
      while (true) {
        const size_t pos = c.pos();
        ASSIGN_OR_RETURN(int64_t d, c.ParseInt(what));
        if (d <= 0) return c.ErrorAt(pos, "replica group dimensions must be positive");
        v.push_back(d);
        if (c.TryConsume(']')) return v;
        RETURN_IF_ERROR(c.Expect(',', what));
      }
    };
    const size_t start = c.pos();
    ASSIGN_OR_RETURN(g.group_dims, bracketed("in replica group dimensions"));
    RETURN_IF_ERROR(c.Expect("<=", "in iota replica groups"));
    ASSIGN_OR_RETURN(g.reshape_dims, bracketed("in replica group reshape dimensions"));
    if (c.Peek() == 'T') {
      c.Advance();
      RETURN_IF_ERROR(c.Expect('(', "to start the transpose"));
      while (true) {
        ASSIGN_OR_RETURN(int64_t d, c.ParseInt("in the transpose"));
        g.transpose.push_back(d);
        if (c.TryConsume(')')) break;
        RETURN_IF_ERROR(c.Expect(',', "in the transpose"));
      }
    }
    // Validate: sizes agree and the transpose is a permutation.
    int64_t total = 1, grouped = 1;
    for (int64_t d : g.reshape_dims) {
      if (total > (int64_t{1} << 40) / d) return c.ErrorAt(start, "too many replicas");
      total *= d;
    }
    for (int64_t d : g.group_dims) {
      if (grouped > (int64_t{1} << 40) / d) return c.ErrorAt(start, "too many replicas");
      grouped *= d;
    }
    if (total != grouped || g.group_dims.size() != 2) {
      return c.ErrorAt(start, "iota replica groups need [groups,size]<=[dims] with equal products");
    }
    if (!g.transpose.empty()) {
      std::vector<bool> seen(g.reshape_dims.size(), false);
      bool ok = g.transpose.size() == g.reshape_dims.size();
      for (int64_t p : g.transpose) {
        if (!ok || p < 0 || p >= static_cast<int64_t>(seen.size()) || seen[p]) {
          ok = false;
          break;
        }
        seen[p] = true;
      }
      if (!ok) return c.ErrorAt(start, "replica group transpose is not a permutation");
    }
    return g;
  }
  ASSIGN_OR_RETURN(g.groups, ParseBracedList<std::vector<int64_t>>(
                                 c, "replica_groups", [&] { return ParseIntList(c, "a replica group"); }));
  return g;
}

absl::StatusOr<std::vector<std::string>> ParseNameList(TextCursor& c, absl::string_view what,
                                                       bool allow_single) {
  RETURN_IF_ERROR(c.SkipWhitespace());
  if (allow_single && c.Peek() != '{') {
    ASSIGN_OR_RETURN(std::string name, c.ParseName(what));
    return std::vector<std::string>{name};
  }
  return ParseBracedList<std::string>(c, what, [&] { return c.ParseName(what); });
}

}  // namespace

absl::StatusOr<ParsedAttribute> ParseAttributeValue(TextCursor& c, AttrId id) {
  const std::string what = absl::StrCat("attribute ", AttrName(id));
  ParsedAttribute out;
  RETURN_IF_ERROR(c.SkipWhitespace());
  const size_t start = c.pos();
  switch (AttrKindOf(id)) {
    case AttrKind::kInt: {
      ASSIGN_OR_RETURN(int64_t v, c.ParseInt(absl::StrCat("for ", what)));
      out.value = v;
      break;
    }
    case AttrKind::kFloat: {
      ASSIGN_OR_RETURN(double v, c.ParseFloat(absl::StrCat("for ", what)));
      out.value = v;
      break;
    }
    case AttrKind::kBool: {
      ASSIGN_OR_RETURN(bool v, ParseBool(c, what));
      out.value = v;
      break;
    }
    case AttrKind::kIntList: {
      ASSIGN_OR_RETURN(std::vector<int64_t> v, ParseIntList(c, what));
      out.value = std::move(v);
      break;
    }
    case AttrKind::kBoolList: {
      ASSIGN_OR_RETURN(std::vector<bool> v,
                       ParseBracedList<bool>(c, what, [&] { return ParseBool(c, what); }));
      out.value = std::move(v);
      break;
    }
    case AttrKind::kIdent: {
      ASSIGN_OR_RETURN(std::string v, c.ParseWord(absl::StrCat("a value for ", what)));
      absl::string_view allowed = AttrAllowedValues(id);
      if (!allowed.empty()) {
        bool found = false;
        for (absl::string_view a : absl::StrSplit(allowed, '|')) found |= a == v;
        if (!found) {
          return c.ErrorAt(start, absl::StrCat("invalid value '", v, "' for ", what,
                                               " (expected one of ", allowed, ")"));
        }
      }
      out.value = std::move(v);
      break;
    }
    case AttrKind::kIdentList: {
      if (id == AttrId::kControlPredecessors) {
        ASSIGN_OR_RETURN(out.names, ParseNameList(c, "instruction name", false));
        break;
      }
      ASSIGN_OR_RETURN(std::vector<std::string> v,
                       ParseBracedList<std::string>(c, what, [&] { return c.ParseWord(what); }));
      out.value = std::move(v);
      break;
    }
    case AttrKind::kString: {
      ASSIGN_OR_RETURN(std::string v, c.ParseString(absl::StrCat("for ", what)));
      out.value = std::move(v);
      break;
    }
    case AttrKind::kSlice: {
      ASSIGN_OR_RETURN(std::vector<SliceDim> v, ParseSlice(c));
      out.value = std::move(v);
      break;
    }
    case AttrKind::kWindow: {
      ASSIGN_OR_RETURN(Window v, ParseWindow(c));
      out.value = std::move(v);
      break;
    }
    case AttrKind::kDimLabels: {
      size_t end = c.pos();
      absl::string_view text = c.text();
      while (end < text.size() && (IsWordChar(text[end]) || text[end] == '>')) ++end;
      absl::string_view labels = text.substr(c.pos(), end - c.pos());
      absl::StatusOr<ConvDimLabels> parsed = ParseConvDimLabels(labels);
      if (!parsed.ok()) return c.ErrorAt(start, parsed.status().message());
      c.set_pos(end);
      out.value = std::move(*parsed);
      break;
    }
    case AttrKind::kPadding: {
      ASSIGN_OR_RETURN(std::vector<PaddingDim> v, ParsePadding(c));
      out.value = std::move(v);
      break;
    }
    case AttrKind::kComputation: {
      ASSIGN_OR_RETURN(std::string name, c.ParseName(absl::StrCat("a computation name for ", what)));
      out.names.push_back(std::move(name));
      break;
    }
    case AttrKind::kComputationList: {
      ASSIGN_OR_RETURN(out.names, ParseNameList(c, "computation name", true));
      break;
    }
    case AttrKind::kReplicaGroups: {
      ASSIGN_OR_RETURN(ReplicaGroups v, ParseReplicaGroups(c));
      out.value = std::move(v);
      break;
    }
    case AttrKind::kIntListList: {
      ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> v,
                       ParseBracedList<std::vector<int64_t>>(
                           c, what, [&] { return ParseIntList(c, what); }));
      out.value = std::move(v);
      break;
    }
    case AttrKind::kShape: {
      ASSIGN_OR_RETURN(Shape v, ParseShape(c));
      out.value = std::move(v);
      break;
    }
    case AttrKind::kShapeList: {
      ASSIGN_OR_RETURN(std::vector<Shape> v,
                       ParseBracedList<Shape>(c, what, [&] { return ParseShape(c); }));
      out.value = std::move(v);
      break;
    }
    case AttrKind::kRaw: {
      ASSIGN_OR_RETURN(std::string v, ParseRawValue(c, what));
      out.value = std::move(v);
      break;
    }
  }
  return out;
}

}  // namespace xla
