// The signing commands end to end through the CLI: keygen, compile
// --sign_key, sign, and run/bench/inspect under --trusted_key and
// --unsigned.
#include "xla/tools/sign_command.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/tools/bench_command.h"
#include "xla/tools/cli.h"
#include "xla/tools/exit_codes.h"

namespace xla::cli {
namespace {

using ::testing::HasSubstr;

struct Result {
  int code;
  std::string out, err;
};

Result Xla(std::vector<std::string> args) {
  std::ostringstream out, err;
  int code = RunXlaAot(args, out, err);
  return {code, out.str(), err.str()};
}

std::string Dir(const std::string& name) {
  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Rows of exp(x - max): one host kernel (host code in the artifact).
constexpr char kModule[] = R"(HloModule m
max { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT m = f32[] maximum(a, b) }
ENTRY e {
  p = f32[3,11] parameter(0)
  c = f32[] constant(-inf)
  m = f32[3] reduce(p, c), dimensions={1}, to_apply=max
  b = f32[3,11] broadcast(m), dimensions={0}
  s = f32[3,11] subtract(p, b)
  ROOT x = f32[3,11] exponential(s)
}
)";

TEST(SignCommands, KeygenCompileSignRunAndInspectUnderEachPolicy) {
  const std::string d = Dir("cli_sign");
  const std::string hlo = d + "/m.hlo";
  std::ofstream(hlo) << kModule;
  Result keygen = Xla({"keygen", "--out=" + d + "/me"});
  ASSERT_EQ(keygen.code, kExitOk) << keygen.err;
  EXPECT_THAT(keygen.out, HasSubstr("keygen: key "));
  EXPECT_EQ(Xla({"keygen", "--out=" + d + "/me"}).code, kExitBadInput);  // never overwrites
  ASSERT_EQ(Xla({"keygen", "--out=" + d + "/other"}).code, kExitOk);
  const std::string me = "--trusted_key=" + d + "/me.pub";
  const std::string other = "--trusted_key=" + d + "/other.pub";

  Result compiled = Xla({"compile", hlo, "-o", d + "/signed.xaot", "--sign_key=" + d + "/me.secret"});
  ASSERT_EQ(compiled.code, kExitOk) << compiled.err;
  ASSERT_EQ(Xla({"compile", hlo, "-o", d + "/plain.xaot"}).code, kExitOk);

  const std::string ref = "--reference=" + hlo;
  // Signed: refused untrusted (whatever --unsigned says), runs trusted.
  Result untrusted = Xla({"run", d + "/signed.xaot", "--random_inputs", ref});
  EXPECT_EQ(untrusted.code, kExitBadInput);
  EXPECT_THAT(untrusted.err, HasSubstr("which is not trusted"));
  EXPECT_EQ(Xla({"run", d + "/signed.xaot", "--random_inputs", ref, other}).code, kExitBadInput);
  Result trusted = Xla({"run", d + "/signed.xaot", "--random_inputs", ref, other, me, "--unsigned=refuse"});
  EXPECT_EQ(trusted.code, kExitOk) << trusted.err;
  EXPECT_THAT(trusted.out, HasSubstr("PASS"));
  Result inspected = Xla({"inspect", d + "/signed.xaot", me});
  ASSERT_EQ(inspected.code, kExitOk) << inspected.err;
  EXPECT_THAT(inspected.out, HasSubstr("verified with a trusted key"));
  EXPECT_THAT(Xla({"bench", d + "/signed.xaot", "--iterations=1", "--warmup=0", me}).out, HasSubstr("median"));
  EXPECT_EQ(Xla({"bench", d + "/signed.xaot", "--iterations=1", "--warmup=0"}).code, kExitBadInput);

  // Unsigned: allowed by default, refused by no_host_code (it has host
  // code) and refuse.
  EXPECT_EQ(Xla({"run", d + "/plain.xaot", "--random_inputs", ref}).code, kExitOk);
  Result no_host = Xla({"run", d + "/plain.xaot", "--random_inputs", ref, "--unsigned=no_host_code"});
  EXPECT_EQ(no_host.code, kExitBadInput);
  EXPECT_THAT(no_host.err, HasSubstr("carries host code"));
  EXPECT_EQ(Xla({"inspect", d + "/plain.xaot", "--unsigned=refuse"}).code, kExitBadInput);
  EXPECT_THAT(Xla({"inspect", d + "/plain.xaot"}).out, HasSubstr("signature: none (unsigned; policy allow)"));

  // xla_aot sign, in place and to another file.
  Result sign = Xla({"sign", d + "/plain.xaot", "--key=" + d + "/other.secret", "-o", d + "/by_other.xaot"});
  ASSERT_EQ(sign.code, kExitOk) << sign.err;
  EXPECT_EQ(Xla({"run", d + "/by_other.xaot", "--random_inputs", ref, other}).code, kExitOk);
  ASSERT_EQ(Xla({"sign", d + "/plain.xaot", "--key=" + d + "/me.secret"}).code, kExitOk);
  EXPECT_EQ(Xla({"run", d + "/plain.xaot", "--random_inputs", ref, me, "--unsigned=refuse"}).code, kExitOk);
}

TEST(SignCommands, BadUsageAndBadFilesAreNamed) {
  const std::string d = Dir("cli_sign_bad");
  EXPECT_EQ(Xla({"keygen"}).code, kExitUsage);
  EXPECT_EQ(Xla({"sign", d + "/x.xaot"}).code, kExitUsage);
  EXPECT_EQ(Xla({"run", d + "/x.xaot", "--unsigned=maybe"}).code, kExitUsage);
  EXPECT_EQ(Xla({"inspect", d + "/x.xaot", "--trusted_key="}).code, kExitUsage);
  ASSERT_EQ(Xla({"keygen", "--out=" + d + "/k"}).code, kExitOk);
  std::ofstream(d + "/junk.xaot") << "junk";
  Result junk = Xla({"sign", d + "/junk.xaot", "--key=" + d + "/k.secret"});
  EXPECT_EQ(junk.code, kExitBadInput);
  EXPECT_THAT(junk.err, HasSubstr("junk.xaot is not a valid GpuExecutableProto artifact"));
  Result pub_as_secret = Xla({"sign", d + "/junk.xaot", "--key=" + d + "/k.pub"});
  EXPECT_EQ(pub_as_secret.code, kExitBadInput);
  EXPECT_THAT(pub_as_secret.err, HasSubstr("may be read by others"));
  Result secret_as_pub = Xla({"inspect", d + "/junk.xaot", "--trusted_key=" + d + "/k.secret"});
  EXPECT_EQ(secret_as_pub.code, kExitBadInput);
  EXPECT_THAT(secret_as_pub.err, HasSubstr("is not an xla_aot public key"));
}

}  // namespace
}  // namespace xla::cli
