// xla_aot_device: run, bench and inspect without the compiler. All logic
// lives in xla/tools/device_cli.h.
#include <iostream>

#include "xla/tools/device_cli.h"

int main(int argc, char** argv) {
  return xla::cli::RunXlaAotDevice(std::vector<std::string>(argv + 1, argv + argc), std::cout,
                                   std::cerr);
}
