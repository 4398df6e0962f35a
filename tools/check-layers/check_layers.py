#!/usr/bin/env python3
"""Checks that weft's headers include only their own layer or layers below it.

The layers, bottom up, are the folders of include/weft (docs/architecture.md
draws them). A header may include headers of its own layer and of lower
ones; an include that runs upwards is printed with its line, and the exit
status is 1. Run it as `check_layers.py [include-dir]`; CI runs it as a test.
"""
import pathlib
import re
import sys

# Bottom first. A header belongs to the first layer whose prefix its path
# (relative to include/) starts with.
LAYERS = [
    ("base", ["weft/detail/base/"]),
    ("trace", ["weft/detail/trace/"]),
    # Fibers: the context switch, stacks, and what ASan and TSan are told of them.
    ("fibers", ["weft/detail/fibers/"]),
    # What kernel code's accesses meet in checking builds: the race check's
    # shadow and reports, the memory check's poisoned memory and __shared__ guards.
    ("checks", ["weft/detail/checks/"]),
    # The fiber block executor: barriers, warps, faults and reports of a block.
    ("executor", ["weft/detail/executor/"]),
    # Stackless kernels' executor: CUDA threads as C++20 coroutines, beside
    # the fiber executor, whose reports and dynamic shared memory it uses.
    ("coroutine_executor", ["weft/detail/coroutine_executor/"]),
    # Each device's commands and the order between them (the command graph).
    ("commands", ["weft/detail/commands/"]),
    ("scheduler", ["weft/detail/scheduler/"]),
    # Each simulated device's state: worker pool, limits, registries.
    ("runtime", ["weft/detail/runtime/"]),
    # What the host does with a device's streams: handles, copies as
    # commands, waiting, resetting, where host coroutines resume.
    ("streams", ["weft/detail/streams/"]),
    # Finding, laying out and copying memory, on top of the streams.
    ("memory", ["weft/detail/memory/"]),
    # CUDA arrays' storage and texel formats, which texture and surface
    # fetches read directly; copies to and from arrays on top of memory's.
    ("texture_arrays", ["weft/detail/textures/arrays/"]),
    # A texture fetch's arithmetic, from coordinates to the four words the
    # texture unit returns: plain functions of a sampler, no state.
    ("texture_sampling", ["weft/detail/textures/sampling/"]),
    # The live texture and surface objects, and where a surface access lands
    # (a failed one fails the launch, through the block executor).
    ("texture_objects", ["weft/detail/textures/objects/"]),
    # CUDA graphs: the graph a program builds, and its instantiation and
    # launch as commands of the device's command graph.
    ("graphs", ["weft/detail/graphs/"]),
    # The CUDA surface and weft's own API are one layer: CUDA's spelling and
    # weft's native spelling of the same things, calling into the layers below.
    # A CUDA-spelled entry point checks its arguments and forwards, in a line
    # or a few, to the layer that does the work; the surface holds CUDA's
    # vocabulary (enums, structs) and helpers that only read CUDA's argument
    # structs into weft's terms (namespace weft::surface), never state,
    # registries or copy engines, which live in detail/.
    # weft/cuda/driver/ (the driver API, <cuda.h>) is part of it, beside
    # weft/cuda/runtime/; weft.hpp does not include it.
    ("surface", ["weft/cuda/", "weft/cuda/driver/", "weft/launch.hpp", "weft/launch_by_address.hpp", "weft/device.hpp", "weft/shared_memory.hpp", "weft/coroutine.hpp", "weft/index_ranges.hpp", "weft/stackless_kernel.hpp", "weft/stackless_groups.hpp", "weft/stackless_barrier.hpp", "weft/stackless_pipeline.hpp", "weft/stackless_named_barriers.hpp", "weft/region_kernel.hpp"]),
    # weft.hpp, and the part of it that host code sees (<cuda_runtime.h>).
    ("umbrella", ["weft.hpp", "weft/host_view.hpp"]),
    ("compat", ["weft/compat/"]),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](weft[^">]*)[">]')


def layer_of(path):
    for rank, (name, prefixes) in enumerate(LAYERS):
        if any(path == p or path.startswith(p) for p in prefixes):
            return rank, name
    return None, None


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[2] / "include")
    problems = []
    headers = [p for p in root.rglob("*") if p.is_file()]
    for header in sorted(headers):
        path = header.relative_to(root).as_posix()
        rank, name = layer_of(path)
        if rank is None:
            problems.append(f"{path}: in no layer (add its folder to LAYERS in {pathlib.Path(__file__).name})")
            continue
        for number, line in enumerate(header.read_text().splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = match.group(1)
            target_rank, target_name = layer_of(target)
            if target_rank is None:
                problems.append(f"{path}:{number}: includes {target}, which is in no layer")
            elif target_rank > rank:
                problems.append(f"{path}:{number}: the {name} layer includes {target} of the {target_name} layer above it")
    for problem in problems:
        print(problem)
    print(f"{len(headers)} headers, {len(problems)} include(s) against the layering")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
