// Lane (vectorized) row reductions: the reducer classifier, numerics of the
// host kernels against the reference evaluator on odd sizes (rows shorter
// than, equal to and not a multiple of the lane count), determinism across
// block splits and target CPUs, and the optimized IR of a softmax kernel
// (vector types in its reduction loop).
#include "xla/backends/gpu/codegen/host/lane_reduce_ir.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "xla/backends/gpu/codegen/host/host_fusion_test_util.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"

namespace xla::gpu {
namespace {

// Reducers over element type T: add, mul, max, min, sub (not associative),
// add_mul (compound), add_swapped (parameters in the other order), twice
// (add(x, x): ignores y).
std::string Reducers(const std::string& t) {
  std::string text;
  for (const auto& [name, root] : std::vector<std::pair<std::string, std::string>>{
           {"add", "add(x, y)"},
           {"mul", "multiply(x, y)"},
           {"max", "maximum(x, y)"},
           {"min", "minimum(x, y)"},
           {"sub", "subtract(x, y)"},
           {"add_swapped", "add(y, x)"},
           {"twice", "add(x, x)"}}) {
    absl::StrAppend(&text, name, " {\n  x = T[] parameter(0)\n  y = T[] parameter(1)\n  ROOT r = T[] ",
                    root, "\n}\n");
  }
  absl::StrAppend(&text,
                  "add_mul {\n  x = T[] parameter(0)\n  y = T[] parameter(1)\n  s = T[] add(x, y)\n"
                  "  ROOT r = T[] multiply(s, y)\n}\n");
  return absl::StrReplaceAll(text, {{"T[]", t + "[]"}});
}

// A module whose entry root is a fusion of `fused` (text with T for the
// element type) over the entry parameters `params` ("p0 = T[...] parameter(0)").
std::unique_ptr<HloModule> FusionModule(const std::string& t, const std::string& fused,
                                        const std::string& params, const std::string& out) {
  std::string text = absl::StrCat("HloModule m\n", Reducers(t), "fused {\n", params, "\n", fused,
                                  "\n}\nENTRY e {\n", params, "\n  ROOT f = ", out,
                                  " fusion(", "ARGS", "), kind=kInput, calls=fused\n}\n");
  std::vector<std::string> args;
  for (size_t p = 0; p < 4; ++p) {
    if (params.find(absl::StrCat("parameter(", p, ")")) != std::string::npos) {
      args.push_back(absl::StrCat("p", p));
    }
  }
  const std::string joined = absl::StrJoin(args, ", ");
  const std::string typed = t + "[";
  text = absl::StrReplaceAll(text, {{"ARGS", joined}, {"T[", typed}});
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  return m.ok() ? std::move(*m) : nullptr;
}

HloInstruction* FindReduce(const HloModule& m) {
  for (const auto& c : m.computations()) {
    for (const auto& instr : c->instructions()) {
      if (instr->opcode() == HloOpcode::kReduce) return instr.get();
    }
  }
  return nullptr;
}

std::unique_ptr<HloModule> RowReduce(const std::string& t, const std::string& dims,
                                     const std::string& reduce_dims, const std::string& out_dims,
                                     const std::string& reducer, const std::string& init) {
  return FusionModule(t,
                      absl::StrCat("  z = T[] constant(", init, ")\n  ROOT r = T[", out_dims,
                                   "] reduce(p0, z), dimensions={", reduce_dims,
                                   "}, to_apply=", reducer),
                      absl::StrCat("  p0 = T[", dims, "] parameter(0)"),
                      absl::StrCat("T[", out_dims, "]"));
}

TEST(LaneReduceIr, ClassifiesReassociableReducers) {
  struct Case {
    std::string type, reducer;
    bool accepted;
  };
  for (const Case& c : std::vector<Case>{{"f32", "add", true},
                                         {"f32", "mul", true},
                                         {"f32", "max", true},
                                         {"f64", "min", true},
                                         {"f64", "add_swapped", true},
                                         {"f32", "sub", false},
                                         {"f32", "add_mul", false},
                                         {"f32", "twice", false},
                                         {"bf16", "add", false},
                                         {"s32", "add", false}}) {
    std::unique_ptr<HloModule> m = RowReduce(c.type, "3,5", "1", "3", c.reducer, "0");
    ASSERT_NE(m, nullptr);
    const HloInstruction* reduce = FindReduce(*m);
    ASSERT_NE(reduce, nullptr);
    EXPECT_EQ(ReassociableReducer(*reduce).has_value(), c.accepted) << c.type << " " << c.reducer;
    const int64_t lanes = ReductionLanes(*reduce, 32);
    EXPECT_EQ(lanes, !c.accepted ? 0 : c.type == "f32" ? 8 : 4) << c.type << " " << c.reducer;
  }
  std::unique_ptr<HloModule> m = RowReduce("f64", "3,5", "1", "3", "add", "0");
  EXPECT_EQ(ReductionLanes(*FindReduce(*m), 8), 0);  // one f64 lane: sequential
}

// Runs `m`'s fusion and checks it against the evaluator: bit-exact when
// `exact`, else within the output-scale tolerance of `xla_aot run
// --reference` (sums of random signs cancel, so per-element relative
// tolerance would be meaningless for rows that sum to almost zero).
FusionRun RunAndCompare(const HloModule& m, bool exact, const FusionRunOptions& options = {}) {
  absl::StatusOr<FusionRun> run = RunFusionOnHost(m, options);
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok()) return {};
  if (exact) {
    EXPECT_TRUE(run->expected == run->actual) << "expected " << run->expected.ToString()
                                              << "\nactual " << run->actual.ToString();
  } else {
    absl::Status st = CompareOutputLeaf(run->expected, run->actual);
    EXPECT_TRUE(st.ok()) << st;
  }
  return std::move(*run);
}

TEST(LaneReduceIr, RowReductionsMatchTheEvaluatorOnOddSizes) {
  struct Shape3 {
    std::string dims, reduce_dims, out_dims, kind;
  };
  const std::vector<Shape3> shapes = {
      {"7,1023", "1", "7", "row_reduction"},       // 127 chunks of 8 + a tail of 7
      {"3,5,129", "2", "3,5", "row_reduction"},    // a tail of 1
      {"3,5,129", "1,2", "3", "row_reduction"},    // two reduced dims, linear lanes
      {"5,3", "1", "5", "row_reduction"},          // shorter than the lanes
      {"6,17", "1", "6", "row_reduction"},         // 2 chunks + 1 (f32), 4 + 1 (f64)
      {"11,8", "1", "11", "row_reduction"},        // exactly one chunk, no tail
      {"1001", "0", "", "whole_reduction"},
  };
  int cases = 0;
  for (const std::string t : {"f32", "f64"}) {
    for (const Shape3& s : shapes) {
      for (const auto& [reducer, init, exact] :
           std::vector<std::tuple<std::string, std::string, bool>>{{"add", "0.5", false},
                                                                   {"max", "-inf", true},
                                                                   {"min", "0.25", true},
                                                                   {"add_swapped", "0", false}}) {
        SCOPED_TRACE(absl::StrCat(t, "[", s.dims, "] dims={", s.reduce_dims, "} ", reducer));
        std::unique_ptr<HloModule> m = RowReduce(t, s.dims, s.reduce_dims, s.out_dims, reducer, init);
        ASSERT_NE(m, nullptr);
        FusionRun run = RunAndCompare(*m, exact);
        EXPECT_EQ(run.info.kind, s.kind);
        ++cases;
      }
    }
  }
  // Products of up to 1023 values in [-1, 1) underflow: rows of 17 and 129.
  for (const std::string t : {"f32", "f64"}) {
    for (const std::string dims : {"6,17", "3,129"}) {
      SCOPED_TRACE(absl::StrCat(t, "[", dims, "] mul"));
      std::unique_ptr<HloModule> m = RowReduce(t, dims, "1", dims.substr(0, 1), "mul", "1.5");
      ASSERT_NE(m, nullptr);
      RunAndCompare(*m, false);
      ++cases;
    }
  }
  EXPECT_EQ(cases, 2 * 7 * 4 + 4);
}

TEST(LaneReduceIr, SequentialOptionIsBitExactAndLanesDiffer) {
  // A long f32 sum: the lanes round differently from the evaluator's
  // sequential order (so the test can tell which path ran), the sequential
  // option reproduces the evaluator's bits.
  std::unique_ptr<HloModule> m = RowReduce("f32", "7,1023", "1", "7", "add", "0");
  ASSERT_NE(m, nullptr);
  FusionRunOptions sequential;
  sequential.emit.reduction_vector_bytes = 0;
  RunAndCompare(*m, /*exact=*/true, sequential);
  FusionRun lanes = RunAndCompare(*m, /*exact=*/false);
  EXPECT_FALSE(lanes.expected == lanes.actual);
}

// Maxima and minima of cheap inputs get four accumulator vectors
// (reduction_vectors): 1023 columns are 31 steps of 32 and a tail of 31, 17
// columns two vectors and a tail of 1. They stay exact. Sums keep one
// vector whatever the option (their chain is not the bound), so their bits
// do not move.
TEST(LaneReduceIr, AccumulatorVectorsKeepMaxExactAndLeaveSumsAlone) {
  FusionRunOptions one;
  one.emit.reduction_vectors = 1;
  for (const std::string t : {"f32", "f64"}) {
    for (const std::string dims : {"7,1023", "5,17"}) {
      for (const auto& [reducer, init] :
           std::vector<std::pair<std::string, std::string>>{{"max", "-inf"}, {"min", "0.25"}}) {
        SCOPED_TRACE(absl::StrCat(t, "[", dims, "] ", reducer));
        std::unique_ptr<HloModule> m = RowReduce(t, dims, "1", dims.substr(0, 1), reducer, init);
        ASSERT_NE(m, nullptr);
        FusionRun four = RunAndCompare(*m, /*exact=*/true);
        FusionRun single = RunAndCompare(*m, /*exact=*/true, one);
        EXPECT_TRUE(four.actual == single.actual);
      }
    }
  }
  std::unique_ptr<HloModule> sum = RowReduce("f32", "7,1023", "1", "7", "add", "0");
  ASSERT_NE(sum, nullptr);
  FusionRun four = RunAndCompare(*sum, /*exact=*/false);
  FusionRun single = RunAndCompare(*sum, /*exact=*/false, one);
  EXPECT_TRUE(four.actual == single.actual);
}

TEST(LaneReduceIr, DeterministicAcrossBlockSplitsAndCpus) {
  std::unique_ptr<HloModule> m = RowReduce("f32", "37,1023", "1", "37", "add", "0");
  ASSERT_NE(m, nullptr);
  FusionRun base = RunAndCompare(*m, false);
  FusionRunOptions one_row;
  one_row.emit.target_block_bytes = 4;  // one row per block
  FusionRunOptions avx2;
  avx2.compile.cpu = "x86-64-v3";  // 8-wide vectors, FMA available
  FusionRunOptions o1;
  o1.compile.opt_level = 1;
  for (const FusionRunOptions& o : {one_row, avx2, o1}) {
    FusionRun other = RunAndCompare(*m, false, o);
    EXPECT_TRUE(base.actual == other.actual) << base.actual.ToString() << "\n"
                                             << other.actual.ToString();
  }
}

constexpr char kSoftmax[] = R"(
  m = T[] constant(-inf)
  z = T[] constant(0)
  mx = T[ROWS] reduce(p0, m), dimensions={1}, to_apply=max
  mb = T[ROWS,COLS] broadcast(mx), dimensions={0}
  d = T[ROWS,COLS] subtract(p0, mb)
  e = T[ROWS,COLS] exponential(d)
  s = T[ROWS] reduce(e, z), dimensions={1}, to_apply=add
  sb = T[ROWS,COLS] broadcast(s), dimensions={0}
  ROOT o = T[ROWS,COLS] divide(e, sb))";

