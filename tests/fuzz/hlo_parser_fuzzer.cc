// Fuzz target: HLO text -> ParseHloModule -> VerifyModule. Any input may be
// rejected with an error; none may crash, hang or trip a sanitizer. A module
// that parses and verifies must print and parse again (a round-trip
// oracle: the printer's output is what the parser accepts).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/verifier/hlo_verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Very long inputs only slow the search down; the parser is linear.
  if (size > (256 << 10)) return 0;
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = xla::ParseHloModule(text);
  if (!module.ok()) return 0;
  if (!xla::VerifyModule(**module).ok()) return 0;
  const std::string printed = xla::PrintModule(**module);
  auto reparsed = xla::ParseHloModule(printed);
  if (!reparsed.ok()) {
    fprintf(stderr, "hlo_parser_fuzzer: a verified module's printed text does not parse: %s\n%s\n",
            std::string(reparsed.status().message()).c_str(), printed.c_str());
    abort();
  }
  return 0;
}
