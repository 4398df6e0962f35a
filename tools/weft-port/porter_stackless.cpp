// porter: stackless kernels, which convert and how; spins, cooperative groups, kernels of C linkage (see porter.hpp).
#include "one_of.hpp"
#include "porter.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft_port_tool {

std::optional<std::string_view> porter::awaitable_for(std::string_view name) {
  static constexpr std::pair<std::string_view, std::string_view> names[] = {
      {"__syncthreads", "syncthreads"},
      {"__syncthreads_count", "syncthreads_count"},
      {"__syncthreads_and", "syncthreads_and"},
      {"__syncthreads_or", "syncthreads_or"},
      {"__syncwarp", "syncwarp"},
      {"__shfl_sync", "shfl_sync"},
      {"__shfl_up_sync", "shfl_up_sync"},
      {"__shfl_down_sync", "shfl_down_sync"},
      {"__shfl_xor_sync", "shfl_xor_sync"},
      {"__all_sync", "all_sync"},
      {"__any_sync", "any_sync"},
      {"__ballot_sync", "ballot_sync"},
      {"__match_any_sync", "match_any_sync"},
      {"__match_all_sync", "match_all_sync"},
      {"__reduce_add_sync", "reduce_add_sync"},
      {"__reduce_min_sync", "reduce_min_sync"},
      {"__reduce_max_sync", "reduce_max_sync"},
      {"__reduce_and_sync", "reduce_and_sync"},
      {"__reduce_or_sync", "reduce_or_sync"},
      {"__reduce_xor_sync", "reduce_xor_sync"},
      {"__activemask", "activemask"},
  };
  for (const auto& [cuda, weft] : names)
    if (cuda == name) return weft;
  return std::nullopt;
}

std::optional<std::string_view> porter::unconvertible(std::string_view name) {
  static constexpr std::pair<std::string_view, std::string_view> names[] = {
      {"__shfl", "uses a pre-CUDA 9 warp function"},
      {"__shfl_up", "uses a pre-CUDA 9 warp function"},
      {"__shfl_down", "uses a pre-CUDA 9 warp function"},
      {"__shfl_xor", "uses a pre-CUDA 9 warp function"},
      {"__all", "uses a pre-CUDA 9 warp function"},
      {"__any", "uses a pre-CUDA 9 warp function"},
      {"__ballot", "uses a pre-CUDA 9 warp function"},
      {"__barrier_sync", "uses a named barrier"},
      {"__nanosleep", "sleeps (a spin-wait: another thread of the block must run meanwhile)"},
      {"this_multi_grid", "uses a multi-device grid group (deprecated, and not awaited)"},
      {"nvcuda", "uses warp matrix functions (they wait)"},
      {"wmma", "uses warp matrix functions (they wait)"},
      {"asm", "has inline assembly"},
      {"__asm__", "has inline assembly"},
      {"__asm", "has inline assembly"},
      {"try", "has a try block (a coroutine cannot wait in a handler)"},
      {"co_await", "is a coroutine already"},
      {"co_return", "is a coroutine already"},
      {"co_yield", "is a coroutine already"},
      {"setjmp", "uses setjmp"},
  };
  for (const auto& [cuda, why] : names)
    if (cuda == name) return why;
  return std::nullopt;
}

bool porter::is_not_a_call(std::string_view name) {
  static constexpr std::string_view words[] = {"if",
                                               "for",
                                               "while",
                                               "switch",
                                               "return",
                                               "sizeof",
                                               "alignof",
                                               "decltype",
                                               "static_cast",
                                               "const_cast",
                                               "reinterpret_cast",
                                               "dynamic_cast",
                                               "noexcept",
                                               "alignas",
                                               "__align__",
                                               "static_assert",
                                               "typeid",
                                               "throw",
                                               "new",
                                               "delete",
                                               "defined",
                                               "__attribute__",
                                               "__launch_bounds__",
                                               "__declspec",
                                               "int",
                                               "unsigned",
                                               "signed",
                                               "float",
                                               "double",
                                               "char",
                                               "short",
                                               "long",
                                               "bool",
                                               "void",
                                               "auto",
                                               "size_t",
                                               "dim3",
                                               "case",
                                               "else",
                                               "do",
                                               "operator",
                                               "__restrict__",
                                               "const",
                                               "volatile",
                                               "__half",
                                               "__half2",
                                               "__nv_bfloat16",
                                               "__nv_bfloat162",
                                               "uint3"};
  if (one_of(words, name)) return true;
  if (name.ends_with("_t")) return true;  // uint32_t, ptrdiff_t, ...
  // CUDA's vector types: float4, uchar2, longlong3, ...
  static constexpr std::string_view vectors[] = {"char", "uchar", "short",    "ushort",    "int",   "uint",
                                                 "long", "ulong", "longlong", "ulonglong", "float", "double"};
  for (std::string_view v : vectors)
    if (name.size() == v.size() + 1 && name.starts_with(v) && name.back() >= '1' && name.back() <= '4') return true;
  return false;
}

bool porter::never_waits(std::string_view name) {
  static constexpr std::string_view functions[] = {"printf",
                                                   "assert",
                                                   "malloc",
                                                   "free",
                                                   "memcpy",
                                                   "memset",
                                                   "min",
                                                   "max",
                                                   "abs",
                                                   "fabs",
                                                   "fabsf",
                                                   "sqrt",
                                                   "sqrtf",
                                                   "rsqrt",
                                                   "rsqrtf",
                                                   "cbrt",
                                                   "cbrtf",
                                                   "exp",
                                                   "expf",
                                                   "exp2",
                                                   "exp2f",
                                                   "exp10",
                                                   "exp10f",
                                                   "expm1",
                                                   "expm1f",
                                                   "log",
                                                   "logf",
                                                   "log2",
                                                   "log2f",
                                                   "log10",
                                                   "log10f",
                                                   "log1p",
                                                   "log1pf",
                                                   "pow",
                                                   "powf",
                                                   "sin",
                                                   "sinf",
                                                   "cos",
                                                   "cosf",
                                                   "tan",
                                                   "tanf",
                                                   "asin",
                                                   "asinf",
                                                   "acos",
                                                   "acosf",
                                                   "atan",
                                                   "atanf",
                                                   "atan2",
                                                   "atan2f",
                                                   "sinh",
                                                   "sinhf",
                                                   "cosh",
                                                   "coshf",
                                                   "tanh",
                                                   "tanhf",
                                                   "sincos",
                                                   "sincosf",
                                                   "sinpi",
                                                   "sinpif",
                                                   "cospi",
                                                   "cospif",
                                                   "floor",
                                                   "floorf",
                                                   "ceil",
                                                   "ceilf",
                                                   "round",
                                                   "roundf",
                                                   "trunc",
                                                   "truncf",
                                                   "rint",
                                                   "rintf",
                                                   "lrint",
                                                   "lrintf",
                                                   "llrint",
                                                   "llrintf",
                                                   "lround",
                                                   "lroundf",
                                                   "llround",
                                                   "llroundf",
                                                   "fmin",
                                                   "fminf",
                                                   "fmax",
                                                   "fmaxf",
                                                   "fmod",
                                                   "fmodf",
                                                   "fma",
                                                   "fmaf",
                                                   "hypot",
                                                   "hypotf",
                                                   "erf",
                                                   "erff",
                                                   "erfc",
                                                   "erfcf",
                                                   "erfinv",
                                                   "erfinvf",
                                                   "lgamma",
                                                   "lgammaf",
                                                   "tgamma",
                                                   "tgammaf",
                                                   "copysign",
                                                   "copysignf",
                                                   "isnan",
                                                   "isinf",
                                                   "isfinite",
                                                   "signbit",
                                                   "fdividef",
                                                   "frexp",
                                                   "frexpf",
                                                   "ldexp",
                                                   "ldexpf",
                                                   "normcdf",
                                                   "normcdff",
                                                   "remainder",
                                                   "remainderf",
                                                   "umin",
                                                   "umax",
                                                   "llmin",
                                                   "llmax",
                                                   "ullmin",
                                                   "ullmax",
                                                   "saturate",
                                                   "swap",
                                                   "clock",
                                                   "clock64",
                                                   "labs",
                                                   "llabs",
                                                   "dim3",
                                                   "atomic_ref",  // cuda::atomic_ref's constructor, its members:
                                                   "load",
                                                   "store",
                                                   "exchange",
                                                   "compare_exchange_weak",
                                                   "compare_exchange_strong",
                                                   "fetch_add",
                                                   "fetch_sub",
                                                   "fetch_and",
                                                   "fetch_or",
                                                   "fetch_xor",
                                                   "fetch_min",
                                                   "fetch_max",
                                                   "atomicAdd",
                                                   "atomicSub",
                                                   "atomicMin",
                                                   "atomicMax",
                                                   "atomicInc",
                                                   "atomicDec",
                                                   "atomicAnd",
                                                   "atomicOr",
                                                   "atomicXor",
                                                   "atomicCAS",
                                                   "atomicExch",
                                                   "curand",
                                                   "curand_init",
                                                   "curand_uniform",
                                                   "curand_normal",
                                                   "curand_uniform4",
                                                   "curand_normal2",
                                                   "curand_normal4",
                                                   "curand_uniform_double",
                                                   "curand_normal_double",
                                                   "curand_log_normal",
                                                   "tex1Dfetch",
                                                   "tex1D",
                                                   "tex2D",
                                                   "tex3D",
                                                   "tex1DLayered",
                                                   "tex2DLayered",
                                                   "texCubemap",
                                                   "tex2DLod",
                                                   "tex2Dgather",
                                                   "surf1Dread",
                                                   "surf1Dwrite",
                                                   "surf2Dread",
                                                   "surf2Dwrite",
                                                   "surf3Dread",
                                                   "surf3Dwrite",
                                                   "numeric_limits",
                                                   "lowest",
                                                   "epsilon",
                                                   "infinity",
                                                   "quiet_NaN",
                                                   "move",
                                                   "forward"};
  if (one_of(functions, name)) return true;
  if (name.starts_with("make_")) return true;  // make_float4, make_int2, ...
  if (name.starts_with("atomic") && (name.ends_with("_block") || name.ends_with("_system"))) return true;
  // CUDA's intrinsics (__fmul_rn, __float2half, __ldg, __popc, __threadfence, ...):
  // those that wait are named above.
  return name.starts_with("__") && !awaitable_for(name) && !unconvertible(name);
}

