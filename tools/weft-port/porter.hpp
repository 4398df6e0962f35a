// porter: the port of one source file, weft-port's rewriter.
//
// It rewrites these constructs (and, below, clock() and tests of __CUDA_ARCH__
// in device code) and copies every other byte unchanged:
//
//   kernel<<<grid, block, shmem, stream>>>(args)
//     -> weft::launch(weft::launch_config{grid, block, shmem, stream}, kernel, args)
//     -> weft::launch<kernel>(weft::launch_config{grid, block, shmem, stream}, args)
//     (the second where `kernel` names a __global__ function this file
//     declares, `k`, `ns::k` or `k<float>`: known at compile time, it is
//     called directly for each CUDA thread, not through a pointer; a template
//     kernel named without template arguments, `k<<<g, b>>>(x)`, becomes
//     `[](auto... a) { k(a...); }`, so that x deduces them)
//   extern __shared__ T name[];
//     -> T* name = weft::dynamic_shared<T>();                         (in a function)
//     -> [[maybe_unused]] static weft_port::extern_shared<T> name;   (at namespace scope)
//   asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t))
//     -> (t) = weft::ptx::globaltimer()   (a read of one PTX special register, in device code)
//   asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(n))
//     -> weft::ptx::bar_sync((id), (n))   (a named barrier: bar.sync, barrier.sync, bar.arrive;
//        co_await weft::bar_sync((id), (n)) in a stackless kernel)
//   __global__ void k(...) { ... __syncthreads(); ... return; }
//     -> __global__ weft::stackless_kernel k(...) { ... co_await weft::syncthreads(); ... co_return; }
//     (a kernel of the input whose every wait is its own barrier, named
//     barrier, warp collective or cooperative-group wait, or a call of one of the input's
//     __device__ functions that wait, which then get an awaitable version
//     `weft_port_awaitable_NAME` after the last line: see
//     find_stackless_kernels; --no-stackless turns it off; a kernel of C
//     linkage, or one whose name is used as a value, stays a void kernel
//     that forwards to a stackless body of C++ linkage,
//     `weft_port_stackless_NAME`: see void_kernel_body)
//
// and, after the last line of a source file (not a header), registers every
// non-template __global__ function declared at namespace scope (but the
// stackless ones, which are launched by name only), with its
// __cluster_dims__ if it has them (a converted kernel that stays void as
// weft::register_kernel<&k, &weft_port_stackless_k>()), and the .cu's port
// also those that its headers define (known_kernels::header_kernels: not
// those only declared there, nor inside an #if, nor behind an #include
// inside one, which the port cannot tell the compiler takes):
//
//   static const bool weft_port_kernel_N = weft::register_kernel<&ns::kernel>();
//   static const bool weft_port_cluster_N = weft::detail::register_cluster_dims(&ns::kernel, 2, 1, 1);
//
// so that a kernel known only by address (cudaLaunchKernel((void*)k, ...),
// cudaLaunchCooperativeKernel) can be launched, and a compile-time cluster
// shape takes effect, as they do with nvcc. A registered kernel launched by
// address (from another file, say) also runs the grid compiled for it.
//
// The rewriter (porter) finds the constructs among the scanner's tokens and
// renders the output from the original text and those rewrites.
#pragma once

#include "arch_conditionals.hpp"
#include "diagnostic.hpp"
#include "kernels.hpp"
#include "scanner.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft_port_tool {

// `#include "path"`: where its spelling (quotes included) sits in the source.
struct quoted_include {
  std::string path;
  std::size_t begin, end;
  int line;
  bool conditional;  // inside an #if other than the include guard
};

// Where a token is, as nvcc's two passes would compile it.
enum class space : std::uint8_t {
  file,    // outside every function: namespace or class scope
  host,    // in a host function
  device,  // in a __global__ or __device__ function (or a lambda or class inside one)
  dual,    // in a __host__ __device__ function
};

class porter {
 public:
  // `file` is the input's name as #line directives spell it, quoted.
  porter(std::string_view src, std::string file);

  std::vector<diagnostic> diagnostics;
  bool uses_extern_shared_helper = false;
  // Distinguishes the registrations of a .cu that another .cu includes.
  std::string registration_tag;
  // The ported .cu registers its headers' void kernels that forward to a
  // stackless body (known_kernels::void_converted) too.
  bool registers_headers_void_kernels = false;
  // The file is a header: the .cu that includes it registers its kernels
  // (known_kernels::header_kernels).
  bool is_header_file = false;

  // The kernels of the files this one includes, known before run().
  void know(const known_kernels& included);

  // Whether to convert eligible kernels to stackless ones (see
  // find_stackless_kernels), and the names the program's other sources use:
  // a kernel one of them names may be declared there with `void`.
  bool convert_stackless = false;
  // --race-check: region versions read the `__shared__` arrays that cannot
  // race untraced (untraced_shared_reads.hpp).
  bool race_check = false;
  std::string not_converted_here;  // why not, where --explain asks about a file that is not converted
  std::set<std::string, std::less<>> outside_names;
  // A header whose kernels convert (see program_porter::port): the names of
  // the other files of the ported .cu's translation unit, and no awaitable
  // functions or C-linkage bodies, which would follow the header's last line.
  bool in_header = false;
  std::set<std::string, std::less<>> names_in_other_files;
  // Those files' names (as #line directives spell them) and texts: a kernel
  // one of them names still converts where that file only launches it (see
  // why_uses_need_void).
  std::vector<std::pair<std::string, std::string>> other_files;
  // Whether the ported file is a .cu, which registers the header's void
  // kernels that forward to a stackless body (registers_headers_void_kernels).
  bool includer_registers = false;

  // How this file uses `name`, a kernel of a header it includes (which
  // `header` describes): `refusal` says what keeps that kernel on fibers ("" if
  // nothing does), `as_value` whether the kernel must stay a void kernel that
  // forwards to its stackless body (see void_kernel_body), which this file's
  // port then registers. A launch that names the kernel at compile time
  // (`k<<<...>>>`, `k<32, 6><<<...>>>`) becomes weft::launch<k>, a call of
  // whatever k returns, as for the .cu's own kernels; a runtime call that
  // takes a stackless kernel as any (cudaFuncGetAttributes(&a, k), ...) too.
  struct included_kernel_uses {
    std::string refusal;
    bool as_value = false;
  };
  included_kernel_uses uses_of_included_kernel(std::string_view name, const known_kernels& header);

