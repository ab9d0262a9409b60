#include "xla/stream_executor/cuda/fake_cuda_driver.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "xla/util/logging.h"

namespace stream_executor::cuda {

namespace {

struct FakeModule;

struct FakeFunction {
  FakeModule* module = nullptr;
  std::string name;
  int num_params = 0;
};

struct FakeModule {
  std::vector<std::unique_ptr<FakeFunction>> functions;
};

struct FakeEvent {
  uint64_t recorded = 0;   // records issued (cuEventRecord calls)
  uint64_t completed = 0;  // the latest record the device has reached
  bool timing = true;      // created without CU_EVENT_DISABLE_TIMING
  int64_t completed_ns = 0;  // steady clock when `completed` was reached
};

// One node of a graph: the values it was added (or last updated) with.
// Kernel parameters are stored by value, read through kernelParams when
// the node is added or updated, as the driver does: a launch replays them.
struct FakeGraphNode {
  enum class Kind { kKernel, kMemset, kMemcpy, kCaptured, kChild };
  Kind kind = Kind::kKernel;
  // kKernel.
  FakeFunction* function = nullptr;
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned shared_memory_bytes = 0;
  std::vector<CUdeviceptr> args;
  // kMemset: dst, element size, value, width (elements); height 1.
  CUdeviceptr dst = 0;
  unsigned element_size = 0;
  unsigned value = 0;
  size_t width = 0;
  // kMemcpy: device to device, 1D.
  CUdeviceptr src = 0;
  size_t bytes = 0;
  // kCaptured: work enqueued on a capturing stream, as it was enqueued
  // (its addresses fixed at the call): `label` as executed() shows it
  // without the "graph " prefix, `run` what the device does.
  std::string label;
  std::function<void()> run;
  // kChild: a copy of the child graph's nodes, in the order added.
  std::vector<FakeGraphNode> child;
  // The nodes this one depends on (all added before it).
  std::vector<const void*> dependencies;
};

struct FakeGraph {
  std::vector<std::unique_ptr<FakeGraphNode>> nodes;
};

// An instantiated graph: a copy of the graph's nodes at instantiation (later
// changes to the graph do not reach it), updated only through
// cuGraphExec*NodeSetParams.
struct FakeGraphExec {
  std::vector<const FakeGraphNode*> keys;  // the graph's node handles
  std::vector<FakeGraphNode> nodes;        // their values, in the same order
};

struct FakeOp {
  std::string label;
  std::function<void()> run;
};

struct FakeStream {
  std::deque<FakeOp> queue;
  // While capturing (cuStreamBeginCapture .. cuStreamEndCapture): the graph
  // that work enqueued on the stream goes to instead of the queue, and
  // whether an unsupported call invalidated the capture.
  FakeGraph* capture = nullptr;
  bool capture_invalidated = false;
  bool busy = false;
  bool stop = false;
  std::thread thread;
};

struct ErrorText {
  CUresult result;
  const char* name;
  const char* description;
};

constexpr ErrorText kErrorTexts[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED",
     "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
     "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE",
     "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE",
     "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT",
     "invalid device context"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX",
     "a PTX JIT compilation failed"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE",
     "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED",
     "unspecified launch failure"},
    {CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE",
     "the operation cannot be performed in the present state"},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
     "operation not permitted when stream is capturing"},
    {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
     "operation failed due to a previous error during capture"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const ErrorText* FindErrorText(CUresult result) {
  for (const ErrorText& text : kErrorTexts) {
    if (text.result == result) return &text;
  }
  return nullptr;
}

// An sm_80-like device.
std::map<CUdevice_attribute, int> DefaultAttributes() {
  return {
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 8},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0},
  };
}

// Parses the ".entry <name>(... .param ...)" declarations of PTX text.
std::vector<std::pair<std::string, int>> ParsePtxEntries(absl::string_view ptx) {
  std::vector<std::pair<std::string, int>> entries;
  size_t pos = 0;
  while ((pos = ptx.find(".entry", pos)) != absl::string_view::npos) {
    pos += 6;
    while (pos < ptx.size() && (ptx[pos] == ' ' || ptx[pos] == '\t')) ++pos;
    const size_t name_start = pos;
    while (pos < ptx.size() &&
           (std::isalnum(static_cast<unsigned char>(ptx[pos])) ||
            ptx[pos] == '_' || ptx[pos] == '$')) {
      ++pos;
    }
    std::string name(ptx.substr(name_start, pos - name_start));
    const size_t open = ptx.find('(', pos);
    const size_t close = ptx.find(')', open);
    if (name.empty() || open == absl::string_view::npos ||
        close == absl::string_view::npos) {
      continue;
    }
    absl::string_view params = ptx.substr(open, close - open);
    int count = 0;
    for (size_t p = params.find(".param"); p != absl::string_view::npos;
         p = params.find(".param", p + 1)) {
      ++count;
    }
    entries.emplace_back(std::move(name), count);
    pos = close;
  }
  return entries;
}

thread_local CUcontext current_context = nullptr;

}  // namespace

struct FakeCudaDriver::State {
  Options options;
  std::map<CUdevice_attribute, int> attributes;

  mutable std::mutex mu;
  std::condition_variable changed;  // any device-side progress
  bool initialized = false;
  bool paused = false;
  std::vector<std::unique_ptr<char>> contexts;  // one per device
  std::vector<int> retains;                     // per device
  std::map<std::string, std::deque<CUresult>> injected;
  std::map<std::string, int> calls;
  std::map<CUdeviceptr, size_t> allocations;
  size_t allocated = 0;
  // Pinned host memory (cuMemHostAlloc): pointer -> size. Not device
  // allocations: a device-to-device copy or memset of it fails, as it
  // would without unified addressing.
  std::map<void*, size_t> host_allocations;
  std::vector<FakeCopy> copies;
  std::map<FakeStream*, std::unique_ptr<FakeStream>> streams;
  std::map<FakeEvent*, std::unique_ptr<FakeEvent>> events;
  std::map<FakeModule*, std::unique_ptr<FakeModule>> modules;
  std::map<std::string, HostKernel> kernels;
  std::vector<FakeLaunch> launches;
  std::vector<std::string> executed;
  std::map<FakeGraph*, std::unique_ptr<FakeGraph>> graphs;
  std::map<FakeGraphExec*, std::unique_ptr<FakeGraphExec>> graph_execs;

  // Needs mu held. Whether `pointer` lies in a live device or pinned host
  // allocation, its end included (an empty slice at an allocation's end).
  bool AddressableLocked(CUdeviceptr pointer) const {
    return InAllocationLocked(pointer, 0) ||
           InHostAllocationLocked(reinterpret_cast<const void*>(pointer), 0);
  }

  // Counts the call and returns an injected error, if any.
  CUresult Enter(const char* call) {
    std::lock_guard<std::mutex> lock(mu);
    ++calls[call];
    auto it = injected.find(call);
    if (it == injected.end() || it->second.empty()) return CUDA_SUCCESS;
    const CUresult result = it->second.front();
    it->second.pop_front();
    return result;
  }

  bool IsContext(CUcontext context) const {
    for (const auto& c : contexts) {
      if (reinterpret_cast<CUcontext>(c.get()) == context) return true;
    }
    return false;
  }

  // Needs mu held. Whether [pointer, pointer + size) is in one allocation.
  bool InAllocationLocked(CUdeviceptr pointer, size_t size) const {
    auto it = allocations.upper_bound(pointer);
    if (it == allocations.begin()) return false;
    --it;
    return pointer >= it->first && pointer + size <= it->first + it->second;
  }

