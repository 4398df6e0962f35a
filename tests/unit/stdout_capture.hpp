// Runs code with the process's stdout redirected to a temporary file and
// returns what it wrote: the file descriptor itself is swapped, so output
// from every thread (the SM workers' device printf included) is caught.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <string>

template <class Body>
std::string capture_stdout(Body body) {
  std::fflush(stdout);
  std::FILE* file = std::tmpfile();
  int saved = dup(STDOUT_FILENO);
  dup2(fileno(file), STDOUT_FILENO);
  struct restore {  // also when a failed REQUIRE throws out of body
    int saved;
    ~restore() {
      std::fflush(stdout);
      dup2(saved, STDOUT_FILENO);
      close(saved);
    }
  };
  {
    restore r{saved};
    body();
  }
  std::string text;
  std::rewind(file);
  char chunk[1 << 16];
  for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, file)) > 0;) text.append(chunk, n);
  std::fclose(file);
  return text;
}
