// The native half of the `xla_aot` Python package (python/xla_aot/): the
// module `xla_aot._xla_aot`, a thin pybind11 layer over the project's C++
// APIs. The Python half (python/xla_aot/__init__.py) is the public API; it
// turns numpy arrays into .npy bytes and back, so that every dtype rule
// (bf16 and f8 travel as float32, s4 as int8, ...) is xla/types/npy.h's, the
// same as `xla_aot run --input=a.npy`.
//
//   compile(text, source_name, [(option, value), ...]) -> Executable
//       aot::Compile with the options of `xla_aot compile`
//       (cli::ApplyCompileOption, the command line's own mapping).
//   load_file(path, trusted_keys, unsigned_policy) -> Executable
//       aot::Executable::LoadFromBytes under the trust flags' policy.
//   evaluate(text, source_name, [npy bytes]) -> [(type, npy bytes)]
//       the reference evaluator, as `xla_aot eval`.
//   entry_parameter_count(text, source_name) -> int
//   Executable.run([npy bytes]) -> [(type, npy bytes)]   ExecuteOnLiterals
//   Executable.inspect() -> str                    `xla_aot inspect`
//   Executable.artifact_bytes() -> bytes, .inputs, .outputs
//
// Errors: an absl::Status becomes an exception of xla_aot._errors chosen by
// its code (InvalidArgumentError is a ValueError, NotFoundError a
// FileNotFoundError, ...) carrying the message the CLI prints.
//
// Thread-safety: compile, evaluate and Executable.run release the GIL while
// they work; an Executable may be run from many Python threads at once
// (aot::Executable's contract). Initialization on the device happens on the
// first run and is itself thread-safe.
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/tools/compile_flags.h"
#include "xla/tools/inspect_command.h"
#include "xla/tools/tensor_io.h"
#include "xla/tools/trust_flags.h"
#include "xla/types/npy.h"
#include "xla/types/primitive_type.h"

namespace py = pybind11;

namespace xla::python {
namespace {

// A failed absl::Status on its way to Python (see the translator below).
struct StatusError {
  absl::Status status;
};

// The exception class of xla_aot._errors for a status code.
struct ErrorClass {
  absl::StatusCode code;
  const char* name;
};
constexpr ErrorClass kErrorClasses[] = {
    {absl::StatusCode::kInvalidArgument, "InvalidArgumentError"},
    {absl::StatusCode::kNotFound, "NotFoundError"},
    {absl::StatusCode::kPermissionDenied, "PermissionDeniedError"},
    {absl::StatusCode::kUnimplemented, "UnimplementedError"},
    {absl::StatusCode::kFailedPrecondition, "FailedPreconditionError"},
    {absl::StatusCode::kResourceExhausted, "ResourceExhaustedError"},
};

void Raise(const absl::Status& status) {
  PyObject* errors = PyImport_ImportModule("xla_aot._errors");
  if (errors == nullptr) return;  // the ImportError stays set
  const char* name = "Error";
  for (const ErrorClass& c : kErrorClasses) {
    if (c.code == status.code()) name = c.name;
  }
  py::object module = py::reinterpret_steal<py::object>(errors);
  py::object cls = module.attr(name);
  py::object error = cls(std::string(status.message()));
  error.attr("code") = absl::StatusCodeToString(status.code());
  PyErr_SetObject(cls.ptr(), error.ptr());
}

template <typename T>
T ValueOrThrow(absl::StatusOr<T> value) {
  if (!value.ok()) throw StatusError{value.status()};
  return *std::move(value);
}

void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) throw StatusError{status};
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open file"));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return buffer.str();
}

// "parameter 1 ('y')", or "parameter 1" when the program keeps no names.
std::string ParameterLabel(const ProgramShape& shape, size_t i) {
  if (i < shape.parameter_names.size() && !shape.parameter_names[i].empty()) {
    return absl::StrCat("parameter ", i, " ('", shape.parameter_names[i], "')");
  }
  return absl::StrCat("parameter ", i);
}

// The .npy bytes of each argument as Literals of the parameters' shapes.
// InvalidArgument naming the parameter for a wrong count, dtype or shape.
absl::StatusOr<std::vector<Literal>> ArgumentsFromNpy(const ProgramShape& shape,
                                                      const std::vector<std::string>& npy) {
  if (npy.size() != shape.parameters.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the program takes ", shape.parameters.size(),
                                                   " arguments ", shape.ToString(), " but ",
                                                   npy.size(), " were given"));
  }
  std::vector<Literal> args;
  args.reserve(npy.size());
  for (size_t i = 0; i < npy.size(); ++i) {
    const std::string label = ParameterLabel(shape, i);
    absl::StatusOr<Literal> file = ParseNpy(npy[i], label);
    if (!file.ok()) return absl::InvalidArgumentError(file.status().message());
    absl::StatusOr<Literal> arg = ConvertNpyLiteral(*file, shape.parameters[i], label);
    if (!arg.ok()) {
      // npy.h speaks of files; here the .npy bytes are the caller's array.
      return absl::InvalidArgumentError(absl::StrReplaceAll(arg.status().message(), {{"the file has", "the array has"}}));
    }
    args.push_back(*std::move(arg));
  }
  return args;
}

