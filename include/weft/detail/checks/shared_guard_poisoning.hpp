// The memory check of `__shared__` arrays, in a build with AddressSanitizer.
//
// A `__shared__` variable is a thread-local of the worker (cuda/keywords.hpp),
// and neither GCC nor Clang gives thread-locals redzones. So keywords.hpp
// puts a guard, a 32-byte thread-local that nothing touches, before each
// `__shared__` declaration, and each thread that runs blocks poisons its
// guards before its first block: an overrun of a `__shared__` array then
// lands in a guard (the one of the next declaration, or of its own), ASan
// reports "use-after-poison", and the memory check names the array
// (describe_shared_guard_access).
//
// The guards are found in the executable's symbol table (its STT_TLS
// symbols named "weft_shared_guard_<n>", whose values are offsets in the
// static TLS block), read once per process. The compilers lay a function's
// thread-locals out in declaration order (Clang, GCC at -O0) or in the
// reverse order (GCC when optimising), so a guard may sit before or after
// its variable; with each unit's edge guards (shared_guard.hpp) every
// `__shared__` variable has one on each side, unless the compiler put a
// plain thread-local beside it, and what a report names is the variable
// nearest the bad address. The alignment padding on either side of a guard
// is poisoned with it, and so is any padding beside a `__shared__`
// variable. Included in builds with ASan only (shared_guards.hpp, which
// declares what the rest of weft calls).
#pragma once

#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "weft/detail/base/text_format.hpp"
#include "weft/detail/checks/memory_poisoning.hpp"
#include "weft/detail/checks/shared_guard.hpp"
#include "weft/detail/checks/shared_guards.hpp"
#include "weft/detail/fibers/fiber_sanitizer.hpp"

