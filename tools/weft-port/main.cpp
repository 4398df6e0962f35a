// weft-port: makes an unmodified CUDA source file compile with g++ against weft.
//
//   weft-port in.cu > out.cpp
//   weft-port in.cu -o out.cpp
//
// Where things are (all in namespace weft_port_tool):
//   main.cpp                    the command line
//   program_porter.hpp, .cpp    the program: the input, the files it includes, the output's
//                               prelude, the depfile
//   porter.hpp                  the port of one file: what it rewrites (see its top), the class
//   porter.cpp                  its interface, and the registrations after the last line
//   porter_tokens.cpp           token tests; where each token is (host, device, __host__ __device__)
//   porter_arch.cpp             tests of __CUDA_ARCH__, clock() in device code
//   porter_ptx.cpp              inline PTX: special registers, named barriers
//   porter_stackless.cpp        which kernels become stackless kernels, and how
//   porter_regions.cpp          region versions of stackless kernels
//   porter_awaitables.cpp       __device__ functions that wait, made awaitable
//   porter_constructs.cpp       finding launches, kernel declarations, extern __shared__
//   porter_render.cpp           rendering the output
//   untraced_shared_reads.hpp, .cpp  --race-check: reads of __shared__ arrays that cannot race, untraced
//   scanner.hpp, .cpp           the tokens of a source file
//   arch_conditionals.hpp, .cpp directives that test __CUDA_ARCH__, as each nvcc pass reads them
//   kernels.hpp                 the kernels a file declares and those it knows from its includes
//   diagnostic.hpp, extern_shared_helper.hpp, one_of.hpp
#include "program_porter.hpp"

#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace weft_port_tool {

int usage(std::ostream& os, int code) {
  os << "usage: weft-port INPUT.cu [-o OUTPUT.cpp] [--source-root DIR] [--port-root DIR] [--depfile FILE]\n"
        "       [--no-stackless] [--explain] [--race-check] [--program-source FILE ...]\n"
        "Rewrites a CUDA source file's kernel launches (k<<<grid, block, shmem, stream>>>(args)) and\n"
        "`extern __shared__` arrays for weft, gives its tests of __CUDA_ARCH__ the view of the nvcc pass\n"
        "that would compile them, and writes the result (to standard output by default). Compiler errors\n"
        "in the output point at INPUT's lines.\n"
        "With -o, the files INPUT includes with #include \"...\" (found beside the file that includes them)\n"
        "that need the same rewrites are ported too, under --port-root (default: OUTPUT's folder) at their\n"
        "place below --source-root (default: INPUT's folder), where the ports' #include lines find them.\n"
        "--depfile writes a Makefile rule naming every file read, for the build to port again when one\n"
        "changes.\n"
        "Kernels whose barriers, warp collectives and cooperative-group waits sit in their own bodies, or in\n"
        "__device__ functions of the file (given an awaitable version), become stackless kernels, in INPUT\n"
        "and in the headers only it includes\n"
        "(weft::stackless_kernel, co_await weft::syncthreads(), ...; docs/porting.md, \"Stackless kernels\"),\n"
        "unless --no-stackless. --explain says for each kernel whether it converted, and if not why.\n"
        "--race-check (for a build with weft's race check, WEFT_SANITIZE=race) reads a region version's\n"
        "elements of a __shared__ array of scalars untraced where no access of the same barrier interval\n"
        "can race with the read: the region is the whole interval and writes no element of the array, whose\n"
        "address never escapes (docs/architecture.md, \"Race check\"). weft_add_cuda_executable passes it.\n"
        "--program-source FILE (repeatable) names another source of the same program: a kernel that\n"
        "one of them names, or one in a header that one of them includes, stays as it is, as it may be\n"
        "declared there with `void`.\n";
  return code;
}

}  // namespace weft_port_tool

using weft_port_tool::options;
using weft_port_tool::program_porter;
using weft_port_tool::usage;

int main(int argc, char** argv) {
  options o;
  for (int a = 1; a < argc; ++a) {
    std::string_view arg = argv[a];
    if (arg == "-h" || arg == "--help") return usage(std::cout, 0);
    if (arg == "--no-stackless" || arg == "--explain") {
      (arg == "--explain" ? o.explain : o.stackless) = arg == "--explain";
      continue;
    }
    if (arg == "--race-check") {
      o.race_check = true;
      continue;
    }
    if (arg == "--program-source" && a + 1 < argc) {
      o.program_sources.emplace_back(argv[++a]);
      continue;
    }
    std::string* value = arg == "-o"              ? &o.output
                         : arg == "--source-root" ? &o.source_root
                         : arg == "--port-root"   ? &o.port_root
                         : arg == "--depfile"     ? &o.depfile
                                                  : nullptr;
    if (value) {
      if (a + 1 == argc) {
        std::cerr << "weft-port: " << arg << " needs a value\n";
        return usage(std::cerr, 2);
      }
      *value = argv[++a];
    } else if (arg.size() > 1 && arg[0] == '-') {
      std::cerr << "weft-port: unknown option '" << arg << "'\n";
      return usage(std::cerr, 2);
    } else if (o.input.empty()) {
      o.input = arg;
    } else {
      return usage(std::cerr, 2);
    }
  }
  if (o.input.empty()) return usage(std::cerr, 2);

  std::string output = o.output;
  std::optional<std::string> out = program_porter(std::move(o)).run();
  if (!out) return 1;
  if (output.empty()) {
    std::cout << *out;
    std::cout.flush();
    return std::cout ? 0 : 1;
  }
  return program_porter::write_file(output, *out) ? 0 : 1;
}