  // A kernel defined in this file, and why it stays on fibers ("" if converted).
  struct stackless_verdict {
    std::string kernel;
    int line;
    std::string why_not;
    std::string no_regions = {};  // for a converted kernel: why it has no region version, "" if it has one
  };
  std::vector<stackless_verdict> stackless_verdicts;
  bool converted_kernels() const;

  // The kernels this file itself declares.
  const std::vector<kernel_decl>& kernels_declared() const;
  bool knows_header_kernel(const kernel_decl& d) const;

  // The kernels this file declares, and those it knew from its includes.
  known_kernels kernels() const;

  // The `#include "..."` lines (outside macro definitions).
  std::vector<quoted_include> quoted_includes() const;

  // Makes an #include read another file (a port of it, or the original from
  // where the port lies).
  void replace_include(const quoted_include& include, const std::string& quoted_path);

  // Whether run() changed anything but the #include lines.
  bool rewrote() const;

  // Lines the output has beyond the input's: the second copy of each
  // __host__ __device__ function body that tests __CUDA_ARCH__, and the
  // #line directives that keep the copies at the input's lines.
  std::size_t added_lines() const;

  // The registrations written after the last line (see the top of the file).
  std::string registrations() const;

  // weft::register_kernel<&k>(), and k's __cluster_dims__, for a kernel the
  // file or its headers define (on fibers, or made stackless by its header's port).
  std::string kernel_registration(const kernel_decl& d, const std::string& n) const;

  // weft::register_kernel<&k, &weft_port_stackless_k>(), and k's __cluster_dims__.
  static std::string void_kernel_registration(const kernel_decl& d, const std::string& n);

  // The registration statements written after a file's last line, `n` their tag.
  static std::string registration_lines(const std::string& n, const std::string& kernel_arguments,
                                        const std::string& address, const std::string& cluster_dims);

  // The rewritten source (without the prelude).
  std::string run();

  // The awaitable versions of the __device__ functions that wait, which
  // converted kernels call, written after the last line (see find_awaitable_functions).
  const std::string& awaitable_functions() const;
  // The region versions of kernels, written after the last line (see plan_regions).
  const std::string& region_versions() const;
  // Where the #endif of the file's include guard is, if it has one (see include_guard_end).
  std::optional<std::pair<std::size_t, int>> guard_end() const;
  bool uses_groups() const;
  bool uses_barriers() const;
  bool uses_pipelines() const;
  bool uses_named_barriers() const;

 private:
  enum class construct_kind {
    launch,     // rendered from its parts, recursively (an argument may hold another launch)
    text,       // replaced by fixed text
    arch,       // a test of __CUDA_ARCH__ in a __host__ __device__ function: as the view sees it
    dual_body,  // a __host__ __device__ function's body: in both views, chosen at run time
  };

  struct construct {
    std::size_t begin, end;  // the source bytes replaced
    construct_kind kind;
    std::string text;  // the replacement (kind text), the device view's (kind arch)
    // A launch's parts: kernel [begin, kernel_end), configuration
    // [config_begin, config_end), arguments [args_begin, args_end), and the
    // spaces or comments after the kernel and after `>>>`, kept as they are.
    std::size_t kernel_end, open, config_begin, config_end, close_end, lparen, args_begin, args_end;
    bool has_args;
    bool variadic_args;  // the arguments are a macro's __VA_ARGS__, which may be empty
    launch_kernel kernel_as;
  };

  // What each token's enclosing functions make of it (see classify_scopes).
  struct scope_info {
    space where = space::file;
    bool kernel = false;                                              // inside a __global__ function's body
    std::size_t dual_open = std::numeric_limits<std::size_t>::max();  // the outermost __host__ __device__ body's `{`
  };

  static constexpr unsigned qualifier_global = 1, qualifier_device = 2, qualifier_host = 4;

  std::string_view src_;
  std::string file_;
  std::vector<token> t_;  // tokens other than spaces and comments
  std::vector<construct> constructs_;
  std::vector<kernel_decl> kernels_;
  known_kernels known_;  // from the included files, then this file's templates
  std::vector<scope_info> scope_;
  std::vector<std::pair<std::string_view, unsigned>> qualifier_macros_;
  std::size_t rewrites_ = 0;
  std::set<std::string, std::less<>> converted_;  // the kernels made stackless
  // Those of them that stay void kernels forwarding to a stackless body:
  // kernels of C linkage and kernels whose name is used as a value.
  std::set<std::string, std::less<>> void_kernels_converted_;
  std::set<std::string, std::less<>> included_kernel_names_;
  std::set<std::string, std::less<>> types_;          // type names known here (find_functions_that_never_wait)
  std::set<std::string, std::less<>> group_aliases_;  // `namespace cg = cooperative_groups;`
  // `using namespace cooperative_groups;` (or an alias of it): its functions
  // may be called unqualified, unless the file defines a function of that name.
  bool groups_namespace_used_ = false;
  std::set<std::string, std::less<>> file_function_names_;
  // Variables declared volatile or atomic outside the file's functions
  // (`__device__ volatile int flag;`): a loop whose condition reads one spins.
  std::map<std::string, std::string_view, std::less<>> namespace_scope_flags_;  // name: "volatile" or "atomic"
  bool uses_groups_ = false;
  bool uses_barriers_ = false;        // a converted kernel awaits a block-scope cuda::barrier
  bool uses_pipelines_ = false;       // ... or a block's cuda::pipeline
  bool uses_named_barriers_ = false;  // ... or a named barrier (inline PTX)
  // The named barriers' asm statements ported to weft::ptx calls (outside
  // macros), by their `asm` token: what a stackless kernel awaits instead.
  std::set<std::size_t> ported_named_barriers_;
  mutable const std::vector<construct>* rendering_ = &constructs_;  // what render() rewrites
  std::string awaitable_functions_;
  std::string region_versions_;  // the region versions of the file's kernels (see plan_regions)
  mutable std::size_t added_lines_ = 0;