// One result leaf: its XLA element type name ("bf16") and its .npy bytes
// (in the travel type: float32 for bf16).
using NpyLeaf = std::pair<std::string, std::string>;

// Each array leaf as .npy bytes, depth first.
absl::StatusOr<std::vector<NpyLeaf>> LeavesToNpy(const std::vector<const Literal*>& leaves) {
  std::vector<NpyLeaf> out;
  out.reserve(leaves.size());
  for (const Literal* leaf : leaves) {
    absl::StatusOr<std::string> bytes = SerializeNpy(*leaf);
    if (!bytes.ok()) return bytes.status();
    out.emplace_back(std::string(PrimitiveTypeName(leaf->shape().element_type())), *std::move(bytes));
  }
  return out;
}

std::vector<py::tuple> ToPy(const std::vector<NpyLeaf>& values) {
  std::vector<py::tuple> out;
  out.reserve(values.size());
  for (const auto& [type, bytes] : values) out.push_back(py::make_tuple(type, py::bytes(bytes)));
  return out;
}

// (name, dims, XLA type name, .npy travel type name) of one array shape.
py::tuple Spec(const std::string& name, const Shape& shape) {
  absl::StatusOr<PrimitiveType> travel = NpyTravelType(shape.element_type());
  const std::string type(PrimitiveTypeName(shape.element_type()));
  return py::make_tuple(name, py::tuple(py::cast(shape.dimensions())), type,
                        travel.ok() ? std::string(PrimitiveTypeName(*travel)) : type);
}

// A loaded artifact and the bytes it was loaded from (for save).
class PyExecutable {
 public:
  PyExecutable(std::unique_ptr<aot::Executable> exe, std::string bytes, aot::LoadOptions load)
      : exe_(std::move(exe)), bytes_(std::move(bytes)), load_(std::move(load)) {}

  py::bytes ArtifactBytes() const { return py::bytes(bytes_); }

  std::vector<py::tuple> Inputs() const {
    const ProgramShape& shape = exe_->program_shape();
    std::vector<py::tuple> out;
    for (size_t i = 0; i < shape.parameters.size(); ++i) {
      const std::string name = i < shape.parameter_names.size() ? shape.parameter_names[i] : "";
      out.push_back(Spec(name, shape.parameters[i]));
    }
    return out;
  }

  std::vector<py::tuple> Outputs() const {
    std::vector<py::tuple> out;
    for (size_t i = 0; i < exe_->outputs().size(); ++i) {
      out.push_back(Spec(absl::StrCat("out", i), exe_->outputs()[i].shape));
    }
    return out;
  }

  std::string Inspect() const {
    std::ostringstream out;
    cli::PrintArtifact(*exe_, load_, out);
    return out.str();
  }

  std::vector<py::tuple> Run(const std::vector<std::string>& npy) {
    std::vector<NpyLeaf> results;
    {
      py::gil_scoped_release release;
      results = ValueOrThrow(RunWithoutGil(npy));
    }
    return ToPy(results);
  }

 private:
  absl::StatusOr<std::vector<NpyLeaf>> RunWithoutGil(const std::vector<std::string>& npy) {
    absl::StatusOr<std::vector<Literal>> args = ArgumentsFromNpy(exe_->program_shape(), npy);
    if (!args.ok()) return args.status();
    absl::StatusOr<stream_executor::Platform*> platform =
        stream_executor::PlatformRegistry::GetPlatform(exe_->program().target.platform);
    if (!platform.ok()) return platform.status();
    absl::StatusOr<stream_executor::StreamExecutor*> device = (*platform)->GetDevice(0);
    if (!device.ok()) return device.status();
    absl::StatusOr<std::vector<Literal>> results = aot::ExecuteOnLiterals(*exe_, *device, *args);
    if (!results.ok()) return results.status();
    std::vector<const Literal*> leaves;
    for (const Literal& r : *results) leaves.push_back(&r);
    return LeavesToNpy(leaves);
  }

  std::unique_ptr<aot::Executable> exe_;
  const std::string bytes_;
  const aot::LoadOptions load_;
};