porter::body_facts porter::facts_of(std::size_t from, std::size_t to, std::optional<std::size_t> params) const {
  body_facts f;
  std::set<std::string, std::less<>> groups = group_variables(params ? *params : from, to);
  std::set<std::string, std::less<>> barriers = block_barrier_variables(params ? *params : from, to);
  std::set<std::string, std::less<>> thread_pipelines = thread_pipeline_variables(params ? *params : from, to);
  std::set<std::string, std::less<>> blocks = block_variables(params ? *params : from, to);
  // The groups a pipeline may be made of: the block's names and the tiles'.
  std::set<std::string, std::less<>> pipeline_groups = blocks;
  pipeline_groups.insert(groups.begin(), groups.end());
  std::set<std::string, std::less<>> block_pipelines =
      block_pipeline_variables(params ? *params : from, to, pipeline_groups);
  std::set<std::size_t> flag_declared;
  std::map<std::string, std::string_view, std::less<>> flags = namespace_scope_flags_;
  for (auto [k, what] : flag_declarations(params ? *params : from, to)) {
    flag_declared.insert(k);
    flags[std::string(text(k))] = what;
  }
  std::vector<std::pair<std::size_t, std::size_t>> lambdas;
  auto in_lambda = [&](std::size_t i) {
    return std::any_of(lambdas.begin(), lambdas.end(), [&](auto r) { return i > r.first && i < r.second; });
  };
  for (std::size_t i = from; i < to; ++i) {
    if (t_[i].k == kind::directive) continue;
    if (is(i, "<") && run_of(i, "<") >= 3) f.refusal = "launches a kernel (dynamic parallelism)";
    // A lambda: `[` where no subscript can be, not `[[`.
    if (is(i, "[") && !is(i + 1, "[") && !(i > 0 && is(i - 1, "[")) && i > 0 &&
        !(is_identifier(i - 1) && !is_keyword(i - 1)) && !is(i - 1, "]") && !is(i - 1, ")")) {
      if (auto close = match_forward(i)) {
        std::size_t b = *close + 1;
        while (b < to && !is(b, "{") && !is(b, ";")) ++b;
        if (is(b, "{"))
          if (auto end = match_forward(b)) lambdas.emplace_back(b, *end);
      }
    }
    // On a GPU another thread of the block sets what a spin waits for; a
    // coroutine runs each thread to its next barrier, so that thread would
    // never run.
    if ((is(i, "while") || is(i, "for")) && is(i + 1, "(") && f.spin.empty())
      if (auto close = match_forward(i + 1))
        if (std::string how = loop_spin(i, *close, flags); !how.empty())
          f.spin = "line " + std::to_string(t_[i].line) + ": " + how;
    if (t_[i].k != kind::identifier) continue;
    std::string_view name = text(i);
    if (auto op = asm_opcode(i); op && named_barrier_function(*op)) {
      f.named_barrier = true;
      if (!ported_named_barriers_.contains(i)) {
        if (f.refusal.empty())
          f.refusal = "uses a named barrier (inline PTX `" + *op + "`) that weft-port does not port";
      } else if (in_lambda(i)) {
        f.waits_in_lambda = true;
      } else {
        f.named_waits.push_back(i);
      }
      continue;
    }
    // libcu++'s copies and thread-scope pipelines never wait: weft copies
    // at once (cuda/device/async/memcpy_async.hpp), so a thread's own
    // pipeline has nothing to wait for.
    bool of_cuda = i >= 2 && is(i - 1, "::") && is(i - 2, "cuda");
    if (of_cuda && is(i + 1, "(") &&
        (name == "memcpy_async" || (name == "make_pipeline" && is(i + 2, ")")) || name == "pipeline_producer_commit"))
      continue;
    if (of_cuda && name == "pipeline_consumer_wait_prior" && is(i + 1, "<")) continue;
    // A block's unified pipeline, made from the block itself
    // (`cuda::make_pipeline(block, &state)`), is awaited
    // (weft/stackless_pipeline.hpp): making it, producer_acquire and
    // consumer_wait; committing and releasing never wait.
    auto await_pipeline = [&] {
      if (in_lambda(i)) {
        f.waits_in_lambda = true;
      } else {
        f.group_waits.push_back(i);
        f.awaits_pipeline = true;
      }
    };
    if (of_cuda && name == "make_pipeline" && is(i + 1, "(") && made_of_block(i + 1, pipeline_groups)) {
      await_pipeline();
      continue;
    }
    bool of_block_pipeline =
        i >= 2 && is(i - 1, ".") && is_identifier(i - 2) && block_pipelines.contains(text(i - 2)) && is(i + 1, "(");
    if (of_block_pipeline && (name == "producer_acquire" || name == "consumer_wait")) {
      await_pipeline();
      continue;
    }
    if (of_block_pipeline && (name == "producer_commit" || name == "consumer_release" || name == "quit")) continue;
    // Any other pipeline shared by threads waits where weft-port cannot say.
    bool block_pipeline = of_cuda && ((name == "make_pipeline" && is(i + 1, "(") && !is(i + 2, ")")) ||
                                      (name == "pipeline" && is(i + 1, "<") && !is(i + 2, "cuda") &&
                                       !is(i + 2, "thread_scope_thread") && !is(i + 2, "thread_scope_block")) ||
                                      (name == "pipeline" && is(i + 1, "<") && is(i + 2, "cuda") &&
                                       !is(i + 4, "thread_scope_thread") && !is(i + 4, "thread_scope_block")));
    if (block_pipeline) {
      if (f.refusal.empty())
        f.refusal =
            "uses a cuda::pipeline shared by threads that weft-port cannot tell is made of a named block or tile "
            "(cuda::make_pipeline(group, &state[, producers or role]), the one weft-port awaits)";
      continue;
    }
    bool of_thread_pipeline =
        i >= 2 && is(i - 1, ".") && is_identifier(i - 2) && thread_pipelines.contains(text(i - 2)) && is(i + 1, "(");
    if (of_thread_pipeline && (name == "producer_acquire" || name == "producer_commit" || name == "consumer_wait" ||
                               name == "consumer_release" || name == "quit"))
      continue;
    if (auto why = unconvertible(name)) {
      if (f.refusal.empty()) f.refusal = std::string(*why);
      continue;
    }
    bool member = i > 0 && (is(i - 1, ".") || is(i - 1, "->"));
    // Cooperative groups: what maps one to one onto an awaitable of
    // weft/stackless_groups.hpp is awaited, making groups and asking their
    // ranks never waits, anything else keeps the kernel on fibers.
    if (is_groups_namespace(i) && is(i + 1, "::")) continue;
    bool qualified = i >= 2 && is(i - 1, "::") && is_groups_namespace(i - 2);
    bool of_group = member && i >= 2 && is(i - 1, ".") && is_identifier(i - 2) && groups.contains(text(i - 2));
    // A group call that waits is awaited (unless inside a lambda); one that
    // may wait but has no awaitable keeps the kernel on fibers.
    auto note_group_call = [&](bool waits, bool never_waits, std::string_view refusal) {
      if (waits) {
        if (in_lambda(i)) {
          f.waits_in_lambda = true;
        } else {
          f.group_waits.push_back(i);
          f.awaits_group = true;
        }
      } else if (!never_waits && f.refusal.empty()) {
        f.refusal = std::string(refusal) + std::string(name) + " (not awaited)";
      }
    };
    bool unqualified_group_name = !member && !(i > 0 && is(i - 1, "::")) && groups_namespace_used_ &&
                                  (group_function_waits(name) || group_name_never_waits(name));
    if (unqualified_group_name && file_function_names_.contains(name)) {
      // Overload resolution picks between the two, which weft-port cannot.
      if (f.refusal.empty())
        f.refusal = "calls `" + std::string(name) +
                    "`, which names both a function of this file and cooperative groups' (after `using namespace "
                    "cooperative_groups;`)";
      continue;
    }
    if (qualified || unqualified_group_name ||
        (!member && (name == "this_thread_block" || name == "tiled_partition" || name == "coalesced_threads" ||
                     name == "thread_block_tile"))) {
      // A tile of any size, a template parameter's included: the
      // awaitables take tiles of one warp and of 64 to 1024 threads,
      // which are all the sizes CUDA has.
      note_group_call(is(call_parenthesis(i), "(") && group_function_waits(name), group_name_never_waits(name),
                      "uses cooperative_groups::");
      continue;
    }
    // cg::memcpy_async unqualified, cooperative groups' namespace not used: not known to be cooperative groups'.
    if (name == "memcpy_async" && !member && !(i > 0 && is(i - 1, "::"))) {
      if (f.refusal.empty()) f.refusal = "calls memcpy_async, which weft-port cannot tell is cooperative groups'";
      continue;
    }
    // Any other cuda::barrier (of another scope, in an array, behind an
    // alias) may wait where weft-port cannot see it.
    if (name == "barrier" && i >= 2 && is(i - 1, "::") && is(i - 2, "cuda")) {
      std::size_t j = i + 1;
      if (is(j, "<"))
        if (auto close = angle_forward(j)) j = *close + 1;
      while (is(j, "&") || is(j, "const")) ++j;
      if (!(is_identifier(j) && barriers.contains(text(j))) && f.refusal.empty())
        f.refusal =
            "uses a cuda::barrier that weft-port cannot tell is a block-scope variable of the kernel (one of "
            "device or system scope may wait for other blocks)";
      continue;
    }
    // A block-scope cuda::barrier: its waits are awaited, arriving and
    // init(&bar, n) never wait.
    bool of_barrier = member && i >= 2 && is(i - 1, ".") && is_identifier(i - 2) && barriers.contains(text(i - 2));
    if (of_barrier && is(i + 1, "(")) {
      if (name == "arrive_and_wait" || name == "wait") {
        if (in_lambda(i)) {
          f.waits_in_lambda = true;
        } else {
          f.group_waits.push_back(i);
          f.awaits_barrier = true;
        }
      } else if (name != "arrive" && name != "arrive_and_drop" && f.refusal.empty()) {
        f.refusal = "calls a cuda::barrier's " + std::string(name) + " (not awaited)";
      }
      continue;
    }
    if (!member && name == "init" && is(i + 1, "(") && is(i + 2, "&") && is_identifier(i + 3) &&
        barriers.contains(text(i + 3)) && (is(i + 4, ",") || is(i + 4, ")")))
      continue;
    // A member of a group made in place: `cg::this_grid().thread_rank()`,
    // `cg::tiled_partition<64>(block).sync()`.
    bool of_made_group = false;
    if (member && is(i - 1, ".") && i >= 2 && is(i - 2, ")"))
      if (auto open = match_backward(i - 2); open && *open > 0) {
        std::size_t maker = *open - 1;
        if (is(maker, ">"))
          if (auto angle = match_angle_backward(maker); angle && *angle > 0) maker = *angle - 1;
        of_made_group = is_identifier(maker) && group_name_never_waits(text(maker)) &&
                        !(is(maker - 1, "::") && !is_groups_namespace(maker - 2));
      }
    if (of_made_group && is(i + 1, "(")) {
      if (!group_member_never_waits(name) && f.refusal.empty())
        f.refusal = "calls a group's " + std::string(name) +
                    " on a group it does not name (weft-port awaits a named group's: `auto grid = cg::this_grid(); "
                    "grid.sync();`)";
      continue;
    }
    if (of_group && is(i + 1, "(")) {
      note_group_call(group_member_waits(name), group_member_never_waits(name), "calls a group's ");
      continue;
    }
    if (awaitable_for(name) && !member) {
      if (!is(i + 1, "(")) {
        if (f.refusal.empty()) f.refusal = "names " + std::string(name) + " without calling it";
      } else if (in_lambda(i)) {
        f.waits_in_lambda = true;
      } else {
        f.waits.push_back(i);
      }
      continue;
    }
    if (name == "return" && !in_lambda(i)) {
      f.returns.push_back(i);
      if (!is(i + 1, ";")) f.returns_value = true;
      continue;
    }
    // An atomic's wait (groups', barriers' and pipelines' are above)
    // blocks until another thread changes the value.
    if (member && name == "wait" && is(i + 1, "(")) {
      if (f.spin.empty())
        f.spin = "line " + std::to_string(t_[i].line) +
                 ": calls .wait(), an atomic's or a barrier's wait for another thread";
      continue;
    }
    // An atomic flag's members other than wait, as an atomic's, never wait.
    static constexpr std::string_view flag_members[] = {"test", "test_and_set", "clear", "notify_one", "notify_all"};
    if (member && is(i + 1, "(") && one_of(flag_members, name)) continue;
    // `cuda::atomic_ref<int> ref(word);` declares ref: no call.
    if (flag_declared.contains(i)) continue;
    // A call: `f(`, `f<T>(`; `obj.f(` and `ns::f(` by their last name.
    std::size_t after = i + 1;
    if (is(after, "<"))
      if (auto close = angle_forward(after)) after = *close + 1;
    if (!is(after, "(")) continue;
    if (is_not_a_call(name) || is_keyword(i)) continue;
    // `float2 v(a, b);`, `Tile t(p, n);`: a type's name before it makes
    // `v` a variable initialised directly, not a function called.
    // Operators spelt as words (`k xor f(x)`) call, as `k ^ f(x)` does.
    static constexpr std::string_view type_words[] = {"int", "char", "float", "double", "auto", "const", "volatile"};
    static constexpr std::string_view operator_words[] = {"xor",    "bitand", "bitor", "compl",
                                                          "not_eq", "and_eq", "or_eq", "xor_eq"};
    if (i > 0 && is_identifier(i - 1) && !one_of(operator_words, text(i - 1)) &&
        (!is_keyword(i - 1) || one_of(type_words, text(i - 1))))
      continue;
    f.calls.emplace_back(name);
    f.call_tokens.push_back(i);
  }
  f.has_lambda = !lambdas.empty();
  return f;
}

