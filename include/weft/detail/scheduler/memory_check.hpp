// The memory check: in a build with AddressSanitizer, a bad access made by
// a CUDA thread is reported as compute-sanitizer's memcheck reports it on a
// GPU, in CUDA's terms first and with ASan's own report after:
//
//   ========= Invalid __global__ write of size 4 bytes
//   =========     at /src/prog.cu:12 in oob(int*, int)
//   =========     by thread (36,0,0) in block (1,0,0) of kernel 'oob(int*, int)' <<<(2,1,1), (64,1,1)>>>
//   =========     Address 0x619000000390 is 0 bytes past a 400-byte allocation made by cudaMalloc at /src/prog.cu:20
//
// ASan calls the hook __asan_on_error once it has found the error and
// before it prints anything of it but its opening line. There, ASan holds
// its thread registry's lock: so the hook asks ASan only what needs none
// (the report's access, the heap chunk of a heap address, the allocation
// and free stacks), and finds the rest in weft's own state (the running
// kernel, block and thread) and through the symbolizer. A program built to
// go on after an error (-fsanitize-recover=address, ASAN_OPTIONS=
// halt_on_error=0) then has the launch fail with cudaErrorIllegalAddress,
// sticky as on a GPU (block_executor::fail_bad_access); otherwise ASan ends
// the process after its report, as it does for any error.
//
// The hook is a function that ASan's runtime defines weakly, to be replaced
// by the program's. A header-only library defines it in every translation
// unit, and an inline (weak) definition loses to the runtime's where the
// runtime is linked first (Clang's static runtime). So it is defined in a
// section group (COMDAT) of its own: the linker keeps one of the groups,
// and the global definition in it overrides the runtime's weak one. It
// jumps to weft's hook, an ordinary inline function (asan_error_hook.hpp,
// which grid_job.hpp includes in builds with ASan).
#pragma once

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <unistd.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "weft/detail/base/text_format.hpp"
#include "weft/detail/checks/ported_kernel_name.hpp"
#include "weft/detail/checks/shared_guards.hpp"
#include "weft/detail/coroutine_executor/stackless_block_executor.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/fibers/fiber_sanitizer.hpp"
#include "weft/detail/scheduler/programmatic_launch.hpp"

extern "C" {
// As <sanitizer/asan_interface.h> and <sanitizer/common_interface_defs.h>
// declare them (see fiber_sanitizer.hpp for why weft declares them itself).
void* __asan_get_report_pc(void);
void* __asan_get_report_address(void);
int __asan_get_report_access_type(void);
std::size_t __asan_get_report_access_size(void);
const char* __asan_get_report_description(void);
const char* __asan_locate_address(void* addr, char* name, std::size_t name_size, void** region_address,
                                  std::size_t* region_size);
std::size_t __asan_get_alloc_stack(void* addr, void** trace, std::size_t size, int* thread_id);
std::size_t __asan_get_free_stack(void* addr, void** trace, std::size_t size, int* thread_id);
int __asan_address_is_poisoned(void const volatile* addr);
void __sanitizer_symbolize_pc(void* pc, const char* fmt, char* out_buf, std::size_t out_buf_size);
void __sanitizer_symbolize_global(void* data_ptr, const char* fmt, char* out_buf, std::size_t out_buf_size);
}

