#include "xla/jit/persistent_cache.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/jit/jit_test_util.h"

namespace xla::jit {
namespace {
namespace fs = std::filesystem;

std::string FreshDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", name);
  fs::remove_all(dir);
  return dir;
}

// The caches' signing key, outside every cache directory.
std::string KeyName() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/keys/jit_cache");
}

CacheKey Key(uint64_t n) { return CacheKey{Fingerprint128{n, n * 7 + 1}}; }

std::string Artifact() {
  auto m = testing::MustParse(testing::SmallModuleText("persist"));
  absl::StatusOr<std::string> bytes = testing::RealArtifact(*m);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : std::string();
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(PersistentCache, StoreThenLoadWithNoTemporaryLeft) {
  std::string dir = FreshDir("store_load");
  auto cache = PersistentCache::Open({dir, int64_t{1} << 30, nullptr, KeyName()});
  ASSERT_TRUE(cache.ok()) << cache.status();
  EXPECT_EQ((*cache)->Load(Key(1)), nullptr);  // miss
  std::string bytes = Artifact();
  ASSERT_TRUE((*cache)->Store(Key(1), bytes).ok());
  EXPECT_EQ(Files(dir), std::vector<std::string>({Key(1).ToString() + ".xaot"}));
  std::unique_ptr<aot::Executable> exe = (*cache)->Load(Key(1));
  ASSERT_NE(exe, nullptr);
  EXPECT_EQ(exe->program_shape().parameters.size(), 2u);
  // The entry is the artifact plus its signature (about 90 bytes).
  const int64_t stored = static_cast<int64_t>(fs::file_size((*cache)->PathFor(Key(1))));
  EXPECT_EQ((*cache)->TotalBytes(), stored);
  EXPECT_GT(stored, static_cast<int64_t>(bytes.size()));
  EXPECT_LT(stored, static_cast<int64_t>(bytes.size()) + 128);
  EXPECT_EQ((*cache)->warnings(), 0);
}

TEST(PersistentCache, CorruptAndTruncatedEntriesAreRemovedWithAWarning) {
  std::string dir = FreshDir("corrupt");
  std::mutex mu;
  std::vector<std::string> warnings;
  PersistentCacheOptions options{dir, int64_t{1} << 30, [&mu, &warnings](absl::string_view w) {
                                   std::lock_guard<std::mutex> lock(mu);
                                   warnings.emplace_back(w);
                                 },
                                 KeyName()};
  auto cache = PersistentCache::Open(options);
  ASSERT_TRUE(cache.ok());
  std::string bytes = Artifact();
  ASSERT_GT(bytes.size(), 100u);

  // What lies on disk is corrupted after the store (or planted there).
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 0x5a;  // payload byte: the checksum catches it
  std::string truncated = bytes.substr(0, bytes.size() / 3);
  int n = 0;
  for (const std::string& bad : {flipped, truncated, std::string("not an artifact")}) {
    CacheKey key = Key(100 + n++);
    ASSERT_TRUE((*cache)->Store(key, bytes).ok());
    ASSERT_TRUE(fs::exists((*cache)->PathFor(key)));
    std::ofstream((*cache)->PathFor(key), std::ios::binary | std::ios::trunc) << bad;
    EXPECT_EQ((*cache)->Load(key), nullptr);
    EXPECT_FALSE(fs::exists((*cache)->PathFor(key))) << "invalid entry not removed";
  }
  EXPECT_EQ((*cache)->warnings(), 3);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_TRUE(absl::StrContains(warnings[0], Key(100).ToString())) << warnings[0];
  EXPECT_TRUE(absl::StrContains(warnings[0], "recompiled")) << warnings[0];
}

// Well-formed artifacts this runtime must refuse: a newer format, a runtime
// feature it lacks. Resealed, so only the compatibility check can catch them.
TEST(PersistentCache, IncompatibleEntriesAreRemovedWithAWarning) {
  std::string dir = FreshDir("incompatible");
  std::mutex mu;
  std::vector<std::string> warnings;
  auto cache = PersistentCache::Open({dir, int64_t{1} << 30, [&mu, &warnings](absl::string_view w) {
                                        std::lock_guard<std::mutex> lock(mu);
                                        warnings.emplace_back(w);
                                      },
                                      KeyName()});
  ASSERT_TRUE(cache.ok());
  gpu::GpuExecutableProto good;
  ASSERT_TRUE(good.ParseFromString(Artifact()));
  gpu::GpuExecutableProto newer = good;
  newer.mutable_header()->set_format_version(good.header().format_version() + 50);
  gpu::SealArtifact(&newer);
  gpu::GpuExecutableProto needs_feature = good;
  needs_feature.mutable_header()->add_required_runtime_features("teleportation");
  gpu::SealArtifact(&needs_feature);
  int n = 0;
  for (const gpu::GpuExecutableProto& bad : {newer, needs_feature}) {
    CacheKey key = Key(200 + n++);
    ASSERT_TRUE((*cache)->Store(key, bad.SerializeAsString()).ok());
    EXPECT_EQ((*cache)->Load(key), nullptr);
    EXPECT_FALSE(fs::exists((*cache)->PathFor(key)));
  }
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_TRUE(absl::StrContains(warnings[1], "teleportation")) << warnings[1];
  // The unmodified artifact still loads: the checks above are not noise.
  ASSERT_TRUE((*cache)->Store(Key(300), good.SerializeAsString()).ok());
  EXPECT_NE((*cache)->Load(Key(300)), nullptr);
}

// Whoever can write to the directory (another user's cache, a shared
// disk) cannot make the cache load what it did not sign itself: an entry
// that is unsigned, signed by another key, or edited after signing (with
// its checksum recomputed) is refused, removed and warned about.
TEST(PersistentCache, EntriesNotSignedByThisCachesKeyAreRefused) {
  const std::string dir = FreshDir("foreign");
  const std::string keys = FreshDir("foreign_keys");
  std::vector<std::string> warnings;
  std::mutex mu;
  auto warn = [&mu, &warnings](absl::string_view w) {
    std::lock_guard<std::mutex> lock(mu);
    warnings.emplace_back(w);
  };
  auto mine = PersistentCache::Open({dir, int64_t{1} << 30, warn, keys + "/mine"});
  auto theirs = PersistentCache::Open({dir, int64_t{1} << 30, nullptr, keys + "/theirs"});
  ASSERT_TRUE(mine.ok()) << mine.status();
  ASSERT_TRUE(theirs.ok()) << theirs.status();
  EXPECT_TRUE(fs::exists(keys + "/mine.secret"));
  EXPECT_EQ(fs::status(keys + "/mine.secret").permissions() & fs::perms::group_read, fs::perms::none);
  const std::string bytes = Artifact();

  ASSERT_TRUE((*theirs)->Store(Key(1), bytes).ok());
  EXPECT_NE((*theirs)->Load(Key(1)), nullptr);  // its own entry loads
  EXPECT_EQ((*mine)->Load(Key(1)), nullptr);    // not signed by mine
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(absl::StrContains(warnings[0], "not trusted")) << warnings[0];

  std::ofstream((*mine)->PathFor(Key(2)), std::ios::binary) << bytes;  // planted unsigned
  EXPECT_EQ((*mine)->Load(Key(2)), nullptr);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_TRUE(absl::StrContains(warnings[1], "not signed")) << warnings[1];

  ASSERT_TRUE((*mine)->Store(Key(3), bytes).ok());
  std::ifstream in((*mine)->PathFor(Key(3)), std::ios::binary);
  gpu::GpuExecutableProto edited;
  ASSERT_TRUE(edited.ParseFromIstream(&in));
  in.close();
  edited.mutable_payload()->set_module_name("edited");
  gpu::SealArtifact(&edited);  // the checksum is recomputed; the signature cannot be
  std::ofstream((*mine)->PathFor(Key(3)), std::ios::binary | std::ios::trunc) << edited.SerializeAsString();
  EXPECT_EQ((*mine)->Load(Key(3)), nullptr);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_TRUE(absl::StrContains(warnings[2], "does not verify")) << warnings[2];

  ASSERT_TRUE((*mine)->Store(Key(4), bytes).ok());
  EXPECT_NE((*mine)->Load(Key(4)), nullptr);  // the refusals above are not noise
  EXPECT_EQ(warnings.size(), 3u);
}

TEST(PersistentCache, RefusesAKeyInsideTheDirectory) {
  const std::string dir = FreshDir("key_inside");
  auto cache = PersistentCache::Open({dir, int64_t{1} << 30, nullptr, dir + "/sub/key"});
  ASSERT_FALSE(cache.ok());
  EXPECT_TRUE(absl::StrContains(cache.status().message(), "lies inside the cache directory")) << cache.status();
}

TEST(PersistentCache, EvictsLeastRecentlyUsedFirst) {
  std::string dir = FreshDir("lru");
  std::string bytes = Artifact();
  int64_t size = static_cast<int64_t>(bytes.size());
  auto cache = PersistentCache::Open({dir, size * 2 + size / 2, nullptr, KeyName()});
  ASSERT_TRUE(cache.ok());
  auto pause = [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); };
  ASSERT_TRUE((*cache)->Store(Key(1), bytes).ok());
  pause();
  ASSERT_TRUE((*cache)->Store(Key(2), bytes).ok());
  pause();
  ASSERT_NE((*cache)->Load(Key(1)), nullptr);  // 1 is now the most recent
  pause();
  ASSERT_TRUE((*cache)->Store(Key(3), bytes).ok());
  EXPECT_TRUE(fs::exists((*cache)->PathFor(Key(1))));
  EXPECT_FALSE(fs::exists((*cache)->PathFor(Key(2))));
  EXPECT_TRUE(fs::exists((*cache)->PathFor(Key(3))));
  EXPECT_EQ((*cache)->evictions(), 1);
  EXPECT_LE((*cache)->TotalBytes(), size * 2 + size / 2);
}

TEST(PersistentCache, ConcurrentWritersNeverExposeHalfFiles) {
  std::string dir = FreshDir("concurrent");
  std::string bytes = Artifact();
  auto cache = PersistentCache::Open({dir, int64_t{1} << 30, nullptr, KeyName()});
  ASSERT_TRUE(cache.ok());
  PersistentCache* c = cache->get();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([c, &bytes] {
      for (int i = 0; i < 10; ++i) {
        EXPECT_TRUE(c->Store(Key(7), bytes).ok());
        c->Load(Key(7));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(c->warnings(), 0);  // a reader never saw a partial file
  EXPECT_EQ(Files(dir), std::vector<std::string>({Key(7).ToString() + ".xaot"}));
}

TEST(PersistentCache, OpenFailsOnAFile) {
  std::string path = FreshDir("a_file");
  std::ofstream(path) << "x";
  auto cache = PersistentCache::Open({path, 1, nullptr, KeyName()});
  ASSERT_FALSE(cache.ok());
  EXPECT_TRUE(absl::StrContains(cache.status().message(), path)) << cache.status();
}

}  // namespace
}  // namespace xla::jit