std::vector<std::pair<std::size_t, std::string_view>> porter::flag_declarations(std::size_t from,
                                                                                std::size_t to) const {
  std::vector<std::pair<std::size_t, std::string_view>> out;
  auto ends_declarator = [&](std::size_t j) {
    return is(j, ";") || is(j, ",") || is(j, ")") || is(j, "=") || is(j, "[") || is(j, "{") || is(j, "(");
  };
  for (std::size_t i = from; i < to && i < t_.size(); ++i) {
    if (!is_identifier(i)) continue;
    std::string_view name = text(i);
    if (name == "atomic" || name == "atomic_ref" || name == "atomic_flag" ||
        (name.starts_with("atomic_") && !is(call_parenthesis(i), "("))) {  // atomic_int, not atomic_load(
      std::size_t j = i + 1;
      if (is(j, "<")) {
        auto close = angle_forward(j);
        if (!close) continue;
        j = *close + 1;
      }
      while (is(j, "*") || is(j, "&") || is(j, "const") || is(j, "volatile") || is(j, "__restrict__")) ++j;
      if (is_identifier(j) && !is_keyword(j) && ends_declarator(j + 1)) out.emplace_back(j, "atomic");
    } else if (name == "volatile") {
      // The rest of the type and the declarator: `volatile unsigned int* const flag`; a cast,
      // `(volatile int*)p`, declares nothing.
      std::size_t last = i, j = i + 1;
      for (; j < to; ++j) {
        if (is(j, "<")) {
          auto close = angle_forward(j);
          if (!close) break;
          last = j = *close;
        } else if (is_identifier(j) || is(j, "::") || is(j, "*") || is(j, "&")) {
          last = j;
        } else {
          break;
        }
      }
      if (last > i && is_identifier(last) && !is_keyword(last) && !is_not_a_call(text(last)) && ends_declarator(j))
        out.emplace_back(last, "volatile");
    }
  }
  return out;
}