  // ---- token tests ----

  std::string_view text(std::size_t i) const;
  bool is(std::size_t i, std::string_view s) const;
  bool is_identifier(std::size_t i) const;
  bool adjacent(std::size_t i) const;  // i, i+1 touch
  bool is_opener(std::size_t i) const;
  bool is_closer(std::size_t i) const;

  // Words that end an expression on their left: `return k<<<...`, `if (x) (k)<<<...`.
  bool is_keyword(std::size_t i) const;

  // Number of adjacent copies of the one-character token c starting at i.
  std::size_t run_of(std::size_t i, std::string_view c) const;

  // Whether only whitespace (no comment) separates tokens i and i+1.
  bool spaced(std::size_t i) const;

  // Like run_of, but the copies may be apart by whitespace, as clang-format
  // writes a launch: `k << < grid, block >> > (args)`.
  std::size_t spaced_run_of(std::size_t i, std::string_view c) const;

  // The execution space keywords token i stands for: __global__,
  // __device__, __host__, or a macro defined as some of them.
  unsigned qualifier(std::size_t i) const;

  // The bracket closing the one opened at i, in the same macro body; nullopt if none.
  std::optional<std::size_t> match_forward(std::size_t i) const;

  // The bracket opening the one closed at i.
  std::optional<std::size_t> match_backward(std::size_t i) const;

  // The `<` opening the template argument list closed by the `>` at i.
  // Brackets are skipped whole, so `k<(a > b)>` and `k<f(x)>` match.
  std::optional<std::size_t> match_angle_backward(std::size_t i) const;

  // ---- where each token is: host, device or __host__ __device__ code ----

  // What the declaration that a `{` ends says about that brace.
  struct brace_head {
    unsigned qualifiers = 0;  // __global__ / __device__ / __host__ among its specifiers
    bool function = false;    // the brace opens a function's or a lambda's body (or a statement's block)
    bool type = false;        // the brace opens a class, struct, union or enum
  };

  // Reads back from the `{` at `brace` to the start of its declaration:
  // `template <class T> __device__ T f(T x) const {`, `[=] __device__ (int i) {`,
  // `S(int a) : x{a}, y(0) {`, `struct S : B {`, `if (c) {`.
  brace_head head_of(std::size_t brace) const;

  // Gives each token the execution space nvcc would compile it for: a
  // __global__ or __device__ function's body (and every lambda, block and
  // class inside it) is device code; a __host__ __device__ function's body is
  // both, unless a __device__ lambda inside it says otherwise; any other
  // function's body is host code; the rest is at namespace or class scope.
  void classify_scopes();

  // ---- tests of __CUDA_ARCH__ ----

  // A conditional group, `#if` ... `#elif` ... `#else` ... `#endif`: its
  // directives' tokens, the #endif's last.
  struct conditional_group {
    std::vector<std::size_t> directives;
  };

  std::string_view text_of(std::size_t i) const;

  std::vector<conditional_group> conditional_groups() const;

  // Gives each test of __CUDA_ARCH__ the view of the nvcc pass that would
  // compile what it guards (docs/porting.md, "The porting step"):
  //  - in a __global__ or __device__ function, the device view: 900;
  //  - in a host function, the host view: undefined, left as it is;
  //  - in a __host__ __device__ function, both: its body is compiled twice,
  //    once in each view, and runs the device view's in a kernel;
  //  - at namespace or class scope, the view of what the group guards:
  //    the host view if it guards host functions only, the device view
  //    otherwise (device functions, kernels, #include lines, declarations);
  //    an error where it guards host and device code and the views differ.
  // __CUDA_ARCH__ in code (not in a directive) is 900 in device code.
  void find_arch_tests();

  construct replacement(std::size_t i, std::string with) const;

  // `clock()` in device code is CUDA's SM cycle counter, not C's process CPU
  // time, which a host compiler would call: programs spin on it for a number
  // of cycles computed from clockRate (cuda-samples' simpleHyperQ, clock).
  // In __global__, __device__ and __host__ __device__ functions it becomes
  // weft::detail::clock_as_called(), which counts cycles in a kernel and is
  // C's clock() outside one (a __host__ __device__ function called on the
  // host). Not a member call, a qualified name, or a declaration of clock.
  void find_device_clock_calls();

  // ---- inline PTX that reads a special register ----
  //
  // A CPU cannot run PTX, but a statement that only copies one of PTX's
  // special registers into a variable has a C++ equivalent:
  //   asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));  ->  (t) = weft::ptx::globaltimer();
  // in __global__, __device__ and __host__ __device__ functions, and in
  // macro definitions (an `asm` in host code is the host's own assembly, and
  // stays). Any other inline PTX in device code is an error naming its
  // instruction, instead of the assembler's; in a macro it stays, as it may
  // be the host's.

  struct special_register {
    std::string_view ptx;   // as PTX spells it, without the %
    std::string_view weft;  // the function in namespace weft::ptx
    int bits;
  };

  static const special_register* find_special_register(std::string_view name);

  // The characters of a string literal token (`"..."`, no prefix), with
  // the escapes PTX text uses read; nullopt for anything else.
  std::optional<std::string> string_contents(std::size_t i) const;

  // The PTX instructions of an asm template, each trimmed, without the `;`.
  static std::vector<std::string> ptx_instructions(std::string_view body);

  // The `(` of the asm statement at `i` (past its qualifiers), if `i` starts one.
  std::optional<std::size_t> asm_open(std::size_t i) const;

  // The first PTX opcode of the asm statement at `i`, if its text starts
  // with a string literal.
  std::optional<std::string> asm_opcode(std::size_t i) const;

  // A named barrier's PTX opcode: bar.sync, bar.arrive, barrier.sync and
  // barrier.arrive, each with .cta or .aligned or both (bar.sync is
  // barrier.sync.aligned; weft runs them alike). The weft::ptx function
  // for it, or nullopt.
  static std::optional<std::string_view> named_barrier_function(std::string_view op);