  // Needs mu held. Whether [pointer, pointer + size) is in one pinned host
  // allocation.
  bool InHostAllocationLocked(const void* pointer, size_t size) const {
    auto it = host_allocations.upper_bound(const_cast<void*>(pointer));
    if (it == host_allocations.begin()) return false;
    --it;
    const char* p = static_cast<const char*>(pointer);
    const char* begin = static_cast<const char*>(it->first);
    return p >= begin && p + size <= begin + it->second;
  }

  FakeStream* FindStreamLocked(CUstream stream) const {
    auto it = streams.find(reinterpret_cast<FakeStream*>(stream));
    return it == streams.end() ? nullptr : it->second.get();
  }

  void StreamLoop(FakeStream* stream) {
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      changed.wait(lock, [&] {
        return (stream->stop && stream->queue.empty()) ||
               (!stream->queue.empty() && !paused);
      });
      if (stream->queue.empty()) return;
      FakeOp op = std::move(stream->queue.front());
      stream->queue.pop_front();
      stream->busy = true;
      executed.push_back(op.label);
      lock.unlock();
      op.run();
      lock.lock();
      stream->busy = false;
      changed.notify_all();
    }
  }

  // Needs mu held. On a capturing stream the work becomes the next node of
  // the capture graph (depending on the previous one) and does not run.
  void EnqueueLocked(FakeStream* stream, std::string label,
                     std::function<void()> run) {
    if (stream->capture != nullptr) {
      CaptureLocked(stream->capture, std::move(label), std::move(run));
      return;
    }
    stream->queue.push_back(FakeOp{std::move(label), std::move(run)});
    changed.notify_all();
  }

  // Needs mu held. Appends a kCaptured node to `graph`, after its last.
  static void CaptureLocked(FakeGraph* graph, std::string label, std::function<void()> run) {
    auto node = std::make_unique<FakeGraphNode>();
    node->kind = FakeGraphNode::Kind::kCaptured;
    node->label = std::move(label);
    node->run = std::move(run);
    if (!graph->nodes.empty()) node->dependencies.push_back(graph->nodes.back().get());
    graph->nodes.push_back(std::move(node));
  }

  // Needs mu held. For calls a capturing stream does not accept (the fake
  // is stricter than the driver, which captures event records and waits):
  // invalidates the capture and says CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  // CUDA_SUCCESS when `stream` is not capturing.
  CUresult RejectWhileCapturingLocked(FakeStream* stream) {
    if (stream == nullptr || stream->capture == nullptr) return CUDA_SUCCESS;
    stream->capture_invalidated = true;
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
};

