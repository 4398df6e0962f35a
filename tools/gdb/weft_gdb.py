# weft's gdb extension: CUDA threads, blocks and types as cuda-gdb shows them.
#
#   weft threads            the current block's CUDA threads and their state
#   weft thread X [Y Z]     the backtrace of a parked CUDA thread
#   weft blocks             the block each SM worker runs
#
# plus pretty-printers for dim3, uint3 and cudaError_t. Load it with
# `source <prefix>/share/weft/gdb/weft_gdb.py` (docs/debugging.md, "gdb").
#
# It reads weft's private data structures by name: block_executor (its
# thread_slot, barrier lists and warp groups), the thread-locals
# running_block, threadIdx, blockIdx, blockDim and gridDim, and the frame
# that weft_jump_context (context_switch.hpp) saves. When one of them
# changes, change this file too; a field it cannot find is reported as
# such, never as a Python traceback.
import gdb
import gdb.printing

NAMESPACE = "weft::detail::"


class WeftLayoutError(gdb.GdbError):
    """weft's data structures no longer match what this script reads."""


def type_name(value_type):
    # The tag, not str(type): with a C frame selected (a host thread waiting
    # in glibc) gdb spells the type "struct uint3", with a C++ one "uint3".
    return value_type.strip_typedefs().tag or str(value_type)


def field(value, name):
    try:
        return value[name]
    except gdb.error:
        raise WeftLayoutError(
            "weft_gdb.py: %s has no field '%s': this script does not match the weft headers the program "
            "was built with (tools/gdb/weft_gdb.py reads block_executor.hpp's members by name)" %
            (type_name(value.type), name)) from None


def global_variable(name):
    # Parsed as C++ whatever the selected frame's language: a worker waiting
    # for work stops in libc, whose frames gdb reads as C.
    language = gdb.parameter("language")
    try:
        gdb.execute("set language c++", to_string=True)
        value = gdb.parse_and_eval(NAMESPACE + name)
        value.fetch_lazy()  # read now, from the selected thread
        return value
    except gdb.error as error:
        raise WeftLayoutError("weft_gdb.py: cannot read %s%s (%s): is this a weft program built with -g?"
                              % (NAMESPACE, name, error)) from None
    finally:
        gdb.execute("set language %s" % language, to_string=True)


def atomic_value(value):
    """The value of a std::atomic<integer> (libstdc++ keeps it in _M_i)."""
    try:
        return int(value["_M_i"])
    except gdb.error:
        return int(value.cast(value.type.template_argument(0)))


def vector_items(vector):
    impl = field(vector, "_M_impl")
    start = impl["_M_start"]
    return [start[i] for i in range(int(impl["_M_finish"] - start))]


def thread_list_items(lst):
    ids = field(field(lst, "ids_"), "_M_impl")["_M_start"]
    return [int(ids[i]) for i in range(int(field(lst, "size_")))]


def triple(value):
    return (int(value["x"]), int(value["y"]), int(value["z"]))


def show_triple(t):
    return "(%d,%d,%d)" % t


def source_site(location):
    """`file:line` of a std::source_location, or None if it is empty."""
    impl = location["_M_impl"]
    if int(impl) == 0:
        return None
    impl = impl.dereference()
    return "%s:%d" % (impl["_M_file_name"].string(), int(impl["_M_line"]))


BARRIER_NAMES = {"sync": "__syncthreads", "count": "__syncthreads_count", "all": "__syncthreads_and",
                 "any": "__syncthreads_or"}
WARP_NAMES = {"sync": "__syncwarp", "shfl": "__shfl_sync", "shfl_up": "__shfl_up_sync",
              "shfl_down": "__shfl_down_sync", "shfl_xor": "__shfl_xor_sync", "ballot": "__ballot_sync",
              "any": "__any_sync", "all": "__all_sync", "match_any": "__match_any_sync",
              "match_all": "__match_all_sync"}


def enum_name(value, names):
    text = str(value).split("::")[-1]
    return names.get(text, text)


def running_block():
    block = global_variable("running_block")
    if int(block) == 0:
        return None
    return block.dereference()