  // The call that replaces a named barrier's asm statement, whose operand
  // sections are the tokens [from, close): `weft::ptx::bar_sync(1, 64)`
  // for immediates, `weft::ptx::bar_sync((id), (n))` for `%0` and `%1`
  // naming "r" or "n" inputs. Reports what it cannot port and returns nullopt.
  template <class Report>
  std::optional<std::string> named_barrier_call(std::string_view function, const std::string& instruction,
                                                const std::string& op, int line, std::size_t from, std::size_t close,
                                                const Report& report) const;

  void find_inline_ptx();

  // A group at namespace or class scope that tests __CUDA_ARCH__.
  template <class DeviceDirective>
  void file_scope_group(const conditional_group& g, DeviceDirective& device_directive);

  // nvcc -arch=sm_90 leaves out of a kernel what a test of __CUDA_ARCH__
  // excludes at 900 (`#if __CUDA_ARCH__ >= 1000`), and so does weft: a
  // warning says so, so that a kernel that does nothing on weft never does so
  // silently. (Code for the host pass only, `#ifndef __CUDA_ARCH__`, is
  // meant to be left out.)
  void warn_if_kernel_code_left_out(const conditional_group& g);

  // ---- stackless kernels ----
  //
  // A kernel whose every wait is a barrier or warp collective in its own
  // body can run its CUDA threads as C++20 coroutines (weft/stackless_kernel.hpp,
  // docs/architecture.md, "Stackless kernels"): its return type becomes
  // weft::stackless_kernel, each `__syncthreads()` `(co_await weft::syncthreads())`
  // (the others alike), each `return` `co_return`, one token for one token, so
  // the lines stay. weft-port converts a kernel only where it can see that
  // nothing else waits: every call in its body is to a function known not to
  // wait (CUDA's math, atomics and intrinsics, or a function of this file or
  // of a file it includes whose body calls only such functions), and its name
  // is used only by launches and the attribute calls that take a stackless
  // kernel. Anything else stays on fibers, which run every kernel.

  // CUDA's blocking calls and the awaitable each becomes.
  static std::optional<std::string_view> awaitable_for(std::string_view name);

  // Names that wait, or that a coroutine cannot hold, with no awaitable yet:
  // a kernel that mentions one stays on fibers.
  static std::optional<std::string_view> unconvertible(std::string_view name);

  // Words followed by `(` that are no call, and the built-in types whose
  // `T(x)` is a conversion.
  static bool is_not_a_call(std::string_view name);

  // CUDA and C++ functions a kernel may call that never wait: math,
  // conversions, atomics, printf, texture fetches, cuRAND, vector makers.
  static bool never_waits(std::string_view name);

  // What a function's (or macro's, or kernel's) body does, as far as
  // converting goes.
  struct body_facts {
    std::vector<std::size_t> waits;        // name tokens of blocking calls
    std::vector<std::size_t> returns;      // `return` tokens outside lambdas
    std::vector<std::string> calls;        // other names called, to resolve
    std::vector<std::size_t> call_tokens;  // where each is called (its name token)
    std::vector<std::size_t> group_waits;  // name tokens of awaited calls: `cg::sync(`, `g.shfl(`, `bar.wait(`
    bool awaits_group = false;             // some of them are cooperative groups' (weft/stackless_groups.hpp)
    bool awaits_barrier = false;           // some are a cuda::barrier's (weft/stackless_barrier.hpp)
    bool awaits_pipeline = false;          // some are a block pipeline's (weft/stackless_pipeline.hpp)
    std::string refusal;                   // why it can never be stackless, if it cannot
    bool waits_in_lambda = false;
    bool named_barrier = false;            // waits at a named barrier (inline PTX)
    std::vector<std::size_t> named_waits;  // the `asm` tokens of those it awaits (weft/stackless_named_barriers.hpp)
    bool returns_value = false;
    std::string spin;  // where and how it spins ("line 12: ..."), waiting for another thread; "" if it does not
    bool has_lambda = false;
  };

  // `params` (the parameter list's `(`, if a function's) names the groups
  // passed in.
  body_facts facts_of(std::size_t from, std::size_t to, std::optional<std::size_t> params = std::nullopt) const;

  // ---- spins ----

  // The name tokens of the variables declared in tokens [from, to) that a
  // loop may spin on, each with "volatile" or "atomic": `volatile` ones, and
  // those of an atomic type (cuda::std::atomic<T>, cuda::atomic_ref<T, S>,
  // cuda::std::atomic_flag, cuda::std::atomic_int, ...), which another
  // thread's write changes.
  std::vector<std::pair<std::size_t, std::string_view>> flag_declarations(std::size_t from, std::size_t to) const;

  // The `do` of `do body while (...);` whose `while` is at `loop`: before
  // it a braced body, or one statement (`do ++n; while (...);`).
  std::optional<std::size_t> do_of(std::size_t loop) const;

  // How the loop at `loop` (`while` or `for`, its header's `)` at `close`)
  // waits for another thread: its body does nothing, or what it tests each
  // round calls an atomic's reading member or an atomic function, or reads
  // a volatile or atomic variable of `flags` (name: "volatile" or "atomic");
  // an endless loop's body, the same but for the atomic functions that take
  // work (`atomicAdd`). "" if it does not seem to wait: `for (int i = 0; i <
  // n; ++i)`, or `while ((i = next.fetch_add(1)) < n)`, which takes work.
  std::string loop_spin(std::size_t loop, std::size_t close,
                        const std::map<std::string, std::string_view, std::less<>>& flags) const;

  // ---- cooperative groups in stackless kernels ----

  // The token after the name at `name` and its template arguments, if any:
  // the call's `(` in `cg::wait_prior<1>(block)`.
  std::size_t call_parenthesis(std::size_t name) const;

  // `cooperative_groups` or a name the file gives it (`namespace cg = cooperative_groups;`).
  bool is_groups_namespace(std::size_t i) const;
  // Whether token j starts the cooperative-groups name `name` (`cg::name`,
  // or `name` alone where the file uses the namespace); if so, j moves past it.
  bool groups_name_at(std::size_t& j, std::string_view name) const;

  std::set<std::string, std::less<>> find_group_aliases() const;

  // `using namespace cooperative_groups;`, or of a name the file gives it.
  bool uses_groups_namespace() const;