std::optional<std::size_t> porter::do_of(std::size_t loop) const {
  if (!is(loop, "while") || loop == 0) return std::nullopt;
  std::size_t k = loop - 1;
  if (is(k, "}")) {
    auto open = match_backward(k);
    if (open && *open > 0 && is(*open - 1, "do")) return *open - 1;
    return std::nullopt;
  }
  if (!is(k, ";")) return std::nullopt;
  while (k > 0) {
    --k;
    if (is(k, "do")) return k;
    if (is(k, ";") || is(k, "{") || is(k, "}")) return std::nullopt;
    if (is(k, ")") || is(k, "]")) {
      auto open = match_backward(k);
      if (!open) return std::nullopt;
      k = *open;
    }
  }
  return std::nullopt;
}

std::string porter::loop_spin(std::size_t loop, std::size_t close,
                              const std::map<std::string, std::string_view, std::less<>>& flags) const {
  std::size_t body = close + 1;
  if (auto d = do_of(loop)) body = *d + 1;
  if (is(body, ";") || (is(body, "{") && is(body + 1, "}"))) return "a loop with an empty body";
  // What each round evaluates again: a while's condition, a for's
  // condition and increment (not its initialisation; a range-for none).
  std::size_t first = loop + 2, condition_end = close;
  if (is(loop, "for")) {
    first = close;
    int depth = 0;
    for (std::size_t k = loop + 2; k < close; ++k) {
      if (is_opener(k)) ++depth;
      if (is_closer(k)) --depth;
      if (depth == 0 && is(k, ";")) {
        if (first != close) {
          condition_end = k;
          break;
        }
        first = k + 1;
      }
    }
    if (first == close) return "";  // a range-for
  }
  // An endless loop (`for (;;)`, `while (true)`, `while (1)`, `do { ... }
  // while (true);`) waits on what its body tests before it breaks.
  bool endless = first == condition_end || (first + 1 == condition_end && (is(first, "true") || text(first) == "1"));
  std::size_t last = close;
  if (endless && is(body, "{"))
    if (auto end = match_forward(body)) first = body + 1, last = *end;
  static constexpr std::string_view polls[] = {
      "load", "test_and_set", "test", "compare_exchange_weak", "compare_exchange_strong", "exchange", "wait"};
  std::string where = endless ? "an endless loop whose body " : "a loop whose condition ";
  for (std::size_t k = first; k < last; ++k) {
    if (!is_identifier(k)) continue;
    std::string_view name = text(k);
    bool member = is(k - 1, ".") || is(k - 1, "->");
    if (member && is(k + 1, "(") && one_of(polls, name)) return where + "calls ." + std::string(name) + "()";
    if (!member && name.starts_with("atomic") && !endless) return where + "names " + std::string(name);
    if (!member && (name == "atomicCAS" || name == "atomicExch")) return where + "calls " + std::string(name);
    if (name == "volatile") return where + "reads through a volatile cast";
  }
  // A variable read as a whole (`while (!ready)`, `while (*flag == 0)`);
  // an atomic's other members (fetch_add, store) read nothing to wait on.
  for (std::size_t k = first; k < last; ++k) {
    if (!is_identifier(k) || is(k - 1, ".") || is(k - 1, "->") || is(k - 1, "::") || is(k + 1, "::")) continue;
    auto flag = flags.find(text(k));
    if (flag == flags.end() || (flag->second == "atomic" && (is(k + 1, ".") || is(k + 1, "->")))) continue;
    return where + "reads the " + std::string(flag->second) + " " + std::string(text(k));
  }
  return "";
}

std::size_t porter::call_parenthesis(std::size_t name) const {
  if (is(name + 1, "<"))
    if (auto close = angle_forward(name + 1)) return *close + 1;
  return name + 1;
}

bool porter::is_groups_namespace(std::size_t i) const {
  return is_identifier(i) && (text(i) == "cooperative_groups" || group_aliases_.contains(text(i)));
}

bool porter::groups_name_at(std::size_t& j, std::string_view name) const {
  if (is_groups_namespace(j) && is(j + 1, "::") && is(j + 2, name)) {
    j += 3;
    return true;
  }
  if (groups_namespace_used_ && is(j, name) && !is(j - 1, "::")) {
    j += 1;
    return true;
  }
  return false;
}

std::set<std::string, std::less<>> porter::find_group_aliases() const {
  std::set<std::string, std::less<>> out;
  for (std::size_t i = 0; i + 3 < t_.size(); ++i)
    if (is(i, "namespace") && is_identifier(i + 1) && is(i + 2, "=")) {
      std::size_t k = i + 3;
      if (is(k, "::")) ++k;
      if (is(k, "cooperative_groups") && is(k + 1, ";")) out.insert(std::string(text(i + 1)));
    }
  return out;
}

bool porter::uses_groups_namespace() const {
  for (std::size_t i = 0; i + 3 < t_.size(); ++i)
    if (is(i, "using") && is(i + 1, "namespace")) {
      std::size_t k = i + 2;
      if (is(k, "::")) ++k;
      if (is_groups_namespace(k) && is(k + 1, ";")) return true;
    }
  return false;
}

bool porter::group_function_waits(std::string_view name) {
  static constexpr std::string_view names[] = {"sync",
                                               "reduce",
                                               "inclusive_scan",
                                               "exclusive_scan",
                                               "coalesced_threads",
                                               "binary_partition",
                                               "labeled_partition",
                                               "wait",  // memcpy_async's: a sync of the group
                                               "wait_prior",
                                               "reduce_store_async",
                                               "reduce_update_async",
                                               "inclusive_scan_update",
                                               "exclusive_scan_update"};
  return one_of(names, name);
}

bool porter::group_name_never_waits(std::string_view name) {
  static constexpr std::string_view names[] = {
      "this_thread_block", "tiled_partition", "thread_block", "thread_block_tile", "thread_group", "coalesced_group",
      "this_grid",         "grid_group",      "this_cluster", "cluster_group",     "plus",         "less",
      "greater",           "bit_and",         "bit_or",       "bit_xor",
      "block_tile_memory",  // scratch for multi-warp tiles, which weft needs none of
      "memcpy_async"};      // weft copies at once: its waits wait
  return one_of(names, name);
}

bool porter::group_member_waits(std::string_view name) {
  static constexpr std::string_view names[] = {
      "sync", "shfl",   "shfl_up",   "shfl_down", "shfl_xor",       "any",
      "all",  "ballot", "match_any", "match_all", "barrier_arrive", "barrier_wait"};  // split barriers
  return one_of(names, name);
}

bool porter::group_member_never_waits(std::string_view name) {
  static constexpr std::string_view names[] = {"thread_rank",     "size",        "num_threads",    "thread_index",
                                               "group_index",     "dim_threads", "group_dim",      "meta_group_rank",
                                               "meta_group_size", "is_valid",    "block_rank",     "num_blocks",
                                               "dim_blocks",      "block_index", "map_shared_rank"};
  return one_of(names, name);
}

