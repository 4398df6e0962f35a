// weft's environment settings are all read by one parser: a whole number in
// range is taken, anything else is ignored with a warning.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstdlib>

namespace {

constexpr const char* variable = "WEFT_ENVIRONMENT_TEST_COUNT";

std::optional<long> read_with(const char* text) {
  if (text)
    ::setenv(variable, text, 1);
  else
    ::unsetenv(variable);
  auto n = weft::detail::bounded_integer_variable(variable, 1, 64);
  ::unsetenv(variable);
  return n;
}

}  // namespace

TEST_CASE("a bounded integer variable is taken only when it is a whole number in range") {
  CHECK(read_with(nullptr) == std::nullopt);
  CHECK(read_with("1") == 1);
  CHECK(read_with("64") == 64);
  CHECK(read_with("0") == std::nullopt);
  CHECK(read_with("65") == std::nullopt);
  CHECK(read_with("-3") == std::nullopt);
  CHECK(read_with("") == std::nullopt);
  CHECK(read_with("8 workers") == std::nullopt);
  CHECK(read_with("eight") == std::nullopt);
}
