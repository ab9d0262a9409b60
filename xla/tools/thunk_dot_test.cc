// The dot text of a small artifact has its thunk nodes, the while body as a
// cluster, allocation nodes, and read / write / unknown-direction edges;
// `xla_aot inspect --dot` writes it; `dot` renders it when installed.
#include "xla/tools/thunk_dot.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/aot/executable.h"
#include "xla/tools/bench_command_test_artifact.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/inspect_command.h"

namespace xla::cli {
namespace {

TEST(ThunkDot, NodesClustersAndEdges) {
  const std::string artifact = testing::WriteObservabilityArtifact();
  auto exe = aot::Executable::LoadFromFile(artifact);
  ASSERT_TRUE(exe.ok()) << exe.status();
  const std::string dot = ThunkDot((*exe)->program());
  for (const char* want : {
           "digraph \"obs\" {",
           "a0 [shape=box label=\"alloc 0\\n24 bytes\\nparameter 0\"",
           "a3 [shape=box label=\"alloc 3\\n16 bytes\\noutput\"",
           "a5 [shape=box label=\"alloc 5\\n4 bytes\\ntemp\"",
           "t0 [label=\"kernel\\nadd.1\\nstream 0\"]",
           "t1 [label=\"gemm\\ndot.2\\nstream 0\"]",
           "t2 [label=\"memset\\nzero\\nstream 0\"]",
           "subgraph cluster_t3 {",
           "label=\"while\\nloop\\nstream 0\";",
           "label=\"body\"; style=dashed;",
           "t4 [label=\"kernel\\nacc.3\\nstream 0\"]",
           // Program order.
           "t0 -> t1;", "t1 -> t2;", "t2 -> t3;", "t3 -> t4 [style=bold];",
           // Reads, writes, kernel args.
           "a0 -> t1 [label=\"lhs 24B\" color=blue];",
           "a1 -> t1 [label=\"rhs 24B\" color=blue];",
           "t1 -> a3 [label=\"output 16B\" color=red];",
           "t2 -> a4 [label=\"destination 24B\" color=red];",
           "a5 -> t3 [label=\"predicate 1B\" color=blue];",
           "t0 -> a2 [label=\"args 24B\" style=dashed dir=both];",
           "t4 -> a4 [label=\"args 24B\" style=dashed dir=both];",
       }) {
    EXPECT_TRUE(absl::StrContains(dot, want)) << want << "\n" << dot;
  }
  // The body kernel sits inside the while cluster: after its opening and
  // before the cluster closes.
  const size_t cluster = dot.find("subgraph cluster_t3 {");
  const size_t body = dot.find("t4 [label=");
  const size_t memset = dot.find("t2 [label=");
  EXPECT_LT(memset, cluster);
  EXPECT_LT(cluster, body);
}

TEST(ThunkDot, InspectWritesDotAndDotRendersIt) {
  const std::string artifact = testing::WriteObservabilityArtifact();
  const std::string path = testing::TmpPath("g.dot");
  std::ostringstream out, err;
  ASSERT_EQ(RunInspect({artifact, "--dot=" + path}, out, err), kExitOk) << err.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "wrote " + path));
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_TRUE(absl::StrContains(text.str(), "subgraph cluster_t3 {")) << text.str();
  std::ostringstream out2, err2;
  EXPECT_EQ(RunInspect({artifact, "--dot=/nonexistent-dir/g.dot"}, out2, err2), kExitBadInput);
  if (std::system("command -v dot >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "graphviz `dot` not installed: not rendering";
  }
  const std::string cmd = "dot -Tsvg " + path + " -o " + testing::TmpPath("g.svg");
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

}  // namespace
}  // namespace xla::cli