std::set<std::string, std::less<>> porter::group_variables(std::size_t from, std::size_t to) const {
  std::set<std::string, std::less<>> out;
  auto declared_after = [&](std::size_t j) -> std::optional<std::size_t> {
    while (is(j, "&") || is(j, "const")) ++j;
    if (is_identifier(j) &&
        (is(j + 1, "=") || is(j + 1, ";") || is(j + 1, ",") || is(j + 1, ")") || is(j + 1, "(") || is(j + 1, "{")))
      return j;
    return std::nullopt;
  };
  for (std::size_t i = from; i < to && i < t_.size(); ++i) {
    std::string_view name = text(i);
    if (is_identifier(i) && (name == "thread_block" || name == "thread_block_tile" || name == "coalesced_group" ||
                             name == "thread_group" || name == "grid_group" || name == "cluster_group")) {
      std::size_t j = i + 1;
      if (is(j, "<")) {
        auto close = angle_forward(j);
        if (!close) continue;
        j = *close + 1;
      }
      if (auto v = declared_after(j)) out.insert(std::string(text(*v)));
    } else if (is(i, "auto")) {
      auto v = declared_after(i + 1);
      if (!v || !is(*v + 1, "=")) continue;
      std::size_t k = *v + 2;
      if (is_groups_namespace(k) && is(k + 1, "::")) k += 2;
      if (is(k, "this_thread_block") || is(k, "tiled_partition") || is(k, "coalesced_threads") ||
          is(k, "binary_partition") || is(k, "labeled_partition") || is(k, "this_grid") || is(k, "this_cluster"))
        out.insert(std::string(text(*v)));
    }
  }
  return out;
}

std::set<std::string, std::less<>> porter::block_barrier_variables(std::size_t from, std::size_t to) const {
  std::set<std::string, std::less<>> out;
  for (std::size_t i = from; i + 4 < to && i + 4 < t_.size(); ++i) {
    if (!(is(i, "cuda") && is(i + 1, "::") && is(i + 2, "barrier") && is(i + 3, "<"))) continue;
    auto close = angle_forward(i + 3);
    if (!close) continue;
    std::size_t k = i + 4;
    if (is(k, "::")) ++k;
    if (is(k, "cuda") && is(k + 1, "::")) k += 2;
    if (!is(k, "thread_scope_block")) continue;
    std::size_t j = *close + 1;
    while (is(j, "&") || is(j, "const")) ++j;
    if (is_identifier(j) && (is(j + 1, ";") || is(j + 1, ",") || is(j + 1, ")"))) out.insert(std::string(text(j)));
  }
  return out;
}

std::set<std::string, std::less<>> porter::block_variables(std::size_t from, std::size_t to) const {
  std::set<std::string, std::less<>> out;
  for (std::size_t i = from; i + 2 < to && i + 2 < t_.size(); ++i) {
    if (is(i, "thread_block") && is_identifier(i + 1) && (is(i + 2, "=") || is(i + 2, ";") || is(i + 2, ",")))
      out.insert(std::string(text(i + 1)));
    if (is(i, "auto") && is_identifier(i + 1) && is(i + 2, "=")) {
      std::size_t k = i + 3;
      if (is_groups_namespace(k) && is(k + 1, "::")) k += 2;
      if (is(k, "this_thread_block") && is(k + 1, "(") && is(k + 2, ")")) out.insert(std::string(text(i + 1)));
    }
  }
  return out;
}

bool porter::made_of_block(std::size_t open, const std::set<std::string, std::less<>>& blocks) const {
  auto close = match_forward(open);
  if (!close) return false;
  auto args = top_level_arguments(open, *close);
  // (block, &state), and partitioned: (block, &state, producer_count) or (block, &state, role).
  if (args.size() != 2 && args.size() != 3) return false;
  auto [first, end] = args[0];
  if (end == first + 1 && is_identifier(first) && blocks.contains(text(first))) return true;
  if (is_groups_namespace(first) && is(first + 1, "::")) first += 2;
  return end == first + 3 && is(first, "this_thread_block") && is(first + 1, "(") && is(first + 2, ")");
}

std::set<std::string, std::less<>> porter::block_pipeline_variables(
    std::size_t from, std::size_t to, const std::set<std::string, std::less<>>& blocks) const {
  std::set<std::string, std::less<>> out;
  for (std::size_t i = from; i + 5 < to && i + 5 < t_.size(); ++i) {
    if (!(is_identifier(i) && is(i + 1, "=") && is(i + 2, "cuda") && is(i + 3, "::") && is(i + 4, "make_pipeline") &&
          is(i + 5, "(") && made_of_block(i + 5, blocks)))
      continue;
    std::size_t k = i;  // back over the type: `auto` or `cuda::pipeline<cuda::thread_scope_block>`
    if (k > from && is(k - 1, "auto")) {
      out.insert(std::string(text(i)));
    } else if (k > from && is(k - 1, ">")) {
      std::size_t j = k - 1;
      while (j > from && !is(j, "<")) --j;
      if (j >= 3 && is(j - 1, "pipeline") && is(j - 2, "::") && is(j - 3, "cuda") &&
          (is(j + 1, "thread_scope_block") || (is(j + 3, "thread_scope_block") && is(j + 1, "cuda"))))
        out.insert(std::string(text(i)));
    }
  }
  return out;
}

std::set<std::string, std::less<>> porter::thread_pipeline_variables(std::size_t from, std::size_t to) const {
  std::set<std::string, std::less<>> out;
  for (std::size_t i = from; i + 6 < to && i + 6 < t_.size(); ++i) {
    if (is(i, "cuda") && is(i + 1, "::") && is(i + 2, "pipeline") && is(i + 3, "<")) {
      std::size_t k = i + 4;
      if (is(k, "::")) ++k;
      if (is(k, "cuda") && is(k + 1, "::")) k += 2;
      if (!is(k, "thread_scope_thread") || !is(k + 1, ">")) continue;
      std::size_t j = k + 2;
      while (is(j, "&")) ++j;
      if (is_identifier(j) && (is(j + 1, "=") || is(j + 1, ";") || is(j + 1, ",") || is(j + 1, ")")))
        out.insert(std::string(text(j)));
    } else if (is(i, "auto") && is_identifier(i + 1) && is(i + 2, "=") && is(i + 3, "cuda") && is(i + 4, "::") &&
               is(i + 5, "make_pipeline") && is(i + 6, "(") && is(i + 7, ")")) {
      out.insert(std::string(text(i + 1)));
    }
  }
  return out;
}

std::optional<std::size_t> porter::angle_forward(std::size_t open) const {
  int depth = 0;
  for (std::size_t j = open; j < t_.size() && j < open + 64; ++j) {
    if (is(j, "(") || is(j, "[")) {
      auto close = match_forward(j);
      if (!close) return std::nullopt;
      j = *close;
    } else if (is(j, ";") || is(j, "{") || is(j, "}") || is(j, ")") || is(j, "&&") || is(j, "||")) {
      return std::nullopt;
    } else if (is(j, "<")) {
      ++depth;
    } else if (is(j, ">") && --depth == 0) {
      return j;
    }
  }
  return std::nullopt;
}

std::vector<porter::function_definition> porter::function_definitions() const {
  std::vector<function_definition> out;
  enum class brace { space, type, function, other };
  std::vector<brace> open;
  for (std::size_t i = 0; i < t_.size(); ++i) {
    if (t_[i].define != 0) continue;
    if (is(i, "}")) {
      if (!open.empty()) open.pop_back();
      continue;
    }
    if (!is(i, "{")) continue;
    bool outer = std::all_of(open.begin(), open.end(), [](brace b) { return b == brace::space || b == brace::type; });
    if (opens_namespace(i)) {
      open.push_back(brace::space);
      continue;
    }
    brace_head h = head_of(i);
    if (h.type) {
      open.push_back(outer ? brace::type : brace::other);
      continue;
    }
    open.push_back(brace::other);
    if (!outer || !h.function) continue;
    // The parameter list: back over specifiers to `)`.
    std::size_t k = i;
    static constexpr std::string_view trailing[] = {"const",   "volatile", "noexcept", "override",    "final",
                                                    "mutable", "&",        "&&",       "__restrict__"};
    while (k > 0) {
      --k;
      if (!one_of(trailing, text(k)) && !qualifier(k)) break;
    }
    if (!is(k, ")")) continue;
    auto lparen = match_backward(k);
    if (!lparen || *lparen == 0) continue;
    std::size_t n = *lparen - 1;
    std::string name;
    if (is_identifier(n) && !is_keyword(n)) {
      name = text(n);
    } else if (n > 0 && (is(n - 1, "operator") || (n > 1 && is(n - 2, "operator")))) {
      name = "operator";
    } else {
      continue;  // a statement's block, a lambda
    }
    if (name == "if" || name == "while" || name == "for" || name == "switch" || name == "catch") continue;
    open.back() = brace::function;
    auto close = match_forward(i);
    if (!close) continue;
    bool member = !open.empty() && std::any_of(open.begin(), open.end() - 1, [](brace b) { return b == brace::type; });
    out.push_back({name, n, i, *close, (h.qualifiers & qualifier_global) != 0, member});
  }
  return out;
}