constexpr char kLayerNorm[] = R"(
  z = T[] constant(0)
  n = T[] constant(COLS)
  eps = T[] constant(1e-5)
  s = T[ROWS] reduce(p0, z), dimensions={1}, to_apply=add
  nb = T[ROWS] broadcast(n), dimensions={}
  mean = T[ROWS] divide(s, nb)
  mb = T[ROWS,COLS] broadcast(mean), dimensions={0}
  c = T[ROWS,COLS] subtract(p0, mb)
  sq = T[ROWS,COLS] multiply(c, c)
  v = T[ROWS] reduce(sq, z), dimensions={1}, to_apply=add
  var = T[ROWS] divide(v, nb)
  eb = T[ROWS] broadcast(eps), dimensions={}
  ve = T[ROWS] add(var, eb)
  r = T[ROWS] rsqrt(ve)
  rb = T[ROWS,COLS] broadcast(r), dimensions={0}
  gb = T[ROWS,COLS] broadcast(p1), dimensions={1}
  y = T[ROWS,COLS] multiply(c, rb)
  ROOT o = T[ROWS,COLS] multiply(y, gb))";

std::unique_ptr<HloModule> Normalization(const char* body, const std::string& t, int rows,
                                         int cols) {
  const std::string r = absl::StrCat(rows), c = absl::StrCat(cols);
  const std::string fused = absl::StrReplaceAll(body, {{"ROWS", r}, {"COLS", c}});
  const std::string params = absl::StrCat("  p0 = T[", r, ",", c, "] parameter(0)\n  p1 = T[", c,
                                          "] parameter(1)");
  // Softmax does not read p1; a fused parameter may go unused.
  return FusionModule(t, fused, params, absl::StrCat("T[", r, ",", c, "]"));
}

