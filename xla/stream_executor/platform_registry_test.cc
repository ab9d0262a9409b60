#include "xla/stream_executor/platform_registry.h"

#include <atomic>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace stream_executor {
namespace {

using ::testing::HasSubstr;

// A platform with no devices, enough to exercise the registry.
class FakePlatform : public Platform {
 public:
  explicit FakePlatform(std::string name) : name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  int device_count() const override { return 0; }
  absl::StatusOr<StreamExecutor*> GetDevice(int ordinal) override {
    return absl::InvalidArgumentError("no devices");
  }

 private:
  std::string name_;
};

TEST(PlatformRegistryTest, CreatesEachPlatformOnceOnFirstUse) {
  static std::atomic<int> created{0};
  ASSERT_TRUE(PlatformRegistry::RegisterFactory(
                  "fake_once",
                  []() -> absl::StatusOr<std::unique_ptr<Platform>> {
                    created.fetch_add(1);
                    return std::make_unique<FakePlatform>("fake_once");
                  })
                  .ok());
  EXPECT_EQ(created.load(), 0);
  std::vector<Platform*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&seen, i] {
      absl::StatusOr<Platform*> platform = PlatformRegistry::GetPlatform("fake_once");
      if (platform.ok()) seen[i] = *platform;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(created.load(), 1);
  ASSERT_NE(seen[0], nullptr);
  for (Platform* platform : seen) EXPECT_EQ(platform, seen[0]);
  EXPECT_EQ(seen[0]->name(), "fake_once");
}

TEST(PlatformRegistryTest, DuplicateAndEmptyRegistrationsFail) {
  auto factory = []() -> absl::StatusOr<std::unique_ptr<Platform>> {
    return std::make_unique<FakePlatform>("fake_dup");
  };
  ASSERT_TRUE(PlatformRegistry::RegisterFactory("fake_dup", factory).ok());
  EXPECT_EQ(PlatformRegistry::RegisterFactory("fake_dup", factory).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(PlatformRegistry::RegisterFactory("", factory).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PlatformRegistry::RegisterFactory("fake_null", nullptr).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(PlatformRegistryTest, UnknownPlatformNamesTheLinkedOnes) {
  ASSERT_TRUE(PlatformRegistry::RegisterFactory(
                  "fake_listed",
                  []() -> absl::StatusOr<std::unique_ptr<Platform>> {
                    return std::make_unique<FakePlatform>("fake_listed");
                  })
                  .ok());
  absl::StatusOr<Platform*> cuda = PlatformRegistry::GetPlatform("cuda");
  EXPECT_EQ(cuda.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(cuda.status().message(),
              HasSubstr("platform 'cuda' is not linked into this binary"));
  EXPECT_THAT(cuda.status().message(), HasSubstr("fake_listed"));
  EXPECT_THAT(PlatformRegistry::RegisteredNames(),
              ::testing::Contains("fake_listed"));
}

TEST(PlatformRegistryTest, FailingFactoryIsRetried) {
  static std::atomic<int> calls{0};
  ASSERT_TRUE(PlatformRegistry::RegisterFactory(
                  "fake_flaky",
                  []() -> absl::StatusOr<std::unique_ptr<Platform>> {
                    if (calls.fetch_add(1) == 0) {
                      return absl::UnavailableError("driver missing");
                    }
                    return std::make_unique<FakePlatform>("fake_flaky");
                  })
                  .ok());
  absl::StatusOr<Platform*> first = PlatformRegistry::GetPlatform("fake_flaky");
  EXPECT_EQ(first.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(first.status().message(), HasSubstr("driver missing"));
  EXPECT_TRUE(PlatformRegistry::GetPlatform("fake_flaky").ok());
}

}  // namespace
}  // namespace stream_executor