  // cooperative_groups' free functions that wait, each awaited as weft's of the same name.
  static bool group_function_waits(std::string_view name);

  // Names of cooperative_groups that never wait: making groups, their types, the operators.
  static bool group_name_never_waits(std::string_view name);

  // A group's members that wait, awaited as weft::NAME(group, ...).
  static bool group_member_waits(std::string_view name);

  static bool group_member_never_waits(std::string_view name);

  // The names of groups in tokens [from, to): declared with a group's type
  // (`cg::thread_block_tile<32> tile`, a parameter `const cg::thread_group& g`)
  // or as `auto` made by a group function (`auto tile = cg::tiled_partition<32>(block)`).
  std::set<std::string, std::less<>> group_variables(std::size_t from, std::size_t to) const;

  // The names of block-scope cuda::barriers in tokens [from, to), declared
  // `cuda::barrier<cuda::thread_scope_block> bar` (`__shared__` or not, a
  // completion function allowed), or as a parameter `cuda::barrier<...>& bar`.
  std::set<std::string, std::less<>> block_barrier_variables(std::size_t from, std::size_t to) const;

  // The names of the block's groups in tokens [from, to): `cg::thread_block
  // block` or `auto block = cg::this_thread_block()`.
  std::set<std::string, std::less<>> block_variables(std::size_t from, std::size_t to) const;

  // Whether the call whose `(` is at `open` is (group, &state), or
  // partitioned, (group, &state, producer_count) or (group, &state, role):
  // the group a variable of `blocks` (the block's or a tile's name) or
  // this_thread_block(), the forms weft::make_pipeline awaits.
  bool made_of_block(std::size_t open, const std::set<std::string, std::less<>>& blocks) const;

  // The names of the block pipelines weft-port awaits in tokens [from, to):
  // `cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(block, &state);`
  // or `auto pipe = ...` of the same.
  std::set<std::string, std::less<>> block_pipeline_variables(std::size_t from, std::size_t to,
                                                              const std::set<std::string, std::less<>>& blocks) const;

  // The names of thread-scope cuda::pipelines in tokens [from, to): declared
  // `cuda::pipeline<cuda::thread_scope_thread> pipe`, or `auto pipe =
  // cuda::make_pipeline();`.
  std::set<std::string, std::less<>> thread_pipeline_variables(std::size_t from, std::size_t to) const;

  // The `>` closing the template argument list opened at `<`, if it looks like one.
  std::optional<std::size_t> angle_forward(std::size_t open) const;

  // A function defined in this file.
  struct function_definition {
    std::string name;
    std::size_t name_token, open, close;  // the body's braces
    bool kernel, member;
  };

  // Every function defined at namespace or class scope (not lambdas, not
  // local classes' members).
  std::vector<function_definition> function_definitions() const;

  // `#define NAME ...`: its name and its body's tokens.
  struct macro_definition {
    std::string name;
    std::size_t from, to;
  };

  std::vector<macro_definition> macro_definitions() const;

  // The names of types this file declares (their `T(x)` constructs one):
  // classes, enums, aliases and template parameters.
  std::set<std::string, std::less<>> type_names() const;

  // Which of this file's functions and macros never wait, given those of the
  // files it includes; kept in known_ for the files that include this one.
  void find_functions_that_never_wait(const std::vector<function_definition>& functions,
                                      const std::vector<macro_definition>& macros);

  template <class Entities>
  bool resolves_to_never_waiting(std::string_view name, const Entities& entities) const;

  // The `void` a kernel declaration at `name_token` returns, if spelled so:
  // `__global__ void k(`, `__global__ void __launch_bounds__(256) k(`.
  std::optional<std::size_t> void_before(std::size_t name_token) const;

  // The tokens [first, last] of a cast to a void pointer around the name at
  // token i: `(void*)k`, `(const void*)k`, `reinterpret_cast<void*>(k)` or
  // `static_cast<const void*>(k)`; {i, i} if there is none.
  std::pair<std::size_t, std::size_t> as_void_pointer(std::size_t i) const;

  // Whether the name at token i is passed to a runtime call that takes a
  // stackless kernel as it takes any: cudaFuncGetAttributes(&a, k), ...; or,
  // cast to a void pointer, to a launch by address, which finds the kernel
  // registered (registrations): cudaLaunchCooperativeKernel((void*)k, ...).
  bool passed_to_runtime_call(std::size_t i) const;

  // Why the kernel defined by `d` cannot run stackless; "" if it can. Fills
  // `voids` with the tokens its definition's and declarations' `void` is at,
  // and sets `keeps_void_kernel` if its name must keep naming a void kernel
  // that forwards to the stackless body (see void_kernel_body).
  std::string why_not_stackless(const function_definition& d, const body_facts& f,
                                const std::vector<function_definition>& functions, std::vector<std::size_t>& voids,
                                bool& keeps_void_kernel) const;

  // A launch by name of a header's kernel that stays a void kernel forwarding
  // to its stackless body passes it as a value: launched by address, it is
  // found registered with its body; weft::launch<k> would call k on fibers.
  void pass_included_void_kernels_as_values();

  void find_stackless_kernels();

  // A named barrier's port `weft::ptx::bar_sync(1, 64)`, if `c` is one that
  // `f` awaits, becomes `co_await weft::bar_sync(1, 64)`.
  void await_named_barrier(const body_facts& f, construct& c) const;

  struct token_edit {
    std::string before;
    std::optional<std::string> text;  // the token's replacement, if it has one
    std::string after;
  };

  // ---- Kernels of C linkage ----
  //
  // `extern "C" __global__ void k(int* x) { ... }` becomes, on its own lines,
  //   extern "C++" __global__ weft::stackless_kernel weft_port_stackless_k(int* x) { ... }
  //   extern "C" __global__ void k(int* x) { weft::run_on_fiber(weft_port_stackless_k(x)); }
  // (the second after the body's closing brace), and the registration
  // weft::register_kernel<&k, &weft_port_stackless_k>() makes k's launches
  // by address and through its pointer run the stackless body; launches by
  // name pass k as a value for that. k keeps its C symbol, its prototypes
  // and every use of its name.

