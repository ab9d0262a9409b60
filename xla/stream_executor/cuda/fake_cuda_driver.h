// FakeCudaDriver: a test double for the CUDA driver behind the same
// CudaDriverApi table, implemented on host memory. Test-only.
//
//  * One device per Options::device_count, with attributes from Options (an
//    sm_80-like device by default) and a primary context per device. Calls
//    that need a context fail with CUDA_ERROR_INVALID_CONTEXT when the
//    calling thread has none current, and everything but the error-string
//    and version calls fails with CUDA_ERROR_NOT_INITIALIZED before cuInit.
//  * Memory: cuMemAlloc returns 256-byte aligned host memory; copies and
//    memsets check that device ranges lie in live allocations
//    (CUDA_ERROR_INVALID_VALUE otherwise). cuMemHostAlloc returns pinned
//    host memory, tracked apart: the host side of cuMemcpyHtoD/DtoH reads
//    and writes it, while a device-to-device copy or memset naming it
//    fails like any non-device range. copies() records every copy queued.
//  * Streams: each stream has a queue run by its own thread, in order, like
//    a device would (so work is asynchronous to the caller). Pause() stops
//    every stream from starting more work until Resume().
//  * Events record positions in a stream's queue; cuStreamWaitEvent makes a
//    stream wait for the latest record made before the call. A record
//    notes the steady clock when the stream reaches it, which
//    cuEventElapsedTime subtracts (timing events only, as the driver).
//  * Modules: PTX text only. Entries are found by ".entry <name>(" with
//    their ".param" count. A line containing "fake-jit-error: <message>"
//    makes the load fail with CUDA_ERROR_INVALID_PTX and <message> in the
//    JIT error log buffer.
//  * cuLaunchKernel records the launch (function name, dims, shared memory,
//    one CUdeviceptr read per declared parameter) and, when the device runs
//    it, calls the host function registered for that name, if any.
//  * Graphs (explicit construction only): cuGraphCreate, kernel, memset
//    (height 1) and device-to-device memcpy (1D) nodes, instantiation,
//    cuGraphExec{Kernel,Memset,Memcpy}NodeSetParams and cuGraphLaunch. A
//    node holds the VALUES it was added with (kernel parameters read
//    through kernelParams at the call, as the driver does); an executable
//    graph holds a copy made at instantiation, changed only by the
//    SetParams calls, and a launch replays exactly those values, node by
//    node in the order added, on the stream ("graph launch <name>",
//    "graph memset32 <bytes>", "graph dtod <bytes>" in executed(); kernel
//    nodes also appear in launches()). So an update the caller forgot
//    shows as work on the old addresses. A launch whose node names memory
//    that is no longer allocated fails with CUDA_ERROR_ILLEGAL_ADDRESS and
//    queues nothing (where the device would fault). Options::graph_api =
//    false leaves the graph entry points null, like a driver without them.
//  * Stream capture (cuStreamBeginCapture_v2 .. cuStreamEndCapture, any
//    mode): while a stream captures, the work enqueued on it (kernel
//    launches, memsets, copies, host functions, hence the fake cuBLAS,
//    cuBLASLt, cuDNN and cuFFT calls, which enqueue through
//    cuLaunchHostFunc) does not run: each becomes the next node of the
//    capture graph, with the values of the call (addresses included), and
//    runs when a graph holding it is launched ("graph hostfn", "graph
//    launch <name>", "graph memset32 <bytes>" in executed()). A captured
//    kernel appears in launches() once, at the call. Stricter than the
//    driver: cuStreamSynchronize, cuStreamWaitEvent, cuEventRecord and
//    cuGraphLaunch on a capturing stream fail with
//    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidate the capture
//    (cuStreamEndCapture then fails with
//    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED and yields no graph). Captured
//    work's addresses are not checked at launch.
//  * Child graphs: cuGraphAddChildGraphNode clones the child's nodes into
//    the node; cuGraphExecChildGraphNodeSetParams replaces an executable
//    graph's copy with a clone of another graph of the same topology (same
//    node count, kinds and kernels; CUDA_ERROR_INVALID_VALUE otherwise). A
//    launch runs a child's nodes in place, in order. Options::capture_api =
//    false leaves these four entry points null.
//  * InjectError(call, result) makes the next call of that entry point
//    return `result` without doing anything.
//
// Only one FakeCudaDriver may exist at a time (the table's plain function
// pointers reach it through a global). Destroying it joins the stream
// threads; streams, events, modules and memory should be released first.
//
// Thread-safety: all methods may be called from any thread.
#ifndef XLA_STREAM_EXECUTOR_CUDA_FAKE_CUDA_DRIVER_H_
#define XLA_STREAM_EXECUTOR_CUDA_FAKE_CUDA_DRIVER_H_

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "xla/stream_executor/cuda/cuda_driver_api.h"

