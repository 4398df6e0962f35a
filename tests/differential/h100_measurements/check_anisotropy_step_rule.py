#!/usr/bin/env python3
"""Checks the rule for the direction of anisotropic samples
(anisotropic_sampling.hpp's anisotropic_step) against every step found
exactly from the H200's responses: anisotropy2.txt's (listed in README.md),
anisotropy3_steps.txt and anisotropy4_steps.txt. The rule: the major axis's
components (after the gradients' truncation, fit_anisotropy_steps.py's
major_axis) cut to a grid of 2^(e - 4), 2^e the power of two above the longer
one, and taken at the middle of their cells (a component under a quarter of
the grid counts as zero); that vector's direction at length 64, each
component rounded. Prints the steps it misses and the count it gives. Run
from anywhere:
  python3 tests/differential/h100_measurements/check_anisotropy_step_rule.py
"""
import math
import re
from pathlib import Path

import fit_anisotropy_steps as fit

HERE = Path(__file__).resolve().parent
ANISOTROPY2_STEPS = {0: (64, 6), 1: (63, 10), 2: (61, 18), 3: (60, 21), 4: (58, 26), 5: (54, 34), 6: (52, 37),
                     7: (49, 41), 8: (45, 45), 9: (31, 56), 10: (-10, 63), 11: (60, -21), 12: (60, 22), 13: (60, 22)}


def rule_step(x, y):
    e = math.frexp(max(abs(x), abs(y)))[1]
    grid = 2.0 ** (e - 4)
    middle = [0.0 if abs(v) < grid / 4 else math.copysign(math.floor(abs(v) / grid) + 0.5, v) for v in (x, y)]
    scale = 64 / math.hypot(*middle)
    return tuple(int(math.copysign(math.floor(abs(m) * scale + 0.5), m)) for m in middle)


def configs(name, fields):
    found = {}
    for line in open(HERE / name):
        f = line.split()
        if f and f[0] == "C":
            found[int(f[1])] = [float.fromhex(f[i]) for i in fields]
    return found


def measured():
    """(source, dx, dy, step) for every step found exactly."""
    c2 = configs("anisotropy2.txt", (7, 8, 10, 11))
    for c, step in ANISOTROPY2_STEPS.items():
        yield f"anisotropy2 {c}", c2[c][:2], c2[c][2:], step
    c3 = configs("anisotropy3.txt", (3, 4, 6, 7))
    for line in open(HERE / "anisotropy3_steps.txt"):
        m = re.match(r"(\d+) .*step \((-?\d+), (-?\d+)\) misses 0$", line)
        if m:
            c = int(m.group(1))
            yield f"anisotropy3 {c}", c3[c][:2], c3[c][2:], (int(m.group(2)), int(m.group(3)))
    c4 = configs("anisotropy4.txt", (3, 4, 6, 7))
    for line in open(HERE / "anisotropy4_steps.txt"):
        f = line.split()
        if f[0] != "#" and f[5] == "0":
            c = int(f[0])
            yield f"anisotropy4 {c}", c4[c][:2], c4[c][2:], (int(f[3]), int(f[4]))


def main():
    total = good = 0
    for source, dx, dy, step in measured():
        axis, _ = fit.major_axis(dx, dy)
        got = rule_step(*axis)
        same = got == step or got == (-step[0], -step[1])
        total += 1
        good += same
        if not same:
            print(f"{source}: major axis {axis[0]:.6f} {axis[1]:.6f} measured {step} rule {got}")
    print(f"{good} of {total} steps found exactly match the rule")


if __name__ == "__main__":
    main()
