// HostDeviceCommunicator: in-process communicators used through the
// stream-ordered interface, on host streams, and per-stream scratch.
#include "xla/backends/gpu/runtime/collectives/host_device_communicator.h"

#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/collectives/in_process_communicator.h"
#include "xla/stream_executor/host/host_executor.h"

namespace xla::gpu {
namespace {

namespace se = ::stream_executor;

TEST(HostDeviceCommunicatorTest, AllReduceRunsInStreamOrder) {
  InProcessCliques cliques(absl::Seconds(20));
  const CliqueKey key = *CliqueKey::Create({0, 1});
  se::host::HostExecutor executor;
  std::vector<std::vector<float>> data = {{1, 2, 3}, {10, 20, 30}};
  std::vector<absl::Status> status(2);
  std::vector<std::thread> threads;
  for (int d = 0; d < 2; ++d) {
    threads.emplace_back([&, d] {
      std::unique_ptr<se::Stream> stream = *executor.CreateStream();
      DeviceCommunicator* comm = *cliques.GetForStream(key, d);
      se::DeviceMemoryBase m(data[d].data(), data[d].size() * sizeof(float));
      status[d] = comm->AllReduce(/*run_id=*/1, ReductionKind::kSum, PrimitiveType::F32, m, m, 3,
                                  *stream);
      if (status[d].ok()) status[d] = stream->BlockHostUntilDone();
    });
  }
  for (std::thread& t : threads) t.join();
  for (int d = 0; d < 2; ++d) {
    ASSERT_TRUE(status[d].ok()) << status[d];
    EXPECT_EQ(data[d], (std::vector<float>{11, 22, 33}));
  }
  EXPECT_EQ(*cliques.GetForStream(key, 0), *cliques.GetForStream(key, 0));  // cached
}

TEST(HostDeviceCommunicatorTest, ScratchIsPerStreamAndGrows) {
  InProcessCliques cliques;
  DeviceCommunicator* comm = *cliques.GetForStream(*CliqueKey::Create({0}), 0);
  se::host::HostExecutor executor;
  std::unique_ptr<se::Stream> a = *executor.CreateStream(), b = *executor.CreateStream();
  const se::DeviceMemoryBase small = *comm->Scratch(100, *a);
  EXPECT_EQ(*comm->Scratch(64, *a), small);
  EXPECT_NE((*comm->Scratch(64, *b)).opaque, small.opaque);
  const se::DeviceMemoryBase big = *comm->Scratch(1000, *a);
  EXPECT_GE(big.size, 1000u);
  EXPECT_NE(big.opaque, small.opaque);
}

}  // namespace
}  // namespace xla::gpu