namespace stream_executor::cuda {

// One cuLaunchKernel call as the fake saw it.
struct FakeLaunch {
  std::string kernel;
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned shared_memory_bytes = 0;
  CUstream stream = nullptr;
  // One value per declared kernel parameter, read through kernelParams.
  std::vector<CUdeviceptr> args;

  // The linear block count gx * gy * gz.
  uint64_t num_blocks() const {
    return uint64_t{grid[0]} * grid[1] * grid[2];
  }
  // Parameter `i` as a host pointer (fake device memory is host memory).
  template <typename T>
  T* arg(size_t i) const {
    return reinterpret_cast<T*>(static_cast<uintptr_t>(args.at(i)));
  }
};

// One cuMemcpy*Async call as the fake queued it.
struct FakeCopy {
  std::string kind;  // "htod", "dtoh", "dtod"
  size_t size = 0;
  CUstream stream = nullptr;
  // Whether the destination / source lies in cuMemHostAlloc memory.
  bool dst_pinned = false;
  bool src_pinned = false;
};

class FakeCudaDriver {
 public:
  struct Options {
    int device_count = 1;
    int driver_version = 12040;
    size_t memory_size = size_t{256} << 20;
    std::string device_name = "Fake CUDA Device";
    // Overrides of the default (sm_80-like) attributes.
    std::map<CUdevice_attribute, int> attributes;
    // Whether the table has the graph entry points (XLA_CUDA_DRIVER_GRAPH_API).
    bool graph_api = true;
    // Whether it has the stream-capture and child-graph entry points
    // (XLA_CUDA_DRIVER_CAPTURE_API); only with graph_api.
    bool capture_api = true;
  };
  // Runs on the stream's thread when the device reaches a launch.
  using HostKernel = std::function<void(const FakeLaunch&)>;

  FakeCudaDriver() : FakeCudaDriver(Options()) {}
  explicit FakeCudaDriver(Options options);
  ~FakeCudaDriver();
  FakeCudaDriver(const FakeCudaDriver&) = delete;
  FakeCudaDriver& operator=(const FakeCudaDriver&) = delete;

  // The table; valid while this object lives.
  const CudaDriverApi& api() const { return api_; }

  // Makes launches of kernels named `name` run `kernel`.
  void RegisterKernel(const std::string& name, HostKernel kernel);
  // The next call of entry point `call` (e.g. "cuMemAlloc_v2") returns
  // `result` and does nothing. Several injections queue up.
  void InjectError(const std::string& call, CUresult result);
  // Stops / restarts every stream's device-side progress.
  void Pause();
  void Resume();

  // Every launch so far, in call order.
  std::vector<FakeLaunch> launches() const;
  // The device-side operations in the order they started (an operation
  // starts after the previous one of its stream finished), e.g. "htod 16",
  // "dtoh 16", "dtod 8", "memset32 4", "memset8 16", "launch saxpy_f32",
  // "record", "wait", "hostfn".
  std::vector<std::string> executed() const;
  // How often entry point `call` was called.
  int calls(const std::string& call) const;
  // Calls of every entry point so far, together (for calls-per-run
  // figures), and by entry point.
  int total_calls() const;
  std::map<std::string, int> call_counts() const;
  // Every cuMemcpy*Async call queued so far, in call order (device-to-device
  // memcpy nodes of a graph launch too, as "dtod").
  std::vector<FakeCopy> copies() const;
  // Resources currently alive.
  int live_allocations() const;
  int live_host_allocations() const;
  int live_streams() const;
  int live_events() const;
  int live_modules() const;
  int live_graphs() const;
  int live_graph_execs() const;
  int primary_context_retains() const;

  struct State;  // the implementation, shared with the C entry points

 private:
  std::unique_ptr<State> state_;
  CudaDriverApi api_;
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_FAKE_CUDA_DRIVER_H_
