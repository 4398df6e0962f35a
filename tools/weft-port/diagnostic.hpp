// What the port reports about its input.
#pragma once

#include <string>

namespace weft_port_tool {

// A problem with the input, reported as `file:line: error: what`.
struct diagnostic {
  int line;
  std::string what;
  bool error;  // false: a warning, and the construct is left as it was
};

struct port_failure {
  int line;
  std::string what;
};

}  // namespace weft_port_tool