std::vector<porter::macro_definition> porter::macro_definitions() const {
  std::vector<macro_definition> out;
  for (std::size_t i = 0; i + 2 < t_.size(); ++i) {
    if (t_[i].define >= 0 || !is(i, "#") || (i > 0 && t_[i - 1].define == t_[i].define)) continue;
    int id = -t_[i].define;
    if (!is_identifier(i + 2)) continue;
    std::size_t from = i + 2;
    while (from < t_.size() && t_[from].define == -id) ++from;
    std::size_t to = from;
    while (to < t_.size() && t_[to].define == id) ++to;
    out.push_back({std::string(text(i + 2)), from, to});
  }
  return out;
}

std::set<std::string, std::less<>> porter::type_names() const {
  std::set<std::string, std::less<>> out;
  for (std::size_t i = 0; i + 1 < t_.size(); ++i) {
    if ((is(i, "struct") || is(i, "class") || is(i, "union") || is(i, "enum") || is(i, "typename")) &&
        is_identifier(i + 1))
      out.insert(std::string(text(i + 1)));
    if (is(i, "using") && is_identifier(i + 1) && is(i + 2, "=")) out.insert(std::string(text(i + 1)));
    if (is(i, "typedef"))
      for (std::size_t k = i + 1; k < t_.size() && k < i + 64; ++k)
        if (is(k, ";")) {
          if (is_identifier(k - 1)) out.insert(std::string(text(k - 1)));
          break;
        }
  }
  return out;
}

void porter::find_functions_that_never_wait(const std::vector<function_definition>& functions,
                                            const std::vector<macro_definition>& macros) {
  struct entity {
    std::string name;
    body_facts facts;
    bool member;
    bool never_waits = true;
  };
  std::vector<entity> entities;
  for (const function_definition& d : functions)
    if (!d.kernel) entities.push_back({d.name, facts_of(d.open + 1, d.close), d.member || d.name == "operator"});
  for (const macro_definition& m : macros) entities.push_back({m.name, facts_of(m.from, m.to), false});
  for (const token& t : t_)
    if (t.k == kind::directive) {
      std::string_view d = src_.substr(t.begin, t.end - t.begin);
      if (d.find("include") != std::string_view::npos &&
          (d.find("cuda_fp16") != std::string_view::npos || d.find("cuda_bf16") != std::string_view::npos))
        known_.includes_half = true;
    }
  types_ = type_names();
  types_.insert(known_.type_names.begin(), known_.type_names.end());
  for (bool changed = true; changed;) {
    changed = false;
    for (entity& e : entities) {
      if (!e.never_waits) continue;
      bool ok = e.facts.waits.empty() && e.facts.group_waits.empty() && e.facts.named_waits.empty() &&
                !e.facts.waits_in_lambda && e.facts.refusal.empty() && e.facts.spin.empty();
      for (const std::string& call : e.facts.calls)
        ok = ok && (call == e.name || resolves_to_never_waiting(call, entities));
      if (!ok) e.never_waits = false, changed = true;
    }
  }
  for (const entity& e : entities) {
    (e.never_waits ? known_.never_wait : known_.may_wait).insert(e.name);
    if (!e.facts.waits.empty() || !e.facts.group_waits.empty() || !e.facts.named_waits.empty() ||
        e.facts.waits_in_lambda)
      known_.wait_themselves.insert(e.name);
    if (!e.facts.spin.empty()) known_.spins.emplace(e.name, e.facts.spin);
    // An operator, constructor or member function that waits may be called
    // where no call is spelled (`a + b`, `T x;`): then no kernel converts.
    if (e.member && !e.facts.waits.empty()) known_.a_member_waits = true;
  }
  for (const std::string& t : types_) known_.type_names.insert(t);
}

template <class Entities>
bool porter::resolves_to_never_waiting(std::string_view name, const Entities& entities) const {
  // A function or macro of the program's own comes first: a `min` or
  // `max` it defines may wait where CUDA's does not.
  bool found = false;
  for (const auto& e : entities)
    if (e.name == name) {
      if (!e.never_waits) return false;
      found = true;
    }
  if (known_.may_wait.contains(name)) return false;
  return found || known_.never_wait.contains(name) || never_waits(name) || types_.contains(name);
}

std::optional<std::size_t> porter::void_before(std::size_t name_token) const {
  std::size_t k = name_token;
  while (k > 0) {
    --k;
    if (is(k, ")")) {
      auto open = match_backward(k);
      if (!open || *open == 0) return std::nullopt;
      std::size_t a = *open - 1;
      if (is(a, "__launch_bounds__") || is(a, "__maxnreg__") || is(a, "__cluster_dims__") || is(a, "__attribute__")) {
        k = a;
        continue;
      }
      return std::nullopt;
    }
    if (is(k, "]") && k > 0 && is(k - 1, "]")) {  // [[attribute]]
      auto open = match_backward(k);
      if (!open) return std::nullopt;
      k = *open;
      continue;
    }
    if (is(k, "__noinline__") || is(k, "__forceinline__") || is(k, "__global__")) continue;
    return is(k, "void") ? std::optional<std::size_t>(k) : std::nullopt;
  }
  return std::nullopt;
}

std::pair<std::size_t, std::size_t> porter::as_void_pointer(std::size_t i) const {
  if (i >= 4 && is(i - 1, ")") && is(i - 2, "*") && is(i - 3, "void")) {
    std::size_t open = i - 4;
    if (is(open, "const") && open > 0) --open;
    if (is(open, "(")) return {open, i};
  }
  if (i >= 6 && is(i - 1, "(") && is(i + 1, ")") && is(i - 2, ">") && is(i - 3, "*") && is(i - 4, "void")) {
    std::size_t less = i - 5;
    if (is(less, "const") && less > 0) --less;
    if (is(less, "<") && less >= 1 && (is(less - 1, "reinterpret_cast") || is(less - 1, "static_cast")))
      return {less - 1, i + 1};
  }
  return {i, i};
}

bool porter::passed_to_runtime_call(std::size_t i) const {
  auto [first, last] = as_void_pointer(i);
  bool cast = first != i;
  if (first == 0 || !(is(first - 1, "(") || is(first - 1, ",")) || !(is(last + 1, ",") || is(last + 1, ")")))
    return false;
  std::size_t j = first;
  int depth = 0;
  while (j-- > 0) {
    if (is_closer(j)) ++depth;
    if (is_opener(j) && depth-- == 0) break;
  }
  if (j == 0 || j > first || !is(j, "(")) return false;
  static constexpr std::string_view calls[] = {
      "cudaFuncGetAttributes", "cudaFuncSetAttribute", "cudaFuncSetCacheConfig",
      "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaOccupancyMaxPotentialBlockSize"};
  static constexpr std::string_view launches[] = {"cudaLaunchKernel", "cudaLaunchCooperativeKernel",
                                                  "cudaLaunchKernelExC"};
  return one_of(calls, text(j - 1)) || (cast && one_of(launches, text(j - 1)));
}