namespace {

FakeCudaDriver::State* g_state = nullptr;

#define FAKE_ENTER(name)                                      \
  FakeCudaDriver::State& s = *g_state;                        \
  if (CUresult injected = s.Enter(#name); injected != CUDA_SUCCESS) \
    return injected;

#define FAKE_REQUIRE_INIT()                                  \
  do {                                                       \
    std::lock_guard<std::mutex> init_lock(s.mu);             \
    if (!s.initialized) return CUDA_ERROR_NOT_INITIALIZED;   \
  } while (0)

#define FAKE_REQUIRE_CONTEXT()                                   \
  do {                                                           \
    std::lock_guard<std::mutex> context_lock(s.mu);              \
    if (!s.initialized) return CUDA_ERROR_NOT_INITIALIZED;       \
    if (!s.IsContext(current_context)) return CUDA_ERROR_INVALID_CONTEXT; \
  } while (0)

CUresult FakeGetErrorName(CUresult error, const char** str) {
  FAKE_ENTER(cuGetErrorName);
  const ErrorText* text = FindErrorText(error);
  if (text == nullptr) {
    *str = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
  *str = text->name;
  return CUDA_SUCCESS;
}

CUresult FakeGetErrorString(CUresult error, const char** str) {
  FAKE_ENTER(cuGetErrorString);
  const ErrorText* text = FindErrorText(error);
  if (text == nullptr) {
    *str = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
  *str = text->description;
  return CUDA_SUCCESS;
}

CUresult FakeInit(unsigned int flags) {
  FAKE_ENTER(cuInit);
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(s.mu);
  s.initialized = true;
  return CUDA_SUCCESS;
}

CUresult FakeDriverGetVersion(int* version) {
  FAKE_ENTER(cuDriverGetVersion);
  if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *version = s.options.driver_version;
  return CUDA_SUCCESS;
}

CUresult FakeDeviceGet(CUdevice* device, int ordinal) {
  FAKE_ENTER(cuDeviceGet);
  FAKE_REQUIRE_INIT();
  if (ordinal < 0 || ordinal >= s.options.device_count) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult FakeDeviceGetCount(int* count) {
  FAKE_ENTER(cuDeviceGetCount);
  FAKE_REQUIRE_INIT();
  *count = s.options.device_count;
  return CUDA_SUCCESS;
}

CUresult FakeDeviceGetAttribute(int* value, CUdevice_attribute attribute,
                                CUdevice device) {
  FAKE_ENTER(cuDeviceGetAttribute);
  FAKE_REQUIRE_INIT();
  if (device < 0 || device >= s.options.device_count) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  auto it = s.attributes.find(attribute);
  if (it == s.attributes.end()) return CUDA_ERROR_INVALID_VALUE;
  *value = it->second;
  return CUDA_SUCCESS;
}

CUresult FakeDeviceGetName(char* name, int length, CUdevice device) {
  FAKE_ENTER(cuDeviceGetName);
  FAKE_REQUIRE_INIT();
  if (device < 0 || device >= s.options.device_count) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  if (name == nullptr || length <= 0) return CUDA_ERROR_INVALID_VALUE;
  const size_t n = std::min<size_t>(s.options.device_name.size(), length - 1);
  std::memcpy(name, s.options.device_name.data(), n);
  name[n] = '\0';
  return CUDA_SUCCESS;
}

CUresult FakeDeviceTotalMem(size_t* bytes, CUdevice device) {
  FAKE_ENTER(cuDeviceTotalMem_v2);
  FAKE_REQUIRE_INIT();
  if (device < 0 || device >= s.options.device_count) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  *bytes = s.options.memory_size;
  return CUDA_SUCCESS;
}

CUresult FakePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  FAKE_ENTER(cuDevicePrimaryCtxRetain);
  FAKE_REQUIRE_INIT();
  if (device < 0 || device >= s.options.device_count) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  std::lock_guard<std::mutex> lock(s.mu);
  ++s.retains[device];
  *context = reinterpret_cast<CUcontext>(s.contexts[device].get());
  return CUDA_SUCCESS;
}

CUresult FakePrimaryCtxRelease(CUdevice device) {
  FAKE_ENTER(cuDevicePrimaryCtxRelease_v2);
  FAKE_REQUIRE_INIT();
  std::lock_guard<std::mutex> lock(s.mu);
  if (device < 0 || device >= s.options.device_count || s.retains[device] == 0) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  --s.retains[device];
  return CUDA_SUCCESS;
}

CUresult FakeCtxSetCurrent(CUcontext context) {
  FAKE_ENTER(cuCtxSetCurrent);
  FAKE_REQUIRE_INIT();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (context != nullptr && !s.IsContext(context)) {
      return CUDA_ERROR_INVALID_CONTEXT;
    }
  }
  current_context = context;
  return CUDA_SUCCESS;
}

CUresult FakeModuleLoadDataEx(CUmodule* module, const void* image,
                              unsigned int num_options, CUjit_option* options,
                              void** option_values) {
  FAKE_ENTER(cuModuleLoadDataEx);
  FAKE_REQUIRE_CONTEXT();
  if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (num_options > 0 && (options == nullptr || option_values == nullptr)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  char* log = nullptr;
  size_t log_size = 0;
  int log_size_index = -1;
  for (unsigned i = 0; i < num_options; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER) {
      log = static_cast<char*>(option_values[i]);
    } else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) {
      log_size = reinterpret_cast<uintptr_t>(option_values[i]);
      log_size_index = static_cast<int>(i);
    }
  }
  const absl::string_view text(static_cast<const char*>(image));
  const auto fail = [&](absl::string_view message, CUresult result) {
    if (log != nullptr && log_size > 0) {
      const size_t n = std::min(message.size(), log_size - 1);
      std::memcpy(log, message.data(), n);
      log[n] = '\0';
      if (log_size_index >= 0) {
        option_values[log_size_index] = reinterpret_cast<void*>(uintptr_t{n + 1});
      }
    }
    return result;
  };
  if (absl::StartsWith(text, "\x7f" "ELF")) {
    return fail("the fake driver loads PTX only", CUDA_ERROR_INVALID_IMAGE);
  }
  const size_t marker = text.find("fake-jit-error: ");
  if (marker != absl::string_view::npos) {
    absl::string_view message = text.substr(marker + 16);
    message = message.substr(0, message.find('\n'));
    return fail(message, CUDA_ERROR_INVALID_PTX);
  }
  if (!absl::StrContains(text, ".version") ||
      !absl::StrContains(text, ".target")) {
    return fail("ptxas fatal: not PTX: no .version or .target directive",
                CUDA_ERROR_INVALID_PTX);
  }
  auto fake = std::make_unique<FakeModule>();
  for (auto& [name, params] : ParsePtxEntries(text)) {
    auto function = std::make_unique<FakeFunction>();
    function->module = fake.get();
    function->name = name;
    function->num_params = params;
    fake->functions.push_back(std::move(function));
  }
  std::lock_guard<std::mutex> lock(s.mu);
  *module = reinterpret_cast<CUmodule>(fake.get());
  s.modules.emplace(fake.get(), std::move(fake));
  return CUDA_SUCCESS;
}

CUresult FakeModuleUnload(CUmodule module) {
  FAKE_ENTER(cuModuleUnload);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.modules.erase(reinterpret_cast<FakeModule*>(module)) == 1
             ? CUDA_SUCCESS
             : CUDA_ERROR_INVALID_HANDLE;
}

CUresult FakeModuleGetFunction(CUfunction* function, CUmodule module,
                               const char* name) {
  FAKE_ENTER(cuModuleGetFunction);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.modules.find(reinterpret_cast<FakeModule*>(module));
  if (it == s.modules.end()) return CUDA_ERROR_INVALID_HANDLE;
  // As the real driver (580.159.04): an empty name is an invalid value.
  if (name == nullptr || name[0] == '\0') return CUDA_ERROR_INVALID_VALUE;
  for (const auto& candidate : it->second->functions) {
    if (candidate->name == name) {
      *function = reinterpret_cast<CUfunction>(candidate.get());
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_NOT_FOUND;
}

// Finds the function handle among the live modules; needs mu held.
FakeFunction* FindFunctionLocked(FakeCudaDriver::State& s, CUfunction f) {
  for (const auto& [key, module] : s.modules) {
    for (const auto& function : module->functions) {
      if (reinterpret_cast<CUfunction>(function.get()) == f) return function.get();
    }
  }
  return nullptr;
}

CUresult FakeLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
                          unsigned int gz, unsigned int bx, unsigned int by,
                          unsigned int bz, unsigned int shared_memory_bytes,
                          CUstream stream, void** kernel_params, void** extra) {
  FAKE_ENTER(cuLaunchKernel);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  FakeFunction* function = FindFunctionLocked(s, f);
  FakeStream* fake_stream = s.FindStreamLocked(stream);
  if (function == nullptr || fake_stream == nullptr) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 ||
      extra != nullptr ||
      (function->num_params > 0 && kernel_params == nullptr)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (uint64_t{bx} * by * bz >
      static_cast<uint64_t>(s.attributes[CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK])) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  FakeLaunch launch;
  launch.kernel = function->name;
  launch.grid[0] = gx;
  launch.grid[1] = gy;
  launch.grid[2] = gz;
  launch.block[0] = bx;
  launch.block[1] = by;
  launch.block[2] = bz;
  launch.shared_memory_bytes = shared_memory_bytes;
  launch.stream = stream;
  // Like the driver: each parameter is read through its pointer now.
  for (int i = 0; i < function->num_params; ++i) {
    launch.args.push_back(*static_cast<const CUdeviceptr*>(kernel_params[i]));
  }
  s.launches.push_back(launch);
  FakeCudaDriver::HostKernel kernel;
  auto it = s.kernels.find(function->name);
  if (it != s.kernels.end()) kernel = it->second;
  s.EnqueueLocked(fake_stream, "launch " + function->name,
                  [kernel = std::move(kernel), launch = std::move(launch)] {
                    if (kernel) kernel(launch);
                  });
  return CUDA_SUCCESS;
}

CUresult FakeMemAlloc(CUdeviceptr* pointer, size_t size) {
  FAKE_ENTER(cuMemAlloc_v2);
  FAKE_REQUIRE_CONTEXT();
  if (pointer == nullptr || size == 0) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(s.mu);
  if (size > s.options.memory_size - s.allocated) return CUDA_ERROR_OUT_OF_MEMORY;
  const size_t rounded = (size + 255) / 256 * 256;
  void* memory = std::aligned_alloc(256, rounded);
  if (memory == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  *pointer = reinterpret_cast<uintptr_t>(memory);
  s.allocations.emplace(*pointer, size);
  s.allocated += size;
  return CUDA_SUCCESS;
}

CUresult FakeMemHostAlloc(void** pointer, size_t size, unsigned int flags) {
  FAKE_ENTER(cuMemHostAlloc);
  FAKE_REQUIRE_CONTEXT();
  if (pointer == nullptr || size == 0 || flags > 0xf) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(s.mu);
  const size_t rounded = (size + 255) / 256 * 256;
  if (rounded < size) return CUDA_ERROR_OUT_OF_MEMORY;
  void* memory = std::aligned_alloc(256, rounded);
  if (memory == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  *pointer = memory;
  s.host_allocations.emplace(memory, size);
  return CUDA_SUCCESS;
}

CUresult FakeMemFreeHost(void* pointer) {
  FAKE_ENTER(cuMemFreeHost);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.host_allocations.find(pointer);
  if (it == s.host_allocations.end()) return CUDA_ERROR_INVALID_VALUE;
  s.host_allocations.erase(it);
  std::free(pointer);
  return CUDA_SUCCESS;
}

CUresult FakeMemFree(CUdeviceptr pointer) {
  FAKE_ENTER(cuMemFree_v2);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.allocations.find(pointer);
  if (it == s.allocations.end()) return CUDA_ERROR_INVALID_VALUE;
  s.allocated -= it->second;
  s.allocations.erase(it);
  std::free(reinterpret_cast<void*>(pointer));
  return CUDA_SUCCESS;
}

// Validates and queues a copy of `size` bytes; `dst_device`/`src_device`
// say which sides must lie in device allocations.
CUresult QueueCopy(FakeCudaDriver::State& s, const char* label, void* dst,
                   bool dst_device, const void* src, bool src_device,
                   size_t size, CUstream stream) {
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.IsContext(current_context)) return CUDA_ERROR_INVALID_CONTEXT;
  FakeStream* fake_stream = s.FindStreamLocked(stream);
  if (fake_stream == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (dst == nullptr || src == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if ((dst_device && !s.InAllocationLocked(reinterpret_cast<uintptr_t>(dst), size)) ||
      (src_device && !s.InAllocationLocked(reinterpret_cast<uintptr_t>(src), size))) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  s.copies.push_back(FakeCopy{label, size, stream, s.InHostAllocationLocked(dst, size),
                              s.InHostAllocationLocked(src, size)});
  s.EnqueueLocked(fake_stream, absl::StrCat(label, " ", size),
                  [dst, src, size] { std::memmove(dst, src, size); });
  return CUDA_SUCCESS;
}

CUresult FakeMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t size,
                             CUstream stream) {
  FAKE_ENTER(cuMemcpyHtoDAsync_v2);
  FAKE_REQUIRE_INIT();
  return QueueCopy(s, "htod", reinterpret_cast<void*>(dst), true, src, false,
                   size, stream);
}

CUresult FakeMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t size,
                             CUstream stream) {
  FAKE_ENTER(cuMemcpyDtoHAsync_v2);
  FAKE_REQUIRE_INIT();
  return QueueCopy(s, "dtoh", dst, false, reinterpret_cast<const void*>(src),
                   true, size, stream);
}

CUresult FakeMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t size,
                             CUstream stream) {
  FAKE_ENTER(cuMemcpyDtoDAsync_v2);
  FAKE_REQUIRE_INIT();
  return QueueCopy(s, "dtod", reinterpret_cast<void*>(dst), true,
                   reinterpret_cast<const void*>(src), true, size, stream);
}

CUresult FakeMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count,
                            CUstream stream) {
  FAKE_ENTER(cuMemsetD32Async);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  FakeStream* fake_stream = s.FindStreamLocked(stream);
  if (fake_stream == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (dst % 4 != 0 || !s.InAllocationLocked(dst, count * 4)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  s.EnqueueLocked(fake_stream, absl::StrCat("memset32 ", count * 4),
                  [dst, value, count] {
                    auto* words = reinterpret_cast<uint32_t*>(dst);
                    for (size_t i = 0; i < count; ++i) words[i] = value;
                  });
  return CUDA_SUCCESS;
}

CUresult FakeMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count,
                           CUstream stream) {
  FAKE_ENTER(cuMemsetD8Async);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  FakeStream* fake_stream = s.FindStreamLocked(stream);
  if (fake_stream == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (!s.InAllocationLocked(dst, count)) return CUDA_ERROR_INVALID_VALUE;
  s.EnqueueLocked(fake_stream, absl::StrCat("memset8 ", count),
                  [dst, value, count] {
                    std::memset(reinterpret_cast<void*>(dst), value, count);
                  });
  return CUDA_SUCCESS;
}

CUresult FakeStreamCreate(CUstream* stream, unsigned int flags) {
  FAKE_ENTER(cuStreamCreate);
  FAKE_REQUIRE_CONTEXT();
  if (stream == nullptr || (flags & ~CU_STREAM_NON_BLOCKING) != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  auto fake = std::make_unique<FakeStream>();
  FakeStream* raw = fake.get();
  std::lock_guard<std::mutex> lock(s.mu);
  s.streams.emplace(raw, std::move(fake));
  raw->thread = std::thread([&s, raw] { s.StreamLoop(raw); });
  *stream = reinterpret_cast<CUstream>(raw);
  return CUDA_SUCCESS;
}

CUresult FakeStreamDestroy(CUstream stream) {
  FAKE_ENTER(cuStreamDestroy_v2);
  FAKE_REQUIRE_INIT();
  std::unique_ptr<FakeStream> owned;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.streams.find(reinterpret_cast<FakeStream*>(stream));
    if (it == s.streams.end()) return CUDA_ERROR_INVALID_HANDLE;
    owned = std::move(it->second);
    s.streams.erase(it);
    owned->stop = true;  // the thread finishes the queued work first
    s.changed.notify_all();
  }
  owned->thread.join();
  return CUDA_SUCCESS;
}

CUresult FakeStreamSynchronize(CUstream stream) {
  FAKE_ENTER(cuStreamSynchronize);
  FAKE_REQUIRE_INIT();
  std::unique_lock<std::mutex> lock(s.mu);
  FakeStream* fake_stream = s.FindStreamLocked(stream);
  if (fake_stream == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (CUresult r = s.RejectWhileCapturingLocked(fake_stream); r != CUDA_SUCCESS) return r;
  s.changed.wait(lock, [&] {
    return fake_stream->queue.empty() && !fake_stream->busy;
  });
  return CUDA_SUCCESS;
}

CUresult FakeStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  FAKE_ENTER(cuStreamWaitEvent);
  FAKE_REQUIRE_INIT();
  std::lock_guard<std::mutex> lock(s.mu);
  FakeStream* fake_stream = s.FindStreamLocked(stream);
  auto it = s.events.find(reinterpret_cast<FakeEvent*>(event));
  if (fake_stream == nullptr || it == s.events.end()) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = s.RejectWhileCapturingLocked(fake_stream); r != CUDA_SUCCESS) return r;
  FakeEvent* fake_event = it->second.get();
  const uint64_t target = fake_event->recorded;
  s.EnqueueLocked(fake_stream, "wait", [&s, fake_event, target] {
    std::unique_lock<std::mutex> wait_lock(s.mu);
    s.changed.wait(wait_lock, [&] {
      return s.events.count(fake_event) == 0 || fake_event->completed >= target;
    });
  });
  return CUDA_SUCCESS;
}

CUresult FakeLaunchHostFunc(CUstream stream, CUhostFn fn, void* data) {
  FAKE_ENTER(cuLaunchHostFunc);
  FAKE_REQUIRE_INIT();
  std::lock_guard<std::mutex> lock(s.mu);
  FakeStream* fake_stream = s.FindStreamLocked(stream);
  if (fake_stream == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (fn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  s.EnqueueLocked(fake_stream, "hostfn", [fn, data] { fn(data); });
  return CUDA_SUCCESS;
}

CUresult FakeEventCreate(CUevent* event, unsigned int flags) {
  FAKE_ENTER(cuEventCreate);
  FAKE_REQUIRE_CONTEXT();
  if (event == nullptr || (flags & ~(CU_EVENT_DISABLE_TIMING |
                                     CU_EVENT_BLOCKING_SYNC)) != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  auto fake = std::make_unique<FakeEvent>();
  fake->timing = (flags & CU_EVENT_DISABLE_TIMING) == 0;
  std::lock_guard<std::mutex> lock(s.mu);
  *event = reinterpret_cast<CUevent>(fake.get());
  s.events.emplace(fake.get(), std::move(fake));
  return CUDA_SUCCESS;
}

CUresult FakeEventRecord(CUevent event, CUstream stream) {
  FAKE_ENTER(cuEventRecord);
  FAKE_REQUIRE_INIT();
  std::lock_guard<std::mutex> lock(s.mu);
  FakeStream* fake_stream = s.FindStreamLocked(stream);
  auto it = s.events.find(reinterpret_cast<FakeEvent*>(event));
  if (fake_stream == nullptr || it == s.events.end()) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (CUresult r = s.RejectWhileCapturingLocked(fake_stream); r != CUDA_SUCCESS) return r;
  FakeEvent* fake_event = it->second.get();
  const uint64_t sequence = ++fake_event->recorded;
  s.EnqueueLocked(fake_stream, "record", [&s, fake_event, sequence] {
    std::lock_guard<std::mutex> record_lock(s.mu);
    // Like the driver, an event destroyed while a record is pending is fine.
    if (s.events.count(fake_event) == 0) return;
    if (sequence > fake_event->completed) {
      fake_event->completed = sequence;
      fake_event->completed_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count();
    }
    s.changed.notify_all();
  });
  return CUDA_SUCCESS;
}

CUresult FakeEventQuery(CUevent event) {
  FAKE_ENTER(cuEventQuery);
  FAKE_REQUIRE_INIT();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.events.find(reinterpret_cast<FakeEvent*>(event));
  if (it == s.events.end()) return CUDA_ERROR_INVALID_HANDLE;
  return it->second->completed >= it->second->recorded ? CUDA_SUCCESS
                                                       : CUDA_ERROR_NOT_READY;
}

CUresult FakeEventSynchronize(CUevent event) {
  FAKE_ENTER(cuEventSynchronize);
  FAKE_REQUIRE_INIT();
  std::unique_lock<std::mutex> lock(s.mu);
  auto it = s.events.find(reinterpret_cast<FakeEvent*>(event));
  if (it == s.events.end()) return CUDA_ERROR_INVALID_HANDLE;
  FakeEvent* fake_event = it->second.get();
  const uint64_t target = fake_event->recorded;
  s.changed.wait(lock, [&] { return fake_event->completed >= target; });
  return CUDA_SUCCESS;
}

// As the driver: both events must allow timing and have been recorded
// (else INVALID_HANDLE), and have completed their latest record (else
// NOT_READY).
CUresult FakeEventElapsedTime(float* ms, CUevent start, CUevent end) {
  FAKE_ENTER(cuEventElapsedTime);
  FAKE_REQUIRE_INIT();
  if (ms == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(s.mu);
  auto first = s.events.find(reinterpret_cast<FakeEvent*>(start));
  auto last = s.events.find(reinterpret_cast<FakeEvent*>(end));
  if (first == s.events.end() || last == s.events.end()) return CUDA_ERROR_INVALID_HANDLE;
  const FakeEvent& a = *first->second;
  const FakeEvent& b = *last->second;
  if (!a.timing || !b.timing || a.recorded == 0 || b.recorded == 0) return CUDA_ERROR_INVALID_HANDLE;
  if (a.completed < a.recorded || b.completed < b.recorded) return CUDA_ERROR_NOT_READY;
  *ms = static_cast<float>(static_cast<double>(b.completed_ns - a.completed_ns) / 1e6);
  return CUDA_SUCCESS;
}

CUresult FakeEventDestroy(CUevent event) {
  FAKE_ENTER(cuEventDestroy_v2);
  FAKE_REQUIRE_INIT();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.events.erase(reinterpret_cast<FakeEvent*>(event)) == 0) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  s.changed.notify_all();  // streams waiting for it stop waiting
  return CUDA_SUCCESS;
}

// --- Graphs ---------------------------------------------------------------

// Reads a kernel node's parameters into `node`; needs mu held.
CUresult ReadKernelParamsLocked(FakeCudaDriver::State& s, const CUDA_KERNEL_NODE_PARAMS* p,
                                FakeGraphNode* node) {
  if (p == nullptr) return CUDA_ERROR_INVALID_VALUE;
  FakeFunction* function = FindFunctionLocked(s, p->func);
  if (function == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (p->gridDimX == 0 || p->gridDimY == 0 || p->gridDimZ == 0 || p->blockDimX == 0 ||
      p->blockDimY == 0 || p->blockDimZ == 0 || p->extra != nullptr ||
      (function->num_params > 0 && p->kernelParams == nullptr)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (uint64_t{p->blockDimX} * p->blockDimY * p->blockDimZ >
      static_cast<uint64_t>(s.attributes[CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK])) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  node->kind = FakeGraphNode::Kind::kKernel;
  node->function = function;
  node->grid[0] = p->gridDimX;
  node->grid[1] = p->gridDimY;
  node->grid[2] = p->gridDimZ;
  node->block[0] = p->blockDimX;
  node->block[1] = p->blockDimY;
  node->block[2] = p->blockDimZ;
  node->shared_memory_bytes = p->sharedMemBytes;
  node->args.clear();
  for (int i = 0; i < function->num_params; ++i) {
    node->args.push_back(*static_cast<const CUdeviceptr*>(p->kernelParams[i]));
  }
  return CUDA_SUCCESS;
}

CUresult ReadMemsetParams(const CUDA_MEMSET_NODE_PARAMS* p, FakeGraphNode* node) {
  if (p == nullptr || p->height != 1 || p->width == 0 ||
      (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) ||
      p->dst % p->elementSize != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  node->kind = FakeGraphNode::Kind::kMemset;
  node->dst = p->dst;
  node->element_size = p->elementSize;
  node->value = p->value;
  node->width = p->width;
  return CUDA_SUCCESS;
}

// Only what the runtime uses: 1D device-to-device copies.
CUresult ReadMemcpyParams(const CUDA_MEMCPY3D* p, FakeGraphNode* node) {
  if (p == nullptr || p->srcMemoryType != CU_MEMORYTYPE_DEVICE ||
      p->dstMemoryType != CU_MEMORYTYPE_DEVICE || p->Height != 1 || p->Depth != 1 ||
      p->WidthInBytes == 0 || p->srcXInBytes != 0 || p->dstXInBytes != 0 ||
      p->srcDevice == 0 || p->dstDevice == 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  node->kind = FakeGraphNode::Kind::kMemcpy;
  node->src = p->srcDevice;
  node->dst = p->dstDevice;
  node->bytes = p->WidthInBytes;
  return CUDA_SUCCESS;
}

// Adds `node` to `graph` after checking the dependencies; needs mu held.
CUresult AddNodeLocked(FakeCudaDriver::State& s, CUgraphNode* handle, CUgraph graph,
                       const CUgraphNode* dependencies, size_t num_dependencies,
                       std::unique_ptr<FakeGraphNode> node) {
  auto it = s.graphs.find(reinterpret_cast<FakeGraph*>(graph));
  if (it == s.graphs.end() || handle == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (num_dependencies > 0 && dependencies == nullptr) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < num_dependencies; ++i) {
    bool found = false;
    for (const auto& existing : it->second->nodes) {
      if (reinterpret_cast<CUgraphNode>(existing.get()) == dependencies[i]) found = true;
    }
    if (!found) return CUDA_ERROR_INVALID_VALUE;
    node->dependencies.push_back(dependencies[i]);
  }
  *handle = reinterpret_cast<CUgraphNode>(node.get());
  it->second->nodes.push_back(std::move(node));
  return CUDA_SUCCESS;
}

CUresult FakeGraphCreate(CUgraph* graph, unsigned int flags) {
  FAKE_ENTER(cuGraphCreate);
  FAKE_REQUIRE_CONTEXT();
  if (graph == nullptr || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  auto fake = std::make_unique<FakeGraph>();
  std::lock_guard<std::mutex> lock(s.mu);
  *graph = reinterpret_cast<CUgraph>(fake.get());
  s.graphs.emplace(fake.get(), std::move(fake));
  return CUDA_SUCCESS;
}

CUresult FakeGraphAddKernelNode(CUgraphNode* handle, CUgraph graph, const CUgraphNode* dependencies,
                                size_t num_dependencies, const CUDA_KERNEL_NODE_PARAMS* params) {
  FAKE_ENTER(cuGraphAddKernelNode_v2);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  auto node = std::make_unique<FakeGraphNode>();
  if (CUresult r = ReadKernelParamsLocked(s, params, node.get()); r != CUDA_SUCCESS) return r;
  return AddNodeLocked(s, handle, graph, dependencies, num_dependencies, std::move(node));
}

CUresult FakeGraphAddMemsetNode(CUgraphNode* handle, CUgraph graph, const CUgraphNode* dependencies,
                                size_t num_dependencies, const CUDA_MEMSET_NODE_PARAMS* params,
                                CUcontext context) {
  FAKE_ENTER(cuGraphAddMemsetNode);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.IsContext(context)) return CUDA_ERROR_INVALID_CONTEXT;
  auto node = std::make_unique<FakeGraphNode>();
  if (CUresult r = ReadMemsetParams(params, node.get()); r != CUDA_SUCCESS) return r;
  // As the driver: the destination must be device memory when added.
  if (!s.InAllocationLocked(node->dst, node->width * node->element_size)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  return AddNodeLocked(s, handle, graph, dependencies, num_dependencies, std::move(node));
}

CUresult FakeGraphAddMemcpyNode(CUgraphNode* handle, CUgraph graph, const CUgraphNode* dependencies,
                                size_t num_dependencies, const CUDA_MEMCPY3D* params,
                                CUcontext context) {
  FAKE_ENTER(cuGraphAddMemcpyNode);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.IsContext(context)) return CUDA_ERROR_INVALID_CONTEXT;
  auto node = std::make_unique<FakeGraphNode>();
  if (CUresult r = ReadMemcpyParams(params, node.get()); r != CUDA_SUCCESS) return r;
  if (!s.InAllocationLocked(node->dst, node->bytes) || !s.InAllocationLocked(node->src, node->bytes)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  return AddNodeLocked(s, handle, graph, dependencies, num_dependencies, std::move(node));
}

CUresult FakeGraphInstantiate(CUgraphExec* exec, CUgraph graph, unsigned long long flags) {
  FAKE_ENTER(cuGraphInstantiateWithFlags);
  FAKE_REQUIRE_CONTEXT();
  if (exec == nullptr || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.graphs.find(reinterpret_cast<FakeGraph*>(graph));
  if (it == s.graphs.end()) return CUDA_ERROR_INVALID_VALUE;
  auto fake = std::make_unique<FakeGraphExec>();
  // Nodes are added after their dependencies: insertion order is a
  // topological order, which a launch follows.
  for (const auto& node : it->second->nodes) {
    fake->keys.push_back(node.get());
    fake->nodes.push_back(*node);
  }
  *exec = reinterpret_cast<CUgraphExec>(fake.get());
  s.graph_execs.emplace(fake.get(), std::move(fake));
  return CUDA_SUCCESS;
}

// The exec's copy of `node`, or null; needs mu held.
FakeGraphNode* FindExecNodeLocked(FakeCudaDriver::State& s, CUgraphExec exec, CUgraphNode node) {
  auto it = s.graph_execs.find(reinterpret_cast<FakeGraphExec*>(exec));
  if (it == s.graph_execs.end()) return nullptr;
  FakeGraphExec& fake = *it->second;
  for (size_t i = 0; i < fake.keys.size(); ++i) {
    if (reinterpret_cast<CUgraphNode>(const_cast<FakeGraphNode*>(fake.keys[i])) == node) {
      return &fake.nodes[i];
    }
  }
  return nullptr;
}

CUresult FakeGraphExecKernelNodeSetParams(CUgraphExec exec, CUgraphNode node,
                                          const CUDA_KERNEL_NODE_PARAMS* params) {
  FAKE_ENTER(cuGraphExecKernelNodeSetParams_v2);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  FakeGraphNode* target = FindExecNodeLocked(s, exec, node);
  if (target == nullptr || target->kind != FakeGraphNode::Kind::kKernel) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  FakeGraphNode updated = *target;
  if (CUresult r = ReadKernelParamsLocked(s, params, &updated); r != CUDA_SUCCESS) return r;
  // As the driver: an update may not change the function's context; the
  // fake is stricter and keeps the function (the runtime never changes it).
  if (updated.function != target->function) return CUDA_ERROR_INVALID_VALUE;
  *target = std::move(updated);
  return CUDA_SUCCESS;
}

CUresult FakeGraphExecMemsetNodeSetParams(CUgraphExec exec, CUgraphNode node,
                                          const CUDA_MEMSET_NODE_PARAMS* params, CUcontext context) {
  FAKE_ENTER(cuGraphExecMemsetNodeSetParams);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.IsContext(context)) return CUDA_ERROR_INVALID_CONTEXT;
  FakeGraphNode* target = FindExecNodeLocked(s, exec, node);
  if (target == nullptr || target->kind != FakeGraphNode::Kind::kMemset) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  FakeGraphNode updated = *target;
  if (CUresult r = ReadMemsetParams(params, &updated); r != CUDA_SUCCESS) return r;
  if (!s.InAllocationLocked(updated.dst, updated.width * updated.element_size)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *target = std::move(updated);
  return CUDA_SUCCESS;
}

CUresult FakeGraphExecMemcpyNodeSetParams(CUgraphExec exec, CUgraphNode node,
                                          const CUDA_MEMCPY3D* params, CUcontext context) {
  FAKE_ENTER(cuGraphExecMemcpyNodeSetParams);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.IsContext(context)) return CUDA_ERROR_INVALID_CONTEXT;
  FakeGraphNode* target = FindExecNodeLocked(s, exec, node);
  if (target == nullptr || target->kind != FakeGraphNode::Kind::kMemcpy) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  FakeGraphNode updated = *target;
  if (CUresult r = ReadMemcpyParams(params, &updated); r != CUDA_SUCCESS) return r;
  if (!s.InAllocationLocked(updated.dst, updated.bytes) ||
      !s.InAllocationLocked(updated.src, updated.bytes)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *target = std::move(updated);
  return CUDA_SUCCESS;
}

// Queues one node's work on `stream` with the values the exec holds now;
// needs mu held. A node whose memory is no longer live fails the launch
// with CUDA_ERROR_ILLEGAL_ADDRESS (where the device would fault) before
// anything is queued.
CUresult CheckExecNodeLocked(const FakeCudaDriver::State& s, const FakeGraphNode& node) {
  switch (node.kind) {
    case FakeGraphNode::Kind::kKernel:
      for (CUdeviceptr arg : node.args) {
        if (arg != 0 && !s.AddressableLocked(arg)) return CUDA_ERROR_ILLEGAL_ADDRESS;
      }
      return CUDA_SUCCESS;
    case FakeGraphNode::Kind::kMemset:
      return s.InAllocationLocked(node.dst, node.width * node.element_size)
                 ? CUDA_SUCCESS
                 : CUDA_ERROR_ILLEGAL_ADDRESS;
    case FakeGraphNode::Kind::kMemcpy:
      return s.InAllocationLocked(node.dst, node.bytes) && s.InAllocationLocked(node.src, node.bytes)
                 ? CUDA_SUCCESS
                 : CUDA_ERROR_ILLEGAL_ADDRESS;
    case FakeGraphNode::Kind::kCaptured:
      // Captured work's addresses are inside its closure: not checked.
      return CUDA_SUCCESS;
    case FakeGraphNode::Kind::kChild:
      for (const FakeGraphNode& child : node.child) {
        if (CUresult r = CheckExecNodeLocked(s, child); r != CUDA_SUCCESS) return r;
      }
      return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

void QueueExecNodeLocked(FakeCudaDriver::State& s, FakeStream* fake_stream, CUstream stream,
                         const FakeGraphNode& node) {
  switch (node.kind) {
    case FakeGraphNode::Kind::kKernel: {
      FakeLaunch launch;
      launch.kernel = node.function->name;
      for (int i = 0; i < 3; ++i) {
        launch.grid[i] = node.grid[i];
        launch.block[i] = node.block[i];
      }
      launch.shared_memory_bytes = node.shared_memory_bytes;
      launch.stream = stream;
      launch.args = node.args;
      s.launches.push_back(launch);
      FakeCudaDriver::HostKernel kernel;
      auto it = s.kernels.find(node.function->name);
      if (it != s.kernels.end()) kernel = it->second;
      s.EnqueueLocked(fake_stream, "graph launch " + node.function->name,
                      [kernel = std::move(kernel), launch = std::move(launch)] {
                        if (kernel) kernel(launch);
                      });
      return;
    }
    case FakeGraphNode::Kind::kMemset: {
      const CUdeviceptr dst = node.dst;
      const unsigned size = node.element_size, value = node.value;
      const size_t width = node.width;
      s.EnqueueLocked(fake_stream, absl::StrCat("graph memset", size * 8, " ", width * size),
                      [dst, size, value, width] {
                        char* out = reinterpret_cast<char*>(dst);
                        for (size_t i = 0; i < width; ++i) std::memcpy(out + i * size, &value, size);
                      });
      return;
    }
    case FakeGraphNode::Kind::kMemcpy: {
      void* dst = reinterpret_cast<void*>(node.dst);
      const void* src = reinterpret_cast<const void*>(node.src);
      const size_t bytes = node.bytes;
      s.copies.push_back(FakeCopy{"dtod", bytes, stream, false, false});
      s.EnqueueLocked(fake_stream, absl::StrCat("graph dtod ", bytes),
                      [dst, src, bytes] { std::memmove(dst, src, bytes); });
      return;
    }
    case FakeGraphNode::Kind::kCaptured:
      s.EnqueueLocked(fake_stream, "graph " + node.label, node.run);
      return;
    case FakeGraphNode::Kind::kChild:
      for (const FakeGraphNode& child : node.child) {
        QueueExecNodeLocked(s, fake_stream, stream, child);
      }
      return;
  }
}

CUresult FakeGraphLaunch(CUgraphExec exec, CUstream stream) {
  FAKE_ENTER(cuGraphLaunch);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.graph_execs.find(reinterpret_cast<FakeGraphExec*>(exec));
  FakeStream* fake_stream = s.FindStreamLocked(stream);
  if (it == s.graph_execs.end() || fake_stream == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  // The driver would capture the launch as a child graph; the fake refuses.
  if (CUresult r = s.RejectWhileCapturingLocked(fake_stream); r != CUDA_SUCCESS) return r;
  for (const FakeGraphNode& node : it->second->nodes) {
    if (CUresult r = CheckExecNodeLocked(s, node); r != CUDA_SUCCESS) return r;
  }
  for (const FakeGraphNode& node : it->second->nodes) {
    QueueExecNodeLocked(s, fake_stream, stream, node);
  }
  return CUDA_SUCCESS;
}

CUresult FakeGraphExecDestroy(CUgraphExec exec) {
  FAKE_ENTER(cuGraphExecDestroy);
  FAKE_REQUIRE_INIT();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.graph_execs.erase(reinterpret_cast<FakeGraphExec*>(exec)) == 1 ? CUDA_SUCCESS
                                                                           : CUDA_ERROR_INVALID_VALUE;
}

CUresult FakeGraphDestroy(CUgraph graph) {
  FAKE_ENTER(cuGraphDestroy);
  FAKE_REQUIRE_INIT();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.graphs.erase(reinterpret_cast<FakeGraph*>(graph)) == 1 ? CUDA_SUCCESS
                                                                   : CUDA_ERROR_INVALID_VALUE;
}

// --- Stream capture and child graphs ----------------------------------------

CUresult FakeStreamBeginCapture(CUstream stream, CUstreamCaptureMode mode) {
  FAKE_ENTER(cuStreamBeginCapture_v2);
  FAKE_REQUIRE_CONTEXT();
  if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
      mode != CU_STREAM_CAPTURE_MODE_RELAXED) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  std::lock_guard<std::mutex> lock(s.mu);
  FakeStream* fake_stream = s.FindStreamLocked(stream);
  if (fake_stream == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (fake_stream->capture != nullptr) return CUDA_ERROR_ILLEGAL_STATE;
  auto graph = std::make_unique<FakeGraph>();
  fake_stream->capture = graph.get();
  fake_stream->capture_invalidated = false;
  s.graphs.emplace(graph.get(), std::move(graph));
  return CUDA_SUCCESS;
}

CUresult FakeStreamEndCapture(CUstream stream, CUgraph* graph) {
  FAKE_ENTER(cuStreamEndCapture);
  FAKE_REQUIRE_CONTEXT();
  if (graph == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(s.mu);
  FakeStream* fake_stream = s.FindStreamLocked(stream);
  if (fake_stream == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (fake_stream->capture == nullptr) return CUDA_ERROR_ILLEGAL_STATE;
  FakeGraph* captured = fake_stream->capture;
  fake_stream->capture = nullptr;
  if (fake_stream->capture_invalidated) {
    // As the driver: an invalidated capture yields no graph.
    s.graphs.erase(captured);
    *graph = nullptr;
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  *graph = reinterpret_cast<CUgraph>(captured);
  return CUDA_SUCCESS;
}

// A copy of `graph`'s node values, in the order added; needs mu held.
std::vector<FakeGraphNode> CopyNodesLocked(const FakeGraph& graph) {
  std::vector<FakeGraphNode> nodes;
  nodes.reserve(graph.nodes.size());
  for (const auto& node : graph.nodes) nodes.push_back(*node);
  return nodes;
}

// Whether `a` and `b` have the same topology and node kinds (a chain
// each; the fake compares kinds and kernels node by node).
bool SameTopology(const std::vector<FakeGraphNode>& a, const std::vector<FakeGraphNode>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].kind != b[i].kind || a[i].function != b[i].function ||
        a[i].dependencies.size() != b[i].dependencies.size()) {
      return false;
    }
    if (a[i].kind == FakeGraphNode::Kind::kChild && !SameTopology(a[i].child, b[i].child)) {
      return false;
    }
  }
  return true;
}

CUresult FakeGraphAddChildGraphNode(CUgraphNode* handle, CUgraph graph,
                                    const CUgraphNode* dependencies, size_t num_dependencies,
                                    CUgraph child_graph) {
  FAKE_ENTER(cuGraphAddChildGraphNode);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  auto child = s.graphs.find(reinterpret_cast<FakeGraph*>(child_graph));
  if (child == s.graphs.end() || child_graph == graph) return CUDA_ERROR_INVALID_VALUE;
  auto node = std::make_unique<FakeGraphNode>();
  node->kind = FakeGraphNode::Kind::kChild;
  // As the driver: the node holds a clone; later changes to `child_graph`
  // do not reach it, and `child_graph` may be destroyed.
  node->child = CopyNodesLocked(*child->second);
  return AddNodeLocked(s, handle, graph, dependencies, num_dependencies, std::move(node));
}

CUresult FakeGraphExecChildGraphNodeSetParams(CUgraphExec exec, CUgraphNode node,
                                              CUgraph child_graph) {
  FAKE_ENTER(cuGraphExecChildGraphNodeSetParams);
  FAKE_REQUIRE_CONTEXT();
  std::lock_guard<std::mutex> lock(s.mu);
  FakeGraphNode* target = FindExecNodeLocked(s, exec, node);
  auto child = s.graphs.find(reinterpret_cast<FakeGraph*>(child_graph));
  if (target == nullptr || target->kind != FakeGraphNode::Kind::kChild ||
      child == s.graphs.end()) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  std::vector<FakeGraphNode> nodes = CopyNodesLocked(*child->second);
  // As the driver: the new child graph must have the node's topology.
  if (!SameTopology(target->child, nodes)) return CUDA_ERROR_INVALID_VALUE;
  target->child = std::move(nodes);
  return CUDA_SUCCESS;
}

}  // namespace

FakeCudaDriver::FakeCudaDriver(Options options)
    : state_(std::make_unique<State>()) {
  XLA_CHECK(g_state == nullptr) << "only one FakeCudaDriver may exist at a time";
  state_->attributes = DefaultAttributes();
  for (const auto& [attribute, value] : options.attributes) {
    state_->attributes[attribute] = value;
  }
  for (int i = 0; i < options.device_count; ++i) {
    state_->contexts.push_back(std::make_unique<char>(0));
    state_->retains.push_back(0);
  }
  state_->options = std::move(options);
  g_state = state_.get();
  api_.cuGetErrorName = &FakeGetErrorName;
  api_.cuGetErrorString = &FakeGetErrorString;
  api_.cuInit = &FakeInit;
  api_.cuDriverGetVersion = &FakeDriverGetVersion;
  api_.cuDeviceGet = &FakeDeviceGet;
  api_.cuDeviceGetCount = &FakeDeviceGetCount;
  api_.cuDeviceGetAttribute = &FakeDeviceGetAttribute;
  api_.cuDeviceGetName = &FakeDeviceGetName;
  api_.cuDeviceTotalMem_v2 = &FakeDeviceTotalMem;
  api_.cuDevicePrimaryCtxRetain = &FakePrimaryCtxRetain;
  api_.cuDevicePrimaryCtxRelease_v2 = &FakePrimaryCtxRelease;
  api_.cuCtxSetCurrent = &FakeCtxSetCurrent;
  api_.cuModuleLoadDataEx = &FakeModuleLoadDataEx;
  api_.cuModuleUnload = &FakeModuleUnload;
  api_.cuModuleGetFunction = &FakeModuleGetFunction;
  api_.cuLaunchKernel = &FakeLaunchKernel;
  api_.cuMemAlloc_v2 = &FakeMemAlloc;
  api_.cuMemFree_v2 = &FakeMemFree;
  api_.cuMemHostAlloc = &FakeMemHostAlloc;
  api_.cuMemFreeHost = &FakeMemFreeHost;
  api_.cuMemcpyHtoDAsync_v2 = &FakeMemcpyHtoDAsync;
  api_.cuMemcpyDtoHAsync_v2 = &FakeMemcpyDtoHAsync;
  api_.cuMemcpyDtoDAsync_v2 = &FakeMemcpyDtoDAsync;
  api_.cuMemsetD32Async = &FakeMemsetD32Async;
  api_.cuMemsetD8Async = &FakeMemsetD8Async;
  api_.cuStreamCreate = &FakeStreamCreate;
  api_.cuStreamDestroy_v2 = &FakeStreamDestroy;
  api_.cuStreamSynchronize = &FakeStreamSynchronize;
  api_.cuStreamWaitEvent = &FakeStreamWaitEvent;
  api_.cuLaunchHostFunc = &FakeLaunchHostFunc;
  api_.cuEventCreate = &FakeEventCreate;
  api_.cuEventRecord = &FakeEventRecord;
  api_.cuEventQuery = &FakeEventQuery;
  api_.cuEventSynchronize = &FakeEventSynchronize;
  api_.cuEventElapsedTime = &FakeEventElapsedTime;
  api_.cuEventDestroy_v2 = &FakeEventDestroy;
  // Every entry of the table must be filled.
#define XLA_FAKE_CHECK_FILLED(name) \
  XLA_CHECK(api_.name != nullptr) << "FakeCudaDriver lacks " #name;
  XLA_CUDA_DRIVER_API(XLA_FAKE_CHECK_FILLED)
  if (!state_->options.graph_api) return;  // an older driver: no graphs
  api_.cuGraphCreate = &FakeGraphCreate;
  api_.cuGraphAddKernelNode_v2 = &FakeGraphAddKernelNode;
  api_.cuGraphAddMemsetNode = &FakeGraphAddMemsetNode;
  api_.cuGraphAddMemcpyNode = &FakeGraphAddMemcpyNode;
  api_.cuGraphInstantiateWithFlags = &FakeGraphInstantiate;
  api_.cuGraphExecKernelNodeSetParams_v2 = &FakeGraphExecKernelNodeSetParams;
  api_.cuGraphExecMemsetNodeSetParams = &FakeGraphExecMemsetNodeSetParams;
  api_.cuGraphExecMemcpyNodeSetParams = &FakeGraphExecMemcpyNodeSetParams;
  api_.cuGraphLaunch = &FakeGraphLaunch;
  api_.cuGraphExecDestroy = &FakeGraphExecDestroy;
  api_.cuGraphDestroy = &FakeGraphDestroy;
  XLA_CUDA_DRIVER_GRAPH_API(XLA_FAKE_CHECK_FILLED)
  if (state_->options.capture_api) {
    api_.cuStreamBeginCapture_v2 = &FakeStreamBeginCapture;
    api_.cuStreamEndCapture = &FakeStreamEndCapture;
    api_.cuGraphAddChildGraphNode = &FakeGraphAddChildGraphNode;
    api_.cuGraphExecChildGraphNodeSetParams = &FakeGraphExecChildGraphNodeSetParams;
    XLA_CUDA_DRIVER_CAPTURE_API(XLA_FAKE_CHECK_FILLED)
  }
#undef XLA_FAKE_CHECK_FILLED
}

FakeCudaDriver::~FakeCudaDriver() {
  std::vector<std::unique_ptr<FakeStream>> streams;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->paused = false;
    for (auto& [key, stream] : state_->streams) {
      stream->stop = true;
      streams.push_back(std::move(stream));
    }
    state_->streams.clear();
    state_->changed.notify_all();
  }
  for (auto& stream : streams) stream->thread.join();
  for (const auto& [pointer, size] : state_->allocations) {
    std::free(reinterpret_cast<void*>(pointer));
  }
  for (const auto& [pointer, size] : state_->host_allocations) std::free(pointer);
  g_state = nullptr;
}

void FakeCudaDriver::RegisterKernel(const std::string& name, HostKernel kernel) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->kernels[name] = std::move(kernel);
}

void FakeCudaDriver::InjectError(const std::string& call, CUresult result) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->injected[call].push_back(result);
}

void FakeCudaDriver::Pause() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->paused = true;
}

void FakeCudaDriver::Resume() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->paused = false;
  state_->changed.notify_all();
}

std::vector<FakeLaunch> FakeCudaDriver::launches() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->launches;
}

std::vector<std::string> FakeCudaDriver::executed() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->executed;
}

int FakeCudaDriver::calls(const std::string& call) const {
  std::lock_guard<std::mutex> lock(state_->mu);
  auto it = state_->calls.find(call);
  return it == state_->calls.end() ? 0 : it->second;
}

int FakeCudaDriver::live_allocations() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return static_cast<int>(state_->allocations.size());
}

int FakeCudaDriver::live_host_allocations() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return static_cast<int>(state_->host_allocations.size());
}

std::vector<FakeCopy> FakeCudaDriver::copies() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->copies;
}

int FakeCudaDriver::live_streams() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return static_cast<int>(state_->streams.size());
}

int FakeCudaDriver::live_events() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return static_cast<int>(state_->events.size());
}

int FakeCudaDriver::live_modules() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return static_cast<int>(state_->modules.size());
}

int FakeCudaDriver::total_calls() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  int total = 0;
  for (const auto& [call, count] : state_->calls) total += count;
  return total;
}

std::map<std::string, int> FakeCudaDriver::call_counts() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->calls;
}

int FakeCudaDriver::live_graphs() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return static_cast<int>(state_->graphs.size());
}

int FakeCudaDriver::live_graph_execs() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return static_cast<int>(state_->graph_execs.size());
}

int FakeCudaDriver::primary_context_retains() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  int total = 0;
  for (int r : state_->retains) total += r;
  return total;
}

}  // namespace stream_executor::cuda