std::unique_ptr<PyExecutable> Compile(const std::string& text, const std::string& source_name,
                                      const std::vector<std::pair<std::string, std::string>>& options) {
  aot::CompileOptions o;
  o.source_name = source_name;
  for (const auto& [name, value] : options) ThrowIfError(cli::ApplyCompileOption(name, value, &o));
  ThrowIfError(aot::CheckTarget(o.target));
  std::string bytes;
  {
    py::gil_scoped_release release;
    absl::StatusOr<aot::CompiledArtifact> compiled = aot::Compile(text, o);
    if (!compiled.ok()) throw StatusError{compiled.status()};
    bytes = std::move(compiled->bytes);
  }
  if (bytes.empty()) {
    throw StatusError{absl::InvalidArgumentError(
        "the compile options stopped after the middle end (no artifact); drop them to get an Executable")};
  }
  std::unique_ptr<aot::Executable> exe = ValueOrThrow(aot::Executable::LoadFromBytes(bytes));
  return std::make_unique<PyExecutable>(std::move(exe), std::move(bytes), aot::LoadOptions());
}

std::unique_ptr<PyExecutable> LoadFile(const std::string& path, const std::vector<std::string>& trusted_keys,
                                       const std::string& unsigned_policy) {
  cli::TrustFlags trust;
  trust.trusted_keys = trusted_keys;
  trust.unsigned_policy = unsigned_policy;
  aot::LoadOptions load = ValueOrThrow(cli::LoadOptionsFromFlags(trust));
  std::string bytes = ValueOrThrow(ReadFile(path));
  absl::StatusOr<std::unique_ptr<aot::Executable>> exe;
  {
    py::gil_scoped_release release;
    exe = aot::Executable::LoadFromBytes(bytes, load);
  }
  if (!exe.ok()) {
    throw StatusError{absl::Status(exe.status().code(), absl::StrCat(path, ": ", exe.status().message()))};
  }
  return std::make_unique<PyExecutable>(*std::move(exe), std::move(bytes), std::move(load));
}

absl::StatusOr<std::vector<NpyLeaf>> EvaluateWithoutGil(const std::string& text,
                                                            const std::string& source_name,
                                                            const std::vector<std::string>& npy) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, source_name);
  if (!module.ok()) return module.status();
  if (absl::Status v = VerifyModule(**module); !v.ok()) return v;
  const HloComputation& entry = *(*module)->entry_computation();
  ProgramShape shape;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    shape.parameters.push_back(entry.parameter_instruction(i)->shape());
    shape.parameter_names.push_back(entry.parameter_instruction(i)->name());
  }
  absl::StatusOr<std::vector<Literal>> args = ArgumentsFromNpy(shape, npy);
  if (!args.ok()) return args.status();
  absl::StatusOr<Literal> result = HloEvaluator().Evaluate(**module, *args);
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        absl::StrCat(source_name, ": evaluation failed: ", result.status().message()));
  }
  return LeavesToNpy(cli::FlattenLeaves(*result));
}

std::vector<py::tuple> Evaluate(const std::string& text, const std::string& source_name,
                                const std::vector<std::string>& npy) {
  std::vector<NpyLeaf> results;
  {
    py::gil_scoped_release release;
    results = ValueOrThrow(EvaluateWithoutGil(text, source_name, npy));
  }
  return ToPy(results);
}

// The entry computation's parameter count (from_jax checks that JAX kept
// every argument). Parse errors as compile's.
int64_t EntryParameterCount(const std::string& text, const std::string& source_name) {
  std::unique_ptr<HloModule> module = ValueOrThrow(ParseHloModule(text, source_name));
  return module->entry_computation()->num_parameters();
}

}  // namespace
}  // namespace xla::python

PYBIND11_MODULE(_xla_aot, m) {
  using xla::python::PyExecutable;
  m.doc() = "The native half of the xla_aot package; use `import xla_aot`.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const xla::python::StatusError& e) {
      xla::python::Raise(e.status);
    }
  });
  py::class_<PyExecutable>(m, "Executable")
      .def("artifact_bytes", &PyExecutable::ArtifactBytes)
      .def("inputs", &PyExecutable::Inputs)
      .def("outputs", &PyExecutable::Outputs)
      .def("inspect", &PyExecutable::Inspect)
      .def("run", &PyExecutable::Run);
  m.def("compile", &xla::python::Compile, py::arg("text"), py::arg("source_name"), py::arg("options"));
  m.def("load_file", &xla::python::LoadFile, py::arg("path"), py::arg("trusted_keys"),
        py::arg("unsigned_policy"));
  m.def("entry_parameter_count", &xla::python::EntryParameterCount, py::arg("text"),
        py::arg("source_name"));
  m.def("evaluate", &xla::python::Evaluate, py::arg("text"), py::arg("source_name"), py::arg("npy"));
}