std::string porter::why_not_stackless(const function_definition& d, const body_facts& f,
                                      const std::vector<function_definition>& functions,
                                      std::vector<std::size_t>& voids, bool& keeps_void_kernel) const {
  keeps_void_kernel = false;
  auto v = void_before(d.name_token);
  if (!v) return "its return type is not spelled `void` right before its name";
  voids.push_back(*v);
  if (!f.refusal.empty()) return f.refusal;

  // The first call that may wait: a helper that waits itself comes first,
  // as no other reason matters until weft has awaitable device functions.
  std::string waiting_call, unseen_call;
  bool awaits_a_function = false;
  for (std::size_t c = 0; c < f.calls.size(); ++c) {
    const std::string& call = f.calls[c];
    if (awaitable_call(f, c)) {
      awaits_a_function = true;
      continue;
    }
    if (!known_.may_wait.contains(call) &&
        (never_waits(call) || types_.contains(call) || known_.never_wait.contains(call)))
      continue;
    if (auto why = awaitable_why_not_.find(call);
        why != awaitable_why_not_.end() && !why->second.empty() && waits_somewhere_.contains(call)) {
      waiting_call = "calls `" + call + "`, which waits and is not made awaitable: " + why->second;
      break;
    }
    if (known_.wait_themselves.contains(call)) {
      waiting_call = "calls `" + call +
                     "`, which waits and is not a __device__ function of this file (only those are made awaitable)";
      break;
    }
    if (unseen_call.empty()) {
      if (auto spin = known_.spins.find(call); spin != known_.spins.end())
        unseen_call =
            "calls `" + call + "`, which spins (" + spin->second + "): another thread of the block must run meanwhile";
      else
        unseen_call = known_.may_wait.contains(call)
                          ? "calls `" + call + "`, which may wait (it calls what weft-port cannot see)"
                          : "calls `" + call + "`, which weft-port cannot see (declared elsewhere)";
    }
  }
  if (!waiting_call.empty()) return waiting_call;
  if (f.waits.empty() && f.group_waits.empty() && f.named_waits.empty() && !awaits_a_function && !f.waits_in_lambda)
    return "no barrier or warp collective: fibers cost nothing there";
  // GCC names a coroutine's parts after the function's symbol, which C
  // linkage does not mangle: the stackless body gets C++ linkage and a
  // name of its own, and the C-named kernel forwards each parameter to it.
  bool c_linkage = has_c_linkage(d.name_token);
  if (c_linkage && in_header)
    return "has C linkage (extern \"C\") in a header: its stackless body and registration would follow the "
           "header's last line";
  if (c_linkage && !forwarded_parameters(d.name_token))
    return "has C linkage (extern \"C\") and a parameter without a name, which its C-named kernel cannot forward "
           "to the stackless body";
  if (f.waits_in_lambda) return "waits inside a lambda (only the kernel's own body can co_await)";
  // GCC 12 warns about a coroutine frame that holds a lambda (-Wsubobject-linkage).
  if (f.has_lambda) return "holds a lambda";
  if (f.returns_value) return "returns an expression";
  if (!f.spin.empty())
    return "spins (" + f.spin +
           "): another thread of the block must run meanwhile, which a stackless thread "
           "never lets happen";
  // CUDA shuffles and matches __half and __nv_bfloat16 too; the awaitables do not yet.
  bool shuffles = std::any_of(f.waits.begin(), f.waits.end(), [&](std::size_t w) {
    return text(w).starts_with("__shfl") || text(w).starts_with("__match");
  });
  bool half = known_.includes_half;
  for (std::size_t i = d.open; i < d.close && !half; ++i)
    half = is(i, "__half") || is(i, "__half2") || is(i, "half") || is(i, "half2") || is(i, "__nv_bfloat16") ||
           is(i, "__nv_bfloat162");
  if (shuffles && half) return "shuffles in a file that uses __half or __nv_bfloat16 (no awaitable for them yet)";
  if (!unseen_call.empty()) return unseen_call;
  if (known_.a_member_waits) return "an operator, constructor or member function of this file waits";
  // The C-named kernel stays a void kernel, whose launches by address run
  // the stackless body (weft::register_kernel<&k, &body>): every use of
  // its name, and every other source's, still finds a void kernel.
  if (c_linkage) {
    for (const auto* list : {&known_.kernels, &kernels_})
      for (const kernel_decl& k : *list)
        if (k.name == d.name && k.default_arguments)
          return "has C linkage (extern \"C\") and default arguments, which a launch through its pointer cannot "
                 "supply";
    keeps_void_kernel = true;
    return "";
  }
  if (included_kernel_names_.contains(d.name)) return "declared in an included file, whose declaration says `void`";
  if (outside_names.contains(d.name)) return "named in another source of the program";
  // Where the ported .cu or another of its headers names a header's kernel,
  // it launches it by name, or uses it as a value through the void kernel.
  bool used_elsewhere_as_value = false;
  if (names_in_other_files.contains(d.name))
    for (const auto& [file, text] : other_files) {
      porter other(text, "\"" + file + "\"");
      auto uses = other.uses_of_included_kernel(d.name, kernels());
      if (!uses.refusal.empty()) return file + " names it " + uses.refusal;
      used_elsewhere_as_value |= uses.as_value;
    }
  for (const function_definition& g : functions)
    if (g.kernel && g.name == d.name && g.open != d.open) return "overloaded";
  // Every other use of its name: a declaration, a launch weft-port writes
  // as weft::launch<k>, an attribute call, or a use as a value.
  bool used_as_value = false;
  for (std::size_t i = 0; i < t_.size(); ++i) {
    if (!is(i, d.name) || (i >= d.name_token && i <= d.close)) continue;
    if (t_[i].define != 0) return "named in a macro";
    bool launched = std::any_of(constructs_.begin(), constructs_.end(), [&](const construct& c) {
      return c.kind == construct_kind::launch && c.begin <= t_[i].begin && t_[i].end <= c.kernel_end;
    });
    if (launched) {
      for (const construct& c : constructs_)
        if (c.kind == construct_kind::launch && c.begin <= t_[i].begin && t_[i].end <= c.kernel_end &&
            c.kernel_as != launch_kernel::compiled)
          return "a launch passes it as a value or a lambda (template arguments deduced, or default arguments)";
      continue;
    }
    if (passed_to_runtime_call(i)) continue;
    if (is(i + 1, "(") && scope_[i].where == space::file) {
      // A declaration: `__global__ void k(...);`
      std::size_t k = i;
      bool global = false;
      while (k > 0 && !is(k - 1, ";") && !is(k - 1, "}") && !is(k - 1, "{") && t_[k - 1].k != kind::directive)
        global |= is(--k, "__global__");
      auto close = match_forward(i + 1);
      if (global && close && is(*close + 1, ";")) {
        auto pv = void_before(i);
        if (!pv) return "declared with another spelling of its return type";
        voids.push_back(*pv);
        continue;
      }
    }
    used_as_value = true;
  }
  if (!used_as_value && !used_elsewhere_as_value) return "";
  // A pointer, a (void*) cast or a call needs a void kernel: k stays one,
  // forwarding to the stackless body as a kernel of C linkage does, and
  // its prototypes keep their `void`.
  constexpr std::string_view as_value = "its name is used as a value (a pointer, a (void*) cast, a call)";
  if (known_.templates.contains(d.name))
    return std::string(as_value) +
           " and it is a template: its void kernel would need registering for each "
           "instantiation";
  if (in_header && !includer_registers)
    return std::string(as_value) + " in a header, and the input is a header: no .cu's port registers its void kernel";
  for (const kernel_decl& k : kernels_)
    if ((k.name == d.name || k.name.ends_with("::" + d.name)) && k.default_arguments)
      return std::string(as_value) +
             " and it has default arguments, which a launch through its pointer cannot "
             "supply";
  if (!forwarded_parameters(d.name_token))
    return std::string(as_value) +
           " and it has a parameter without a name, which its void kernel cannot forward "
           "to the stackless body";
  voids.resize(1);
  keeps_void_kernel = true;
  return "";
}

void porter::pass_included_void_kernels_as_values() {
  for (const kernel_decl& d : known_.void_converted) {
    std::string name = bare_name(d.name);
    for (construct& c : constructs_)
      if (c.kind == construct_kind::launch && c.kernel_as != launch_kernel::value)
        for (std::size_t i = 0; i < t_.size() && t_[i].begin < c.kernel_end; ++i)
          if (t_[i].begin >= c.begin && t_[i].end <= c.kernel_end && is(i, name)) c.kernel_as = launch_kernel::value;
  }
}