TEST(LaneReduceIr, SoftmaxAndLayerNormMatchTheEvaluator) {
  for (const std::string t : {"f32", "f64"}) {
    for (const auto& [rows, cols] : std::vector<std::pair<int, int>>{{7, 1023}, {5, 3}, {3, 17}}) {
      for (const auto& [name, body] :
           std::vector<std::pair<std::string, const char*>>{{"softmax", kSoftmax},
                                                            {"layer_norm", kLayerNorm}}) {
        SCOPED_TRACE(absl::StrCat(name, " ", t, "[", rows, ",", cols, "]"));
        std::unique_ptr<HloModule> m = Normalization(body, t, rows, cols);
        ASSERT_NE(m, nullptr);
        FusionRun run = RunAndCompare(*m, false);
        EXPECT_EQ(run.info.kind, "row_normalization");
      }
    }
  }
}

// The optimized IR of the f32[7,1023] softmax kernel (default CPU); the
// row cache (HostEmitOptions::row_cache_bytes) off unless asked for.
std::string OptimizedSoftmaxIr(int64_t vector_bytes, int64_t row_cache_bytes = 0) {
  std::unique_ptr<HloModule> m = Normalization(kSoftmax, "f32", 7, 1023);
  if (m == nullptr) return "";
  std::string ir;
  FusionRunOptions options;
  options.emit.reduction_vector_bytes = vector_bytes;
  options.emit.row_cache_bytes = row_cache_bytes;
  options.compile.ir_observer = [&ir](const std::string& stage, const llvm::Module& module) {
    if (stage != "after_optimizations") return;
    llvm::raw_string_ostream os(ir);
    module.print(os, nullptr);
  };
  RunAndCompare(*m, false, options);
  return ir;
}