namespace weft::detail {

/// A thread-local variable of the executable: where it lies in the static
/// TLS block, and its name as C++ spells it.
struct tls_variable {
  std::uintptr_t offset = 0;
  std::uintptr_t size = 0;
  std::string name;
  bool shared = false;  // a `__shared__` variable: in the scope of a guard beside it
};

/// A poisoned range of the static TLS block around one guard, and the
/// variables on either side of it.
struct shared_guard_range {
  std::uintptr_t begin = 0, end = 0;  // offsets
  const tls_variable* before = nullptr;
  const tls_variable* after = nullptr;
};

/// The executable's guards, read from its symbol table once.
struct shared_guard_layout {
  std::vector<tls_variable> variables;  // sorted by offset; guards left out
  std::vector<shared_guard_range> guards;
};

/// "k1(int, float*)::tile" for "_ZZ2k1iPfE4tile". GCC names a coroutine's
/// statics after its "actor" function, which the demangler does not read
/// ("_ZZ1kP...Frame.actorE4tile"): then the function's and the variable's
/// names alone, "k::tile"; the symbol itself where it is no C++ name.
inline std::string demangled_symbol(const char* symbol) {
  int status = 0;
  char* text = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  std::string name = status == 0 && text ? std::string(text) : std::string();
  std::free(text);
  if (!name.empty()) return name;
  std::string_view mangled(symbol);
  // A block-scope static: "_ZZ" <length><function> ... "E" <length><name>.
  auto identifier_at = [&](std::size_t at) {
    std::size_t length = 0, digits = at;
    while (digits < mangled.size() && mangled[digits] >= '0' && mangled[digits] <= '9')
      length = length * 10 + static_cast<std::size_t>(mangled[digits++] - '0');
    return digits > at && digits + length <= mangled.size() ? mangled.substr(digits, length) : std::string_view{};
  };
  std::string_view function = mangled.substr(0, 3) == "_ZZ" ? identifier_at(3) : std::string_view{};
  std::size_t last_scope_end = mangled.rfind('E');
  std::string_view variable =
      last_scope_end != std::string_view::npos ? identifier_at(last_scope_end + 1) : std::string_view{};
  if (function.empty() || variable.empty()) return std::string(mangled);
  return std::string(function) + "::" + std::string(variable);
}

/// The scope a guard's symbol names, which its `__shared__` variable's
/// symbol starts with too: "_ZZ2k1iPfE" of "_ZZ2k1iPfE19weft_shared_guard_0";
/// empty for a unit's edge guards ("weft_shared_guard_edge_tcommon").
inline std::string_view guard_scope(std::string_view guard_symbol) {
  std::size_t at = guard_symbol.find(shared_guard_name_marker);
  while (at > 0 && guard_symbol[at - 1] >= '0' && guard_symbol[at - 1] <= '9') --at;  // the name's length
  return guard_symbol.substr(0, at);
}

/// The scope of a block-scope static's symbol, as guard_scope gives it:
/// "_ZZ2k1iPfE" of "_ZZ2k1iPfE4tile"; empty for other symbols.
inline std::string_view static_variable_scope(std::string_view symbol) {
  // The symbol ends in "E" <length><identifier>; try each identifier length.
  for (std::size_t length = 1; length + 2 < symbol.size(); ++length) {
    std::string digits = std::to_string(length);
    std::size_t digits_at = symbol.size() - length - digits.size();
    if (digits_at < 1 || digits_at > symbol.size()) break;
    if (symbol.substr(digits_at, digits.size()) == digits && symbol[digits_at - 1] == 'E')
      return symbol.substr(0, digits_at);
  }
  return {};
}

/// Reads the guards and thread-local variables of the executable's symbol
/// table (an executable without one, stripped, has no guards found).
inline shared_guard_layout read_shared_guard_layout() {
  shared_guard_layout layout;
  int fd = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return layout;
  struct stat file {};
  void* mapped = MAP_FAILED;
  if (::fstat(fd, &file) == 0 && static_cast<std::size_t>(file.st_size) > sizeof(ElfW(Ehdr)))
    mapped = ::mmap(nullptr, static_cast<std::size_t>(file.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (mapped == MAP_FAILED) return layout;
  const auto* bytes = static_cast<const unsigned char*>(mapped);
  const std::size_t file_size = static_cast<std::size_t>(file.st_size);
  const auto& header = *reinterpret_cast<const ElfW(Ehdr)*>(bytes);
  struct named_symbol {
    const ElfW(Sym) * symbol;
    const char* name;
    bool guard;
  };
  std::vector<named_symbol> symbols;
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 &&
      header.e_shoff + std::size_t{header.e_shnum} * sizeof(ElfW(Shdr)) <= file_size) {
    const auto* sections = reinterpret_cast<const ElfW(Shdr)*>(bytes + header.e_shoff);
    for (unsigned i = 0; i < header.e_shnum; ++i) {
      const ElfW(Shdr)& table = sections[i];
      if (table.sh_type != SHT_SYMTAB || table.sh_link >= header.e_shnum) continue;
      const ElfW(Shdr)& strings = sections[table.sh_link];
      if (table.sh_offset + table.sh_size > file_size || strings.sh_offset + strings.sh_size > file_size) continue;
      const auto* first = reinterpret_cast<const ElfW(Sym)*>(bytes + table.sh_offset);
      const std::size_t count = table.sh_size / sizeof(ElfW(Sym));
      const char* names = reinterpret_cast<const char*>(bytes + strings.sh_offset);
      for (std::size_t k = 0; k < count; ++k) {
        const ElfW(Sym)& s = first[k];
        if (ELF64_ST_TYPE(s.st_info) != STT_TLS || s.st_size == 0 || s.st_name >= strings.sh_size) continue;
        const char* name = names + s.st_name;
        symbols.push_back({&s, name, std::strstr(name, shared_guard_name_marker) != nullptr});
      }
    }
  }
  // By offset, a variable before a guard at the same offset.
  std::sort(symbols.begin(), symbols.end(), [](const named_symbol& a, const named_symbol& b) {
    return a.symbol->st_value != b.symbol->st_value ? a.symbol->st_value < b.symbol->st_value : !a.guard && b.guard;
  });
  // One entry per variable: a symbol may appear twice (a weak one and its
  // definition).
  symbols.erase(std::unique(symbols.begin(), symbols.end(),
                            [](const named_symbol& a, const named_symbol& b) {
                              return a.symbol->st_value == b.symbol->st_value;
                            }),
                symbols.end());
  // A guard that overlaps a variable is no guard: gold gives `.tcommon`
  // (shared_guard.hpp) the offsets of `.tbss`'s start, where a variable may be.
  auto end_of = [&](std::size_t k) { return symbols[k].symbol->st_value + symbols[k].symbol->st_size; };
  std::vector<named_symbol> kept;
  for (std::size_t k = 0; k < symbols.size(); ++k) {
    const bool overlaps = (k > 0 && end_of(k - 1) > symbols[k].symbol->st_value) ||
                          (k + 1 < symbols.size() && symbols[k + 1].symbol->st_value < end_of(k));
    if (!symbols[k].guard || !overlaps) kept.push_back(symbols[k]);
  }
  symbols.swap(kept);
  // Each guard, with the variables beside it; variables are kept in full
  // (their names demangled) only beside a guard.
  std::vector<std::size_t> variable_of(symbols.size(), ~std::size_t{0});
  std::vector<std::string_view> scopes;
  auto keep = [&](std::size_t k, std::string_view scope) {
    if (variable_of[k] == ~std::size_t{0}) {
      variable_of[k] = layout.variables.size();
      layout.variables.push_back(
          {symbols[k].symbol->st_value, symbols[k].symbol->st_size, demangled_symbol(symbols[k].name), false});
    }
    tls_variable& v = layout.variables[variable_of[k]];
    // A unit's edge guards (shared_guard.hpp) have no scope: their
    // neighbours are `__shared__` only where a guard of theirs says so.
    v.shared = v.shared || (!scope.empty() && std::string_view(symbols[k].name).substr(0, scope.size()) == scope);
    return variable_of[k];
  };
  struct guard_neighbours {
    std::size_t guard, before, after;
  };
  std::vector<guard_neighbours> found;
  for (std::size_t k = 0; k < symbols.size(); ++k) {
    if (!symbols[k].guard) continue;
    std::string_view scope = guard_scope(symbols[k].name);
    std::size_t before = ~std::size_t{0}, after = ~std::size_t{0};
    if (k > 0 && !symbols[k - 1].guard) before = keep(k - 1, scope);
    if (k + 1 < symbols.size() && !symbols[k + 1].guard) after = keep(k + 1, scope);
    found.push_back({k, before, after});
  }
  // Padding beside a `__shared__` variable (a static of a function whose
  // guards the table has) that no guard closes: where its other neighbour is
  // a plain thread-local, or the second of `__shared__ float a[4], b[4];`.
  // Alignment often leaves some (every `__shared__` variable is aligned to
  // 128 bytes), and no correct access reaches it.
  std::vector<std::string_view> guarded_scopes;
  for (const guard_neighbours& g : found)
    if (std::string_view scope = guard_scope(symbols[g.guard].name); !scope.empty()) guarded_scopes.push_back(scope);
  std::sort(guarded_scopes.begin(), guarded_scopes.end());
  struct padding {
    std::size_t before, after;  // the symbols on either side
  };
  std::vector<padding> paddings;
  auto guarded_scope_of = [&](std::size_t k) {
    std::string_view scope = static_variable_scope(symbols[k].name);
    return std::binary_search(guarded_scopes.begin(), guarded_scopes.end(), scope) ? scope : std::string_view{};
  };
  for (std::size_t k = 0; k < symbols.size(); ++k) {
    if (symbols[k].guard || guarded_scope_of(k).empty()) continue;
    if (k > 0 && !symbols[k - 1].guard && end_of(k - 1) < symbols[k].symbol->st_value &&
        (paddings.empty() || paddings.back().after != k))
      paddings.push_back({k - 1, k});
    if (k + 1 < symbols.size() && !symbols[k + 1].guard && end_of(k) < symbols[k + 1].symbol->st_value)
      paddings.push_back({k, k + 1});
  }
  // The poisoned range runs from the end of whatever precedes the guard to
  // the start of whatever follows it (the padding alignment left).
  for (const guard_neighbours& g : found) {
    const ElfW(Sym)& s = *symbols[g.guard].symbol;
    shared_guard_range range{s.st_value, s.st_value + s.st_size, nullptr, nullptr};
    if (g.guard > 0) {
      const ElfW(Sym)& previous = *symbols[g.guard - 1].symbol;
      range.begin = std::min<std::uintptr_t>(range.begin, previous.st_value + previous.st_size);
    }
    if (g.guard + 1 < symbols.size())
      range.end = std::max<std::uintptr_t>(range.end, symbols[g.guard + 1].symbol->st_value);
    layout.guards.push_back(range);
  }
  for (const padding& p : paddings) {
    found.push_back(
        {~std::size_t{0}, keep(p.before, guarded_scope_of(p.before)), keep(p.after, guarded_scope_of(p.after))});
    layout.guards.push_back({end_of(p.before), symbols[p.after].symbol->st_value, nullptr, nullptr});
  }
  // Pointers into `variables` once it has stopped growing.
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (found[i].before != ~std::size_t{0}) layout.guards[i].before = &layout.variables[found[i].before];
    if (found[i].after != ~std::size_t{0}) layout.guards[i].after = &layout.variables[found[i].after];
  }
  ::munmap(mapped, file_size);
  return layout;
}

inline const shared_guard_layout& shared_guards() {
  static const shared_guard_layout layout = read_shared_guard_layout();
  return layout;
}

/// The calling thread's static TLS block of the executable: 0 where none.
inline std::uintptr_t executable_tls_block() {
  std::uintptr_t block = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        for (int i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_TLS)
            *static_cast<std::uintptr_t*>(out) = reinterpret_cast<std::uintptr_t>(info->dlpi_tls_data);
        return 1;  // the executable comes first
      },
      &block);
  return block;
}