namespace weft::detail::memory_check {

/// compute-sanitizer's prefix of every line it reports.
inline constexpr const char* line_prefix = "========= ";

/// One frame of a symbolized stack: the function and its file:line.
struct source_frame {
  std::string function;
  std::string place;  // "file:line", or empty where there is no debug information
};

/// The frames of one return address or faulting instruction, innermost
/// (most inlined) first.
inline void symbolize(void* pc, source_frame* frames, std::size_t& count, std::size_t room) {
  char text[4096];
  text[0] = text[1] = '\0';
  __sanitizer_symbolize_pc(pc, "%f\x1f%s:%l", text, sizeof text);
  // Several NUL-terminated strings, one per inlined frame, then an empty one.
  for (const char* piece = text; *piece && count < room; piece += std::strlen(piece) + 1) {
    std::string_view whole(piece);
    auto separator = whole.find('\x1f');
    source_frame frame;
    frame.function = std::string(whole.substr(0, separator));
    if (separator != std::string_view::npos) {
      std::string_view place = whole.substr(separator + 1);
      // Line 0 is code the compiler made for no line of its own (stores
      // that two branches share, say): the file alone is known.
      if (place.size() > 2 && place.substr(place.size() - 2) == ":0") place.remove_suffix(2);
      if (place.substr(0, 6) != "<null>" && place.substr(0, 2) != "??") frame.place = std::string(place);
    }
    frames[count++] = std::move(frame);
  }
}

/// Whether a frame is weft's own code: a header under include/weft/.
inline bool in_weft(const source_frame& frame) {
  return frame.place.find("include/weft/") != std::string::npos ||
         frame.place.find("include/weft.hpp") != std::string::npos;
}

/// Whether a frame is library code a kernel calls: weft's or the C++
/// standard library's (weft's atomics are std::atomic_ref's).
inline bool in_library(const source_frame& frame) {
  return in_weft(frame) || frame.place.find("/include/c++/") != std::string::npos ||
         frame.place.find("/c++/v1/") != std::string::npos;
}

/// Whether a frame is the sanitizer runtime's own (GCC's libasan has lines).
inline bool in_sanitizer_runtime(const source_frame& frame) {
  return frame.place.find("libsanitizer/") != std::string::npos ||
         frame.place.find("compiler-rt/") != std::string::npos;
}

/// The function's own name in a symbolized signature: "cudaMalloc" from
/// "cudaError cudaMalloc<int>(int**, unsigned long)".
inline std::string_view bare_name(std::string_view signature) {
  std::string_view head = signature.substr(0, signature.find('('));
  if (auto angle = head.find('<'); angle != std::string_view::npos) head = head.substr(0, angle);
  if (auto space = head.rfind(' '); space != std::string_view::npos) head = head.substr(space + 1);
  if (auto scope = head.rfind("::"); scope != std::string_view::npos) head = head.substr(scope + 2);
  return head;
}

/// A CUDA runtime or driver API function's name: cudaMalloc, cuMemAlloc.
inline bool is_cuda_api(std::string_view name) {
  return name.substr(0, 4) == "cuda" ||
         (name.size() > 2 && name.substr(0, 2) == "cu" && std::isupper(static_cast<unsigned char>(name[2])));
}

/// Who made an allocation or freed it, from the stack ASan kept: "cudaMalloc
/// at /src/prog.cu:20", the outermost CUDA API function on it and the
/// program's line that called it; "at /src/prog.cu:20" where no CUDA API
/// function is on it (memory the program allocated itself, or a build whose
/// debug information lost the call's frame); "cudaMalloc" where no line of
/// the program is. Empty where the stack has neither.
inline std::string describe_stack(void* const* pcs, std::size_t depth) {
  constexpr std::size_t room = 96;
  source_frame frames[room];
  std::size_t count = 0;
  for (std::size_t i = 0; i < depth && count < room; ++i) symbolize(pcs[i], frames, count, room);
  // Innermost first: the sanitizer's own frames (operator new, malloc,
  // backtrace), then weft's, then the program's. Where no weft frame is
  // there (memory the program allocated itself), the first frame with a
  // line outside the sanitizer's runtime is the program's. A frame at a
  // line of the C++ library's headers is not the program's either: at -O2
  // a return address inside weft's code may carry the line of library code
  // inlined beside the call (GCC 12, -g1).
  std::size_t first_weft = 0;
  while (first_weft < count && !in_weft(frames[first_weft])) ++first_weft;
  std::string api;
  const source_frame* caller = nullptr;
  for (std::size_t i = first_weft < count ? first_weft : 0; i < count; ++i) {
    std::string_view name = bare_name(frames[i].function);
    if (in_weft(frames[i]) && is_cuda_api(name)) api = std::string(name);
    if (in_library(frames[i]) || frames[i].place.empty() || in_sanitizer_runtime(frames[i])) continue;
    caller = &frames[i];
    break;
  }
  std::string text = api;
  if (caller) {
    if (!text.empty()) text += ' ';
    text += "at ";
    text += caller->place;
  }
  return text;
}

/// Who, from describe_stack, after a verb: "by cudaMalloc at
/// /src/prog.cu:20", or "at /src/prog.cu:20" where no CUDA API function is
/// known.
inline std::string by_whom(const std::string& who) { return who.compare(0, 3, "at ") == 0 ? who : "by " + who; }

/// `verb` ("made", "freed") and who: "made by cudaMalloc at /src/prog.cu:20",
/// "made at /src/prog.cu:20"; empty where `who` is.
inline std::string attributed(const char* verb, const std::string& who) {
  return who.empty() ? std::string() : std::string(verb) + " " + by_whom(who);
}

/// The allocation and free stacks ASan keeps of a heap address.
inline std::string describe_heap_history(void* address, bool freed) {
  void* pcs[64];
  int thread = 0;
  std::string text;
  std::string made = describe_stack(pcs, __asan_get_alloc_stack(address, pcs, 64, &thread));
  if (!made.empty()) text += " " + attributed("made", made);
  if (freed) {
    std::string gone = describe_stack(pcs, __asan_get_free_stack(address, pcs, 64, &thread));
    text += "; ";
    text += attributed("freed", gone.empty() ? std::string("weft") : gone);
  }
  return text;
}

/// "4 bytes past", "16 bytes before", "8 bytes inside"
inline std::string offset_phrase(std::uintptr_t address, std::uintptr_t begin, std::uintptr_t end) {
  std::string text;
  if (address >= end)
    append_format(text, "%llu bytes past", static_cast<unsigned long long>(address - end));
  else if (address < begin)
    append_format(text, "%llu bytes before", static_cast<unsigned long long>(begin - address));
  else
    append_format(text, "%llu bytes inside", static_cast<unsigned long long>(address - begin));
  return text;
}

/// Where a CUDA thread's bad access went, and the memory space a GPU's
/// memcheck would name ("__global__", "__shared__", "__local__").
struct missed_memory {
  const char* space = "__global__";
  std::string description;  // "0 bytes past a 400-byte allocation made by cudaMalloc at ..."
};

/// The global variable (a `__device__` or `__constant__` array) whose
/// redzone `address` is in: its end is where the redzone begins (the
/// shadow memory says), its name the symbolizer's for its last byte, its
/// start that of its symbol (dladdr: a program linked with -rdynamic, as
/// weft's are) or, failing that, where addressable memory begins before it
/// (which may take in a neighbour with no redzone of its own).
inline std::string describe_global(std::uintptr_t address) {
  constexpr std::uintptr_t search = 1u << 20;
  auto poisoned = [](std::uintptr_t a) { return __asan_address_is_poisoned(reinterpret_cast<const void*>(a)) != 0; };
  std::uintptr_t end = address;
  while (end > address - search && poisoned(end - 1)) --end;
  const auto last = reinterpret_cast<void*>(end - 1);
  std::uintptr_t begin = end;
  Dl_info info{};
  void* entry = nullptr;
  const bool found = ::dladdr1(last, &info, &entry, RTLD_DL_SYMENT) != 0;
  const auto* symbol = static_cast<const ElfW(Sym)*>(entry);
  if (found && info.dli_saddr && symbol && reinterpret_cast<std::uintptr_t>(info.dli_saddr) + symbol->st_size >= end) {
    begin = reinterpret_cast<std::uintptr_t>(info.dli_saddr);
  } else {
    while (begin > end - (search << 6) && !poisoned(begin - 1)) --begin;
  }
  char name[512] = "";
  __sanitizer_symbolize_global(last, "%g", name, sizeof name);
  std::string text = offset_phrase(address, begin, end);
  append_format(text, " the %llu-byte global '%s' (a __device__ or __constant__ variable)",
                static_cast<unsigned long long>(end - begin), name[0] ? name : "?");
  return text;
}

/// What the address of the reported access is, in CUDA's terms.
inline missed_memory describe_missed(const block_executor& block, void* address, std::string_view kind) {
  missed_memory missed;
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  const auto shared = reinterpret_cast<std::uintptr_t>(block.dynamic_shared());
  auto describe_shared = [&] {
    missed.space = "__shared__";
    missed.description = offset_phrase(a, shared, shared + block.dynamic_shared_size());
    append_format(missed.description, " the %zu bytes of dynamic shared memory the launch gave each block",
                  block.dynamic_shared_size());
    return missed;
  };
  if (kind == "use-after-poison" && shared && a >= shared && a < shared + block.dynamic_shared_capacity())
    return describe_shared();
  if constexpr (fiber_sanitizer::address_sanitizer) {
    // A guard beside a `__shared__` variable.
    std::string guarded = kind == "use-after-poison" ? describe_shared_guard_access(a) : std::string();
    if (!guarded.empty()) {
      missed.space = "__shared__";
      missed.description = std::move(guarded);
      return missed;
    }
  }
  if (kind == "use-after-poison" && describe_address_near_allocation) {
    // Memory weft maps itself and poisoned past what was asked for: a
    // graph's memory node (graphs/graph_memory.hpp).
    std::string near = describe_address_near_allocation(address);
    if (near.size() > 2) {
      missed.description = near.substr(2);  // after its "; "
      return missed;
    }
  }
  if (kind.substr(0, 5) == "heap-") {
    // ASan's description of a heap address takes no lock (a stack or
    // global one does: see the top of this file).
    void* region = nullptr;
    std::size_t size = 0;
    char name[8];
    __asan_locate_address(address, name, sizeof name, &region, &size);
    const auto begin = reinterpret_cast<std::uintptr_t>(region);
    if (shared && begin == shared) return describe_shared();
    const bool freed = kind == "heap-use-after-free";
    missed.description = offset_phrase(a, begin, begin + size);
    append_format(missed.description, " a %zu-byte allocation", size);
    missed.description += describe_heap_history(region ? region : address, freed);
    return missed;
  }
  if (kind == "global-buffer-overflow") {
    missed.description = describe_global(a);
    return missed;
  }
  if (kind.substr(0, 6) == "stack-") {
    missed.space = "__local__";
    missed.description = "on the CUDA thread's own stack, beside a local variable (";
    missed.description += kind;
    missed.description += ')';
    return missed;
  }
  missed.description = "memory no allocation holds (";
  missed.description += kind;
  missed.description += ')';
  return missed;
}

inline void write_out(const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

/// The program's line that made the reported access: the faulting
/// instruction's, or where that is in library code (weft's atomics, a copy
/// that a kernel called), the first caller outside the libraries and the
/// sanitizer's runtime, from the inlined frames of the instruction or else
/// the stack.
inline source_frame program_site() {
  constexpr std::size_t room = 64;
  source_frame frames[room];
  std::size_t count = 0;
  symbolize(__asan_get_report_pc(), frames, count, room);
  if (count == 0 || !in_library(frames[0])) return count ? frames[0] : source_frame{};
  for (std::size_t i = 1; i < count; ++i)
    if (!in_library(frames[i]) && !frames[i].place.empty()) return frames[i];
  void* stack[32];
  int depth = ::backtrace(stack, 32);
  std::size_t all = 0;
  for (int i = 0; i < depth && all < room; ++i) symbolize(stack[i], frames, all, room);
  bool passed_weft = false;
  for (std::size_t i = 0; i < all; ++i) {
    if (in_library(frames[i])) {
      passed_weft = true;
    } else if (passed_weft && !frames[i].place.empty() && !in_sanitizer_runtime(frames[i])) {
      return frames[i];
    }
  }
  return {};
}

/// The hook: a bad access that ASan found. Only a CUDA thread's is weft's.
inline void on_error() {
  block_executor* block = running_block;
  stackless_block_executor* stackless = running_stackless_block;
  // A stackless block's dynamic shared memory is its worker's fiber executor's.
  const block_executor* shared_owner = block ? block : stackless ? stackless->host() : nullptr;
  if (!shared_owner) return;
  void* address = __asan_get_report_address();
  const char* kind = __asan_get_report_description();
  const char* access = __asan_get_report_access_type() ? "write" : "read";
  const std::size_t size = __asan_get_report_access_size();
  missed_memory missed = describe_missed(*shared_owner, address, kind ? kind : "");

  const source_frame site = program_site();
  std::string at = site.place.empty() ? std::string("an unknown line") : site.place;
  const std::string function = user_function_name(site.function);

  const uint3 thread = threadIdx;
  const uint3 in_block = blockIdx;
  const command* grid = running_programmatic.grid;
  std::string kernel = grid ? grid->describe() : std::string("a kernel");

  std::string text;
  append_format(text, "%sInvalid %s %s of size %zu bytes\n", line_prefix, missed.space, access, size);
  append_format(text, "%s    at %s", line_prefix, at.c_str());
  if (!function.empty()) text += " in " + function;
  append_format(text, "\n%s    by thread (%u,%u,%u) in block (%u,%u,%u) of %s\n", line_prefix, thread.x, thread.y,
                thread.z, in_block.x, in_block.y, in_block.z, kernel.c_str());
  append_format(text, "%s    Address %p is %s\n", line_prefix, address, missed.description.c_str());
  append_format(text, "%s    (AddressSanitizer's report of the same access follows)\n", line_prefix);
  write_out(text);

  std::string report;
  append_format(report, "invalid %s %s of size %zu bytes at %s; address %p is %s", missed.space, access, size,
                at.c_str(), address, missed.description.c_str());
  if (block)
    block->fail_bad_access(report);
  else
    stackless->fail_bad_access(report);
}

/// cudaFree or cudaFreeHost of memory that was freed already: CUDA returns
/// an error code, which weft keeps; with ASan, the call is also reported as
/// compute-sanitizer reports a failed API call, with where the memory was
/// made and freed. Nothing is said of a pointer ASan does not know freed.
inline void report_repeated_free([[maybe_unused]] const void* pointer, [[maybe_unused]] const char* api) {
  if constexpr (fiber_sanitizer::address_sanitizer) {
    void* pcs[64];
    int thread = 0;
    void* p = const_cast<void*>(pointer);
    std::size_t freed_depth = __asan_get_free_stack(p, pcs, 64, &thread);
    if (freed_depth == 0) return;
    std::string freed = describe_stack(pcs, freed_depth);
    std::string made = describe_stack(pcs, __asan_get_alloc_stack(p, pcs, 64, &thread));
    void* here[32];
    int depth = ::backtrace(here, 32);
    std::string call = describe_stack(here, depth > 0 ? static_cast<std::size_t>(depth) : 0);
    std::string text;
    append_format(text,
                  "%sProgram hit cudaErrorInvalidValue (error 1) due to \"invalid argument\" on CUDA API call to "
                  "%s.\n",
                  line_prefix, api);
    if (call.empty()) call = "at an unknown line";
    append_format(text, "%s    %s%s\n", line_prefix, call.compare(0, 3, "at ") == 0 ? "" : "in ", call.c_str());
    append_format(text, "%s    Address %p was freed already, %s; %s\n", line_prefix, pointer,
                  by_whom(freed.empty() ? "weft" : freed).c_str(),
                  attributed("made", made.empty() ? "weft" : made).c_str());
    write_out(text);
  }
}

}  // namespace weft::detail::memory_check