  // The parameter list of the function named at `name`, on one line, and its
  // parameters' names joined by commas; nullopt if one has no name.
  std::optional<std::pair<std::string, std::string>> forwarded_parameters(std::size_t name) const;

  // A kernel of C++ linkage whose name is used as a value gets the same
  // pair, its void kernel declared as its definition was:
  //   static __global__ weft::stackless_kernel weft_port_stackless_k(int* x) { ... }
  //   static __global__ void k(int* x) { weft::run_on_fiber(weft_port_stackless_k(x)); }
  // so that (void*)k, &k, tables of pointers and attribute queries still
  // find a void kernel, and launches through them run the stackless body.

  // The edits that give the kernel `d` its stackless body (of C++ linkage)
  // and its forwarding void kernel (above).
  void void_kernel_body(const function_definition& d, std::map<std::size_t, token_edit>& edits);

  // ---- region versions ----
  //
  // A stackless kernel whose only waits are block barrier statements
  // (`__syncthreads();`, `cg::sync(block);`, `block.sync();`) that every
  // thread of a block reaches together also gets a region version,
  // `weft_port_regions_NAME`, written after the last line (a header's
  // inside its include guard): the body split at those barriers into
  // regions, each a loop over the block's threads (weft/region_kernel.hpp),
  // so that a barrier costs the end of a loop. Together means provably: each
  // barrier sits at the top of the body, of a block so placed, or of the
  // body of a `for` whose init, condition and step are the same for every
  // thread of the block (literals, blockDim, gridDim, blockIdx, template
  // parameters, parameters the kernel never changes, names it does not
  // declare, the enclosing barrier loops' variables, locals declared once
  // from such values, which then run outside the regions, and the loop's
  // own variables, changed only by the step). The locals that live across a
  // barrier, and the parameters the kernel changes, move to a per-thread
  // struct, if their types are ones weft-port can spell; a kernel that does
  // not fit keeps its stackless version only, and --explain says why.

  // The C++ operator that starts at token i, made of adjacent punctuators
  // (the scanner splits `+=` into `+` `=`): "" if token i is not one.
  std::string operator_at(std::size_t i) const;

  // Whether the name at token k may be changed there: assigned, incremented,
  // or its address taken (then anything may change it).
  bool changed_at(std::size_t k) const;

  // Whether a member or element of the value named at token k may be
  // changed there: `c.value += 1`, `c.items[i] = v`, `&c.value` (a struct
  // parameter's, which the block's threads would otherwise share).
  bool member_changed_at(std::size_t k) const;

  // Whether token k, a whole argument of a call, is passed by value: to one
  // of CUDA's functions that never waits (never_waits: math, atomics,
  // textures, intrinsics, none of which changes an argument passed by name),
  // to a function of the file whose every definition takes that parameter
  // by value or const reference, or to a macro of the file that assigns
  // nothing, takes no address and calls only CUDA's functions.
  bool passed_by_value(std::size_t k) const;

  // Token k names a variable (not a member: `.x`, `->x`).
  bool names_variable(std::size_t k) const;

  // The statement that starts at token i, up to `end`: its last token.
  std::optional<std::size_t> statement_end(std::size_t i, std::size_t end) const;

  // A declaration statement [from, to] (its `;`): the type's tokens and each
  // declarator's name token and whether it has an initializer `= ...`; empty
  // `names` if the statement does not look like a declaration.
  struct declaration {
    std::vector<std::size_t> type;
    std::vector<std::size_t> names;
    bool simple = true;  // every declarator `name` or `name = init`, the type before the first
  };
  declaration declaration_at(std::size_t from, std::size_t to) const;

  // Whether a local of this type may move to the per-thread struct (it
  // default-constructs trivially and weft-port can spell it): builtin
  // arithmetic types, size_t and intN_t, CUDA's vector types, pointers to
  // anything spelled with names. Its struct member's spelling, top-level
  // const dropped, or "" if it may not.
  std::string movable_type(const std::vector<std::size_t>& type) const;

  // Whether tokens [from, to) are an expression every thread of the block
  // computes alike: see the section's head. `loop_variable` (or "") may be
  // read; the kernel's parameters `params` are never changed (checked
  // before), and `locals` are the names the body declares.
  std::string uniform_expression(std::size_t from, std::size_t to, const std::set<std::string, std::less<>>& uniform,
                                 const std::set<std::string, std::less<>>& params,
                                 const std::map<std::string, std::string, std::less<>>& param_types,
                                 const std::set<std::string, std::less<>>& locals,
                                 const std::set<std::string, std::less<>>& changed,
                                 const std::set<std::size_t>* warp_uniform_tokens = nullptr) const;

  // The block barrier statement whose awaited group call is named at token
  // w: `cg::sync(block);` or `block.sync();`, `block` one of `blocks` (the
  // block's group, cooperative_groups::thread_block, which only ever names
  // the caller's block): its first token and its `;`.
  std::optional<std::pair<std::size_t, std::size_t>> block_sync_statement(
      std::size_t w, const std::set<std::string, std::less<>>& blocks) const;

  // The declaration of the block's group at token k, `cg::thread_block
  // block = cg::this_thread_block();` (or `auto block = ...`, `const`
  // allowed): its name token and its `;`.
  std::optional<std::pair<std::size_t, std::size_t>> block_declaration_at(std::size_t k) const;

  // Whether token k is a `#pragma unroll` line, which a region version keeps
  // before its loop.
  bool unroll_pragma(std::size_t k) const;

  // Whether the identifier at token k, a shuffle's mask in the function d,
  // names a constant whose value is the full mask: the file declares that
  // name once, of an integral type of 32 bits or more (a narrower unsigned
  // one would cut the mask), `= 0xffffffff;`, `const` or `constexpr` at
  // namespace scope around d, or at the top of d's body before the shuffle,
  // `const` or never changed after; and no macro of the file names it.
  // `__activemask()` is a call, never this.
  bool names_full_mask(std::size_t k, const function_definition& d) const;