/// Where the calling thread's guards lie (its TLS block), once they are poisoned.
inline thread_local std::uintptr_t poisoned_shared_guards_at = 0;

inline void poison_shared_guards() {
  if (poisoned_shared_guards_at) [[likely]]
    return;
  const std::uintptr_t block = executable_tls_block();
  if (!block) return;
  for (const shared_guard_range& g : shared_guards().guards)
    poison_memory(reinterpret_cast<const void*>(block + g.begin), g.end - g.begin);
  poisoned_shared_guards_at = block;
}

/// "n bytes past the k-byte __shared__ 'tile' of kernel(float*)" (or "before").
inline std::string describe_beside(const tls_variable& variable, bool past, std::uintptr_t distance) {
  std::string text;
  append_format(text, "%llu bytes %s", static_cast<unsigned long long>(distance), past ? "past" : "before");
  // "k1(int, float*)::tile" is 'tile' of k1(int, float*).
  std::string_view name = variable.name;
  std::string_view scope;
  if (auto colons = name.rfind("::"); colons != std::string_view::npos) {
    scope = name.substr(0, colons);
    name = name.substr(colons + 2);
  }
  append_format(text, " the %llu-byte %s '%.*s'", static_cast<unsigned long long>(variable.size),
                variable.shared ? "__shared__" : "thread-local", static_cast<int>(name.size()), name.data());
  if (!scope.empty()) append_format(text, " of %.*s", static_cast<int>(scope.size()), scope.data());
  return text;
}