void porter::find_stackless_kernels() {
  group_aliases_ = find_group_aliases();
  groups_namespace_used_ = uses_groups_namespace();
  auto functions = function_definitions();
  for (const function_definition& d : functions) file_function_names_.insert(d.name);
  for (auto [k, what] : flag_declarations(0, t_.size()))
    if (std::none_of(functions.begin(), functions.end(),
                     [&](const function_definition& d) { return k > d.name_token && k < d.close; }))
      namespace_scope_flags_[std::string(text(k))] = what;
  find_functions_that_never_wait(functions, macro_definitions());
  if (convert_stackless) find_awaitable_functions(functions);
  std::vector<std::string> awaited;  // the awaitable functions converted kernels call
  for (const function_definition& d : functions) {
    if (!d.kernel || d.member) continue;
    if (!convert_stackless) {
      if (!not_converted_here.empty())
        stackless_verdicts.push_back({d.name, t_[d.name_token].line, not_converted_here});
      continue;
    }
    body_facts f = facts_of(d.open + 1, d.close, d.name_token + 1);
    std::vector<std::size_t> voids;
    bool keeps_void_kernel = false;
    std::string why = why_not_stackless(d, f, functions, voids, keeps_void_kernel);
    stackless_verdicts.push_back({d.name, t_[d.name_token].line, why});
    if (!why.empty()) continue;
    converted_.insert(d.name);
    // Planned and written before the stackless edits join constructs_:
    // the region version is rendered from the kernel as written.
    // (A void kernel that forwards to its body, kept for launches by
    // address, registers the region version under its own address, which
    // those launches look up: weft::register_kernel<&k, &body>.)
    region_plan regions = plan_regions(d, f);
    stackless_verdicts.back().no_regions = regions.why_not;
    if (regions.why_not.empty()) region_versions_ += render_region_version(d, regions);
    std::map<std::size_t, token_edit> edits;
    if (regions.why_not.empty() && regions.templated) {
      // A kernel template's instances register their region versions
      // through the registration's instance, which its body names.
      std::size_t head = d.name_token;
      while (!is(head, "template")) --head;
      std::string type = "weft_port_regions_registration_" + d.name;
      edits[head].before = "namespace { " + regions.template_head + " struct " + type + "; } ";
      edits[d.open].after = " (void)&" + type + regions.template_arguments + "::registered;";
    }
    if (f.awaits_group) uses_groups_ = true;
    if (f.awaits_barrier) uses_barriers_ = true;
    if (f.awaits_pipeline) uses_pipelines_ = true;
    if (!f.named_waits.empty()) uses_named_barriers_ = true;
    for (construct& c : constructs_) await_named_barrier(f, c);
    for (auto& [i, e] : await_edits(f)) {
      edits[i].before += e.before;
      if (e.text) edits[i].text = e.text;
      edits[i].after += e.after;
    }
    for (std::size_t v : voids) edits[v].text = "weft::stackless_kernel";
    if (keeps_void_kernel) void_kernel_body(d, edits);
    for (const auto& [i, e] : edits)
      constructs_.push_back(replacement(i, e.before + (e.text ? *e.text : std::string(text(i))) + e.after));
    for (std::size_t c = 0; c < f.calls.size(); ++c)
      if (awaitable_call(f, c)) awaited.push_back(f.calls[c]);
  }
  // The awaitable versions those kernels reach, directly or through each other.
  std::set<std::string, std::less<>> reached;
  while (!awaited.empty()) {
    std::string name = awaited.back();
    awaited.pop_back();
    if (!reached.insert(name).second) continue;
    for (awaitable_function& a : awaitables_)
      if (a.name == name) {
        a.emitted = true;
        for (std::size_t c = 0; c < a.facts.calls.size(); ++c)
          if (awaitable_call(a.facts, c)) awaited.push_back(a.facts.calls[c]);
      }
  }
  for (const awaitable_function& a : awaitables_) {
    if (!a.emitted) continue;
    if (a.facts.awaits_group) uses_groups_ = true;
    if (a.facts.awaits_barrier) uses_barriers_ = true;
    if (a.facts.awaits_pipeline) uses_pipelines_ = true;
    if (!a.facts.named_waits.empty()) uses_named_barriers_ = true;
    // Declared beside each of its declarations, on the same line, so that
    // the kernels after any of them see it.
    for (const auto& [end_token, head] : a.declarations)
      constructs_.push_back(
          replacement(end_token, std::string(text(end_token)) + " " + twin_declaration(a, head, true)));
  }
}

void porter::await_named_barrier(const body_facts& f, construct& c) const {
  constexpr std::string_view fiber_call = "weft::ptx::";
  for (std::size_t i : f.named_waits)
    if (c.begin == t_[i].begin && c.kind == construct_kind::text && c.text.starts_with(fiber_call))
      c.text.replace(0, fiber_call.size(), "co_await weft::");
}

std::optional<std::pair<std::string, std::string>> porter::forwarded_parameters(std::size_t name) const {
  auto close = match_forward(name + 1);
  if (!close) return std::nullopt;
  std::string names;
  auto name_of = [&](std::size_t from, std::size_t to) -> std::optional<std::string> {
    while (to > from && is(to - 1, "]"))
      if (auto open = match_backward(to - 1))
        to = *open;
      else
        return std::nullopt;
    static constexpr std::string_view not_names[] = {"__restrict__", "__restrict", "restrict", "const", "volatile",
                                                     "unsigned",     "signed",     "long",     "short", "bool"};
    if (to <= from + 1 || !is_identifier(to - 1) || is_keyword(to - 1) || one_of(not_names, text(to - 1)))
      return std::nullopt;
    static constexpr std::string_view before_no_name[] = {"const", "volatile", "struct",  "class",
                                                          "union", "enum",     "typename"};
    if (is_identifier(to - 2) && one_of(before_no_name, text(to - 2))) return std::nullopt;
    return std::string(text(to - 1));
  };
  std::size_t from = name + 2;
  int angles = 0;
  for (std::size_t i = from; i <= *close; ++i) {
    if (i < *close && is_opener(i)) {
      i = *match_forward(i);
      continue;
    }
    if (is(i, "<")) ++angles;
    if (is(i, ">") && angles > 0) --angles;
    if (i < *close && (!is(i, ",") || angles > 0)) continue;
    if (i == *close && i == name + 2) break;                          // k()
    if (i == *close && i == name + 3 && is(name + 2, "void")) break;  // k(void)
    for (std::size_t j = from; j < i; ++j)
      if (is(j, "=") || is(j, "...")) return std::nullopt;
    auto n = name_of(from, i);
    if (!n) return std::nullopt;
    names += (names.empty() ? "" : ", ") + *n;
    from = i + 1;
  }
  return std::pair{join(name + 2, *close, nullptr), names};
}

void porter::void_kernel_body(const function_definition& d, std::map<std::size_t, token_edit>& edits) {
  std::string name(text(d.name_token));
  std::string body = "weft_port_stackless_" + name;
  edits[d.name_token].text = body;
  std::size_t start = d.name_token;
  std::optional<std::size_t> c_literal;
  while (start > 0 && !is(start - 1, ";") && !is(start - 1, "}") && !is(start - 1, "{") &&
         t_[start - 1].k != kind::directive) {
    --start;
    if (is(start, "extern") && start + 1 < t_.size() && t_[start + 1].k == kind::literal && text(start + 1) == "\"C\"")
      c_literal = start + 1;
  }
  bool c_linkage = has_c_linkage(d.name_token);
  if (c_literal)
    edits[*c_literal].text = "\"C++\"";
  else if (c_linkage)
    edits[start].before = "extern \"C++\" " + edits[start].before;
  // The void kernel's head: C linkage's, or the definition's own
  // (`static`, `__launch_bounds__(...)` and all).
  std::string head = c_linkage ? "extern \"C\" __global__ void" : join(start, d.name_token, nullptr);
  auto [parameters, names] = *forwarded_parameters(d.name_token);
  edits[d.close].after +=
      " " + head + " " + name + "(" + parameters + ") { weft::run_on_fiber(" + body + "(" + names + ")); }";
  void_kernels_converted_.insert(name);
  // Launches by name pass k as a value: weft::launch<k>, or a lambda that
  // calls k (a prototype spelled differently reads as an overload), would
  // call k's own body, on fibers.
  for (construct& c : constructs_)
    if (c.kind == construct_kind::launch && c.kernel_as != launch_kernel::value)
      for (std::size_t i = 0; i < t_.size() && t_[i].begin < c.kernel_end; ++i)
        if (t_[i].begin >= c.begin && t_[i].end <= c.kernel_end && is(i, name)) c.kernel_as = launch_kernel::value;
}

}  // namespace weft_port_tool