  struct region_plan {
    std::string why_not;  // "" if the kernel gets a region version
    std::string text;     // an inlined call's: the callee's body as the caller's region version runs it
    std::map<std::size_t, token_edit> edits;
    std::vector<std::pair<std::string, std::string>> locals;  // those across a barrier: name, member type
    std::string parameters;                                   // the kernel's, without default arguments
    bool templated = false;                                   // a kernel template's:
    std::string template_head;                                // `template <class T, int N>`
    std::string template_arguments;                           // `<T, N>`
    std::vector<std::string> type_locals;  // the template's type parameters that locals have as their type
    bool warps_in_rows = false;            // a warp's `if` tests threadIdx.x / 32 (region_warps_in_rows)
  };

  // A region version runs a call of a __device__ function of the file that
  // waits inlined: where the call is a statement of its own, `x = f(...);`,
  // `T x = f(...);` or `return f(...) ...;` at a place a barrier may be, the
  // callee's body is planned as the kernel's is and spliced in, in a block
  // of its own (its names stay as written, bound to per-thread members of
  // their own names), at its own lines.
  struct awaitable_function;
  struct region_instance {
    std::string prefix;  // its members' names start so: weft_inlinedN_
    std::string result;  // the callee's result type as written there, "" for void
    std::vector<std::size_t> result_tokens;
    std::map<std::string, std::vector<std::size_t>, std::less<>> type_arguments;  // type parameter: the caller's tokens
    std::string front;  // what its block declares first: template parameters, shared parameters
    // The same for a flat callee (plan_regions): its shared parameters as
    // constants of its prefix, which need no block of their own.
    std::string flat_front;
    std::vector<std::pair<std::string, std::vector<std::size_t>>> thread_parameters;  // each thread's own: name, type
    std::set<std::string, std::less<>> shared_parameters;  // of value type, the same for every thread
    std::map<std::string, std::string, std::less<>> shared_types;
    std::set<std::string, std::less<>> blocks;               // parameters that name the block's group
    std::set<std::string, std::less<>> template_names;       // its template parameters, declared in its block
    std::set<std::string, std::less<>> same_template_names;  // those the caller's of the same name set
    int caller_line = 0;                                     // where the caller goes on
    bool returns_before_end = false;                         // out: a later region must skip a thread that returned
    std::vector<std::string> guards;  // the warps' `if`s around the call: their flags, which its regions test
  };
  // What a kernel's plan shares with the calls it inlines.
  struct region_inlining {
    std::vector<std::pair<std::string, std::string>> members;  // the inlined calls' per-thread members: name, type
    std::size_t count = 0;
    std::vector<std::string> open_calls;                 // the callees being inlined, outermost first
    std::set<std::string, std::less<>> outer_names;      // what the bodies around an inlined call declare
    std::set<std::string, std::less<>> with_shared;      // callees inlined that declare __shared__ memory
    std::set<std::string, std::less<>> type_parameters;  // the kernel template's
    std::set<std::string, std::less<>> template_names;   // the kernel template's parameters, which none may redeclare
    std::vector<std::string> namespaces;                 // around the kernel
    bool shuffles = false;                               // the kernel's or a callee's shuffles are split
    bool warps_in_rows = false;                          // a warp's `if` tests threadIdx.x / 32
  };

  region_plan plan_regions(const function_definition& d, const body_facts& f, region_instance* instance = nullptr,
                           region_inlining* shared_inlining = nullptr) const;

  // What renders a body as its region plan has it: the file's constructs
  // inside the body and the plan's edits, in the order render takes them.
  std::vector<construct> region_constructs(const function_definition& d, const region_plan& plan) const;

  // The region version's text, written after the last line: the body as
  // planned, at the kernel's lines, and its registration.
  std::string render_region_version(const function_definition& d, const region_plan& plan) const;

  // ---- __device__ functions that wait, made awaitable ----
  //
  // A __device__ function of this file that waits (itself or through others
  // such) gets a second version, `weft_port_awaitable_NAME`, returning
  // weft::stackless_function<T>, with its waits awaited as in a kernel; a
  // converted kernel's call `f(x)` becomes `(co_await weft_port_awaitable_f(x))`.
  // The plain version stays as it is for every other caller (fiber kernels,
  // host code). The awaitable one is declared on the line of each
  // declaration of the plain one, after it, and defined after the file's
  // last line, behind a #line directive that puts its body at the plain
  // body's lines (docs/porting.md, "Stackless kernels").

  struct function_head {
    std::string template_header;  // `template <class T>`, or ""
    bool is_static = false;
    std::string result;  // the return type as written, "void" included
    std::vector<std::size_t> result_tokens;
    std::size_t lparen = 0, rparen = 0;
  };

  struct awaitable_function {
    std::string name;
    function_definition definition;
    body_facts facts;
    function_head head;                                               // the definition's
    std::vector<std::pair<std::size_t, function_head>> declarations;  // the token each ends at, its head
    bool emitted = false;
  };
  std::vector<awaitable_function> awaitables_;                         // this file's __device__ functions that may wait
  std::map<std::string, std::string, std::less<>> awaitable_why_not_;  // "" for those made awaitable
  std::set<std::string, std::less<>> waits_somewhere_;  // those of awaitables_ that wait, directly or not

  // The head of a __device__ function declared at `name_token`, if
  // weft-port can write the awaitable version's from it.
  std::optional<function_head> head_of_function(std::size_t name_token) const;

  // `template <...> static weft::stackless_function<T> weft_port_awaitable_NAME(params)`, and
  // `;` for a declaration (default arguments as the plain one's), the
  // parameters without defaults for the definition.
  std::string twin_declaration(const awaitable_function& a, const function_head& h, bool declaration) const;

  // Whether call c of `f` is to a function of this file made awaitable.
  bool awaitable_call(const body_facts& f, std::size_t c) const;

  // Which of this file's __device__ functions that may wait weft-port makes
  // awaitable (awaitable_why_not_: "" for those, why not for the others).
  void find_awaitable_functions(const std::vector<function_definition>& functions);

  // Whether token `at` is inside a preprocessor conditional, other than the
  // include guard around the whole file (`#ifndef X` and `#define X` first).
  bool inside_conditional(std::size_t at) const;

  // Whether awaitable function `from` calls `to`, directly or through others.
  bool reaches(const std::string& from, const std::string& to) const;

  // Whether the function named at token `name` is declared `extern "C"`,
  // itself or inside an `extern "C" { ... }` block.
  bool has_c_linkage(std::size_t name) const;