class Block:
    """What gdb can tell of the block the selected worker runs."""

    def __init__(self, executor):
        self.executor = executor
        self.dim = triple(field(executor, "block_dim_"))
        self.count = int(field(executor, "thread_count_"))
        self.generation = atomic_value(field(executor, "generation_"))
        self.slots = field(field(executor, "slots_"), "_M_impl")["_M_start"]
        self.permuted = bool(field(executor, "permuted_"))
        positions = vector_items(field(executor, "start_position_")) if self.permuted else None
        self.position = (lambda i: int(positions[i])) if self.permuted else (lambda i: i)
        self.running = self.linear(triple(global_variable("threadIdx")))
        # The runner loop keeps its cursor in a register and publishes it
        # only when a thread parks: every thread up to the running one has
        # started too.
        self.started_below = max(int(field(executor, "next_unstarted_")), self.position(self.running) + 1)

    def linear(self, index):
        return index[0] + self.dim[0] * (index[1] + self.dim[1] * index[2])

    def index(self, linear):
        x, rest = linear % self.dim[0], linear // self.dim[0]
        return (x, rest % self.dim[1], rest // self.dim[1])

    def slot(self, linear):
        return self.slots[linear]

    def parked(self, linear):
        return int(field(self.slot(linear), "parked_in")) == self.generation

    def states(self):
        """Each thread's linear id, state and where it waits."""
        e = self.executor
        waiting = set(thread_list_items(field(e, "waiting_")))
        ready_all = thread_list_items(field(e, "ready_"))
        ready = set(ready_all[int(field(e, "ready_head_")):])
        converging = set(thread_list_items(field(e, "converging_")))
        on_objects = set(int(v) for v in vector_items(field(e, "on_objects_")))
        in_groups = {}
        counts = vector_items(field(e, "group_count_"))
        groups = field(field(e, "groups_"), "_M_impl")["_M_start"]
        for warp, count in enumerate(counts):
            if warp * 32 >= self.count:
                break
            for i in range(int(count)):
                group = groups[warp * 32 + i]
                arrived = int(field(group, "arrived"))
                for lane in range(32):
                    if arrived >> lane & 1:
                        in_groups[warp * 32 + lane] = group
        result = []
        for t in range(self.count):
            slot = self.slot(t)
            site = None
            if t == self.running:
                state = "running"
            elif self.parked(t) and not bool(field(slot, "exited")):
                site = source_site(field(slot, "waiting_at"))
                if t in ready:
                    state = "ready (released, not yet resumed)"
                elif t in waiting:
                    state = "waiting at " + enum_name(field(slot, "kind"), BARRIER_NAMES)
                elif t in in_groups:
                    group = in_groups[t]
                    state = "waiting at %s (mask 0x%08x)" % (enum_name(field(group, "op"), WARP_NAMES),
                                                             int(field(group, "mask")))
                    site = source_site(field(group, "where"))
                elif t in converging:
                    state = "waiting at __activemask"
                elif t in on_objects:
                    state = "waiting at " + field(slot, "wait_name").string()
                else:
                    state = "parked"
            elif self.position(t) < self.started_below:
                state = "exited"
            else:
                state = "not started"
            result.append((t, state, site))
        return result


def current_block():
    executor = running_block()
    if executor is None:
        raise gdb.GdbError("weft: the selected thread runs no block (select an SM worker with `thread N`; "
                           "`weft blocks` lists them)")
    return Block(executor)


class WeftCommand(gdb.Command):
    """weft's commands for CUDA threads: weft threads, weft thread X [Y Z], weft blocks."""

    def __init__(self):
        super().__init__("weft", gdb.COMMAND_STATUS, gdb.COMPLETE_NONE, True)


class WeftThreads(gdb.Command):
    """List the CUDA threads of the block the selected worker runs, by threadIdx, with their state.

Consecutive threads in the same state at the same line are shown as one range."""

    def __init__(self):
        super().__init__("weft threads", gdb.COMMAND_STATUS)

    def invoke(self, argument, from_tty):
        block = current_block()
        print("block %s of grid %s, %d threads of %s" % (show_triple(triple(global_variable("blockIdx"))),
                                                          show_triple(triple(global_variable("gridDim"))),
                                                          block.count, show_triple(block.dim)))
        rows = block.states()
        i = 0
        while i < len(rows):
            j = i + 1
            while j < len(rows) and rows[j][1:] == rows[i][1:] and rows[i][1] != "running":
                j += 1
            first = show_triple(block.index(rows[i][0]))
            span = first if j - i == 1 else "%s..%s" % (first, show_triple(block.index(rows[j - 1][0])))
            marker = "*" if rows[i][1] == "running" else " "
            state = rows[i][1] + (" at " + rows[i][2] if rows[i][2] else "")
            if rows[i][1] == "running":
                frame = gdb.newest_frame().find_sal()
                if frame.symtab:
                    state += " at %s:%d" % (frame.symtab.filename, frame.line)
            print("%s threadIdx %-22s %s" % (marker, span, state))
            i = j


# weft_jump_context's saved frame (context_switch.hpp): the context points
# at it; 0x38 holds where the fiber resumes, the callee-saved registers
# lie below, and the stack pointer after the switch is context + 0x40.
SAVED_REGISTERS = (("r12", 0x8), ("r13", 0x10), ("r14", 0x18), ("r15", 0x20), ("rbx", 0x28), ("rbp", 0x30))
RESUME_ADDRESS = 0x38
STACK_AFTER_SWITCH = 0x40
# jump_context_inline resumes at `leaq 0x80(%rsp), %rsp`, which gives back
# the red zone it stepped over: its caller's stack pointer is 0x80 higher.
INLINE_RESUME = bytes([0x48, 0x8D, 0xA4, 0x24, 0x80, 0x00, 0x00, 0x00])
INLINE_RED_ZONE = 0x80


def read_word(inferior, address):
    return int.from_bytes(bytes(inferior.read_memory(address, 8)), "little")


class WeftThread(gdb.Command):
    """Show the backtrace of a parked CUDA thread of the selected worker's block: weft thread X [Y Z].

The registers of the selected worker are set for a moment to those the
thread's fiber saved when it parked, gdb prints the backtrace, and the
registers are put back. x86-64 only."""

    def __init__(self):
        super().__init__("weft thread", gdb.COMMAND_STACK)

    def invoke(self, argument, from_tty):
        words = gdb.string_to_argv(argument)
        if not 1 <= len(words) <= 3:
            raise gdb.GdbError("usage: weft thread X [Y Z]")
        try:
            index = tuple(int(gdb.parse_and_eval(w)) for w in words) + (0,) * (3 - len(words))
        except gdb.error as error:
            raise gdb.GdbError("weft thread: %s" % error)
        block = current_block()
        if any(i >= d for i, d in zip(index, block.dim)):
            raise gdb.GdbError("weft thread: threadIdx %s is outside the block %s" % (show_triple(index),
                                                                                      show_triple(block.dim)))
        linear = block.linear(index)
        if linear == block.running:
            gdb.execute("backtrace")
            return
        state = dict((t, s) for t, s, _ in block.states())[linear]
        if not (state.startswith("waiting") or state.startswith("ready") or state == "parked"):
            raise gdb.GdbError("weft thread: threadIdx %s is %s: it has no stack to show" % (show_triple(index),
                                                                                             state))
        context = int(field(block.slot(linear), "context"))
        if gdb.selected_inferior().architecture().name() != "i386:x86-64":
            raise gdb.GdbError("weft thread: only x86-64's saved frames are known")
        inferior = gdb.selected_inferior()
        registers = {name: read_word(inferior, context + offset) for name, offset in SAVED_REGISTERS}
        registers["rip"] = read_word(inferior, context + RESUME_ADDRESS)
        registers["rsp"] = context + STACK_AFTER_SWITCH
        if bytes(inferior.read_memory(registers["rip"], len(INLINE_RESUME))) == INLINE_RESUME:
            registers["rsp"] += INLINE_RED_ZONE
        print("CUDA thread %s, %s (fiber context 0x%x):" % (show_triple(index), state, context))
        selected = gdb.selected_frame()
        gdb.newest_frame().select()
        saved = {name: int(gdb.parse_and_eval("$" + name)) for name in registers}
        try:
            for name, value in registers.items():
                gdb.execute("set $%s = %d" % (name, value), to_string=True)
            gdb.execute("backtrace")
        finally:
            for name, value in saved.items():
                gdb.execute("set $%s = %d" % (name, value), to_string=True)
            gdb.newest_frame().select()
            try:
                selected.select()
            except gdb.error:
                pass


class WeftBlocks(gdb.Command):
    """List the block that each SM worker (a host thread) runs, with its blockIdx."""

    def __init__(self):
        super().__init__("weft blocks", gdb.COMMAND_STATUS)

    def invoke(self, argument, from_tty):
        selected = gdb.selected_thread()
        rows = []
        try:
            for thread in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num):
                thread.switch()
                try:
                    executor = running_block()
                except WeftLayoutError:
                    raise
                if executor is None:
                    continue
                rows.append("%sgdb thread %d (%s): blockIdx %s of grid %s, blockDim %s" % (
                    "*" if thread == selected else " ", thread.num, thread.name or "",
                    show_triple(triple(global_variable("blockIdx"))), show_triple(triple(global_variable("gridDim"))),
                    show_triple(triple(global_variable("blockDim")))))
        finally:
            selected.switch()
        print("\n".join(rows) if rows else "no worker runs a block")


class TriplePrinter:
    def __init__(self, value):
        self.value = value

    def to_string(self):
        return show_triple(triple(self.value))


class CudaErrorPrinter:
    def __init__(self, value):
        self.value = value

    def to_string(self):
        number = int(self.value)
        for enum_field in self.value.type.strip_typedefs().fields():
            if enum_field.enumval == number:
                return "%s (%d)" % (enum_field.name.split("::")[-1], number)
        return "cudaError (%d)" % number


def build_printers():
    printers = gdb.printing.RegexpCollectionPrettyPrinter("weft")
    printers.add_printer("dim3", "^dim3$", TriplePrinter)
    printers.add_printer("uint3", "^uint3$", TriplePrinter)
    printers.add_printer("cudaError_t", "^cudaError$", CudaErrorPrinter)
    return printers


WeftCommand()
WeftThreads()
WeftThread()
WeftBlocks()
gdb.printing.register_pretty_printer(None, build_printers(), replace=True)