inline std::string describe_shared_guard_access(std::uintptr_t address) {
  const std::uintptr_t block = poisoned_shared_guards_at;
  if (!block || address < block) return {};
  const std::uintptr_t offset = address - block;
  const shared_guard_layout& layout = shared_guards();
  for (const shared_guard_range& g : layout.guards) {
    if (offset < g.begin || offset >= g.end) continue;
    const tls_variable* before = g.before;
    const tls_variable* after = g.after;
    // The nearer of the two: an overrun of the one before, or an underrun of
    // the one after.
    const bool past = before && (!after || offset - (before->offset + before->size) < after->offset - offset);
    const tls_variable* nearest = past ? before : after;
    if (!nearest) {
      std::string text;
      append_format(text, "%llu bytes inside a guard beside the __shared__ variables",
                    static_cast<unsigned long long>(offset - g.begin));
      return text;
    }
    return past ? describe_beside(*nearest, true, offset - (before->offset + before->size))
                : describe_beside(*nearest, false, after->offset - offset);
  }
  // An access that starts just past a `__shared__` variable, in a small
  // thread-local the compiler put there (Clang's one-byte `__tls_guard`
  // after a unit's last), and runs on into a guard: ASan reports its first
  // byte, which is no guard's.
  constexpr std::uintptr_t granule = 8;
  const tls_variable* overrun = nullptr;
  for (const tls_variable& v : layout.variables)
    if (v.shared && v.offset + v.size <= offset && offset - (v.offset + v.size) < granule &&
        (!overrun || v.offset > overrun->offset))
      overrun = &v;
  if (!overrun) return {};
  const bool guard_follows = std::any_of(layout.guards.begin(), layout.guards.end(), [&](const shared_guard_range& g) {
    return g.begin > offset && g.begin - offset < granule;
  });
  return guard_follows ? describe_beside(*overrun, true, offset - (overrun->offset + overrun->size)) : std::string();
}

}  // namespace weft::detail