  // The namespaces (and extern "C" blocks) around token `at`, each as its opening `namespace a {`.
  std::vector<std::string> namespaces_around(std::size_t at) const;

  // The #endif that closes the include guard of a file that begins `#ifndef
  // NAME` `#define NAME` and ends with it: a header's awaitable versions go
  // before it, inside the guard. Its byte offset and line.
  std::optional<std::pair<std::size_t, int>> include_guard_end() const;

  // Whether a header's awaitable versions can be written inside its include
  // guard: before the guard's #endif, or after the last line of a file with
  // `#pragma once` or that does not end with an #endif (no guard, where a
  // second inclusion would define the plain functions twice too).
  bool awaitables_fit_in_header() const;

  // The awaitable versions' definitions, written after the file's last line.
  std::string render_awaitable_functions() const;

  // Each wait of a body awaited, each `return` a `co_return`; one edit per
  // token, as a wait's `)` may end another's argument.
  std::map<std::size_t, token_edit> await_edits(const body_facts& f) const;

  // The top-level arguments of the call whose parentheses are at `open` and
  // `close`, each as its tokens [first, end).
  std::vector<std::pair<std::size_t, std::size_t>> top_level_arguments(std::size_t open, std::size_t close) const;

  // ---- finding the constructs ----

  void find_constructs();

  bool opens_namespace(std::size_t brace) const;

  // `a::b` of `namespace a::b {`; "" for an anonymous namespace or extern "C".
  std::string namespace_name(std::size_t brace) const;

  // Records the __global__ function declared from token `at`, unless it is
  // a template (no address without its arguments) or defined out of line.
  void kernel_at(std::size_t at, const std::vector<std::string>& namespaces);

  // Whether a parameter list gives a parameter a default argument.
  bool has_default_arguments(std::size_t open, std::size_t close) const;

  // How a launch passes the kernel its tokens [first, end) name. Only a
  // plain name, `k`, `ns::k`, `::k`, `k<T>` or `ns::template k<T>`, of a
  // __global__ function this file or a file it includes declares is known at
  // compile time: weft::launch<k> then calls it directly. A template named
  // without its arguments, an overloaded name, or a kernel with default
  // arguments becomes a generic lambda whose call picks them from the
  // arguments (as the launch's own call would). Anything else is passed as
  // a value.
  launch_kernel kernel_form(std::size_t first, std::size_t end) const;

  // How many comma-separated items lie between the brackets at `open` and
  // `close` (template parameters or arguments), counting only commas outside
  // nested brackets.
  std::size_t top_level_items(std::size_t open, std::size_t close) const;

  // A parameter list's types, to tell overloads from redeclarations: each
  // parameter without its default argument and its name (a last identifier
  // that follows other tokens), `int* p, int n = 4` -> `int*, int`. A name it
  // fails to drop only makes two declarations look like overloads, whose
  // launches then take the generic lambda, which works for both.
  std::string signature(std::size_t open, std::size_t close) const;

  [[noreturn]] void fail(std::size_t i, const std::string& what) const;

  // kernel<<<config>>>(args), with `<<<` at token `open`.
  construct launch_at(std::size_t open);

  // The first token of the kernel expression that ends just before `<<<`:
  // k, ns::k, ::k, k<T, 4>, ns::template k<T>, (k), table[i], get_kernel(), obj.k.
  std::size_t kernel_start(std::size_t open) const;

  // `[static] __shared__ alignas(n) T x;` becomes `alignas(n) [static] __shared__ T x;`.
  // __shared__ is thread_local, and C++ allows a standard attribute such as
  // alignas only before the declaration's specifiers or after its name, not
  // after thread_local; nvcc accepts it there. nullopt when no alignas
  // follows the __shared__ at `at`.
  std::optional<construct> alignas_after_shared_at(std::size_t at);

  // `extern __shared__ T name[];` (in either order, with __align__(n),
  // alignas(n), __attribute__((...)) or [[...]] anywhere among the
  // specifiers), starting at token `first`. nullopt when the declaration at i is
  // something else (extern "C", extern int x;, a static __shared__ array).
  std::optional<construct> extern_shared_at(std::size_t first, bool namespace_scope);

  // The text of tokens [from, to) (only those listed in `only`, if given),
  // with one space where the source had space or a comment, or a dropped token.
  std::string join(std::size_t from, std::size_t to, const std::vector<std::size_t>* only) const;

  // The line breaks in source bytes [begin, end), spliced ones as splices.
  std::string line_breaks(std::size_t begin, std::size_t end) const;

  // ---- rendering ----

  // Source bytes [from, to) with the constructs inside rewritten; in a
  // __host__ __device__ function's body, as `view` sees __CUDA_ARCH__.
  std::string render(std::size_t from, std::size_t to, std::optional<arch_view> view) const;

  // The line and column (both from 1) of source byte `at`.
  std::pair<int, std::size_t> position(std::size_t at) const;

  // A __host__ __device__ function's body whose tests of __CUDA_ARCH__ read
  // differently in nvcc's two passes: both versions, the device view's run
  // inside a kernel (and in the functions it calls), the host view's
  // elsewhere (and in constant evaluation). #line directives put each copy
  // at the body's own lines and columns, so errors in either point there.
  //   { BODY }  ->  { if (weft::detail::in_kernel()) {
  //                 #line L
  //                 BODY (device view)
  //                 } else {
  //                 #line L
  //                 BODY (host view)
  //                 }
  //                 #line L2
  //                 }
  std::string render_dual_body(const construct& c) const;

  // The spaces or comments between a launch's parts: comments and line breaks
  // are kept, plain spaces (`k <<< 1, 1 >>> (x)`) are not.
  std::string gap(std::size_t begin, std::size_t end) const;

  // K gap1 <<<CONFIG>>> gap2 (ARGS)  ->  weft::launch(weft::launch_config{CONFIG}, K gap1 gap2, ARGS)
  // Every byte but `<<<`, `>>>` and the parentheses is kept, so are the lines.
  std::string render_launch(const construct& c, std::optional<arch_view> view) const;
};

}  // namespace weft_port_tool