// The instructions of the loop whose blocks are named `prefix`... (the
// emitter's loop names survive optimization as block-name prefixes).
std::string BlocksNamed(const std::string& ir, const std::string& prefix) {
  std::string out;
  bool inside = false;
  size_t start = 0;
  while (start < ir.size()) {
    size_t end = ir.find('\n', start);
    if (end == std::string::npos) end = ir.size();
    const std::string line = ir.substr(start, end - start);
    if (!line.empty() && line[0] != ' ' && line.back() == ':' ) inside = false;
    if (!line.empty() && line[0] != ' ' && line.find(':') != std::string::npos &&
        line[0] != ';' && line[0] != '}' && line.rfind("define", 0) != 0) {
      inside = line.rfind(prefix, 0) == 0;
    }
    if (line.rfind("}", 0) == 0) inside = false;
    if (inside) absl::StrAppend(&out, line, "\n");
    start = end + 1;
  }
  return out;
}

TEST(LaneReduceIr, SoftmaxReductionLoopsAreVectorizedAfterOptimization) {
  const std::string ir = OptimizedSoftmaxIr(32);
  const std::string loops = BlocksNamed(ir, "vr.");
  ASSERT_FALSE(loops.empty()) << ir;
  // Both reductions (max, then the sum of exp(x - max)) in vector form: the
  // row read with vector loads, the accumulators and exp on vectors (the
  // back end splits <8 x float> into the target's registers).
  EXPECT_NE(loops.find("load <8 x float>"), std::string::npos) << loops;
  EXPECT_NE(loops.find("fcmp ogt <8 x float>"), std::string::npos) << loops;
  EXPECT_NE(loops.find("fsub <8 x float>"), std::string::npos) << loops;
  // exp in arithmetic (host_math_emitter.h), not a libm call per element.
  EXPECT_NE(loops.find("floor.v8f32"), std::string::npos) << loops;
  EXPECT_EQ(loops.find("exp"), std::string::npos) << loops;
  EXPECT_NE(loops.find("fadd <8 x float>"), std::string::npos) << loops;
  // The sequential emission's reduction loops stay scalar.
  const std::string sequential = BlocksNamed(OptimizedSoftmaxIr(0), "r1.");
  ASSERT_FALSE(sequential.empty());
  EXPECT_EQ(sequential.find("x float>"), std::string::npos) << sequential;
}

