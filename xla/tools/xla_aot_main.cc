// xla_aot: the command line. All logic lives in xla/tools/cli.h.
#include <iostream>

#include "xla/tools/cli.h"

int main(int argc, char** argv) {
  return xla::cli::RunXlaAot(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