// Calls of llvm.floor (the polynomial exp floors twice per call).
int FloorCalls(const std::string& ir) {
  int n = 0;
  for (size_t at = ir.find("call "); at != std::string::npos; at = ir.find("call ", at + 1)) {
    const size_t end = ir.find('\n', at);
    if (ir.substr(at, end - at).find("@llvm.floor") != std::string::npos) ++n;
  }
  return n;
}

// With the row cache, the sum's loop stores exp(x - max) in a row buffer
// that the output loop reads: exp is computed in one loop instead of two.
// Numerics with the cache (the default) are checked against the evaluator
// by SoftmaxAndLayerNormMatchTheEvaluator.
TEST(LaneReduceIr, SoftmaxComputesExpOncePerElementWithTheRowCache) {
  const std::string cached = OptimizedSoftmaxIr(32, 64 * 1024);
  const std::string recomputed = OptimizedSoftmaxIr(32, 0);
  ASSERT_FALSE(cached.empty());
  ASSERT_FALSE(recomputed.empty());
  EXPECT_NE(cached.find("row_cache"), std::string::npos) << cached;
  EXPECT_EQ(recomputed.find("row_cache"), std::string::npos);
  EXPECT_GT(FloorCalls(cached), 0) << cached;
  EXPECT_LT(FloorCalls(cached), FloorCalls(recomputed));
  // Rows over the limit recompute (f32[7,1023] rows are 4092 bytes).
  EXPECT_EQ(OptimizedSoftmaxIr(32, 4000).find("row_cache"), std::string::npos);
}

}  // namespace
}  // namespace xla::gpu
