#!/usr/bin/env python3
"""Finds the step between anisotropic samples for each configuration of
anisotropy3.txt (or of another sweep in its format, anisotropy4.txt, named
first): weft's model of the samples (docs/textures.md,
"Anisotropic filtering"; include/weft/detail/textures/sampling/anisotropic_sampling.hpp)
with each candidate step in 64ths near the response's principal direction,
compared with the measured response on its grid. Prints, per
configuration, the gradients, the step that matches, and how many grid points
it misses (0: an exact match). Run from the repository root:
  python3 tests/differential/h100_measurements/fit_anisotropy_steps.py [anisotropy4.txt] [config ...]
"""
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEADER = HERE.parents[2] / "include/weft/detail/textures/sampling/gradient_level.hpp"
text = HEADER.read_text()
block = text[text.index("level_log2_fraction[256] = {"):]
LOG_TABLE = [int(v) for v in re.findall(r"\d+", block[block.index("{") + 1:block.index("}")])]


def round_half_up(v):
    return math.floor(v + 0.5)


def fixed_log2(length):  # gradient_level.hpp's fixed_level_log2, in 256ths
    mantissa, exponent = math.frexp(length)
    return (exponent - 1) * 256 + LOG_TABLE[int((mantissa * 2 - 1) * 256)]


def unit_below(scale, bits):
    return 2.0 ** (math.frexp(scale)[1] - bits)


def truncate10(v):
    return 0.0 if v == 0 else math.trunc(v / unit_below(v, 10)) * unit_below(v, 10)


def approximate_length(x, y):
    a, b = sorted((abs(x), abs(y)), reverse=True)
    return 0.0 if a == 0 else a + math.floor(b * 11 / 32 / unit_below(a, 10)) * unit_below(a, 10)


def diagonal(v):
    k = truncate10(v)
    m = abs(k)
    if m == 0:
        return 0.0
    part = lambda f: round_half_up(m * f / unit_below(m, 12)) * unit_below(m, 12)
    return math.copysign(part(1 / 2) + part(1 / 8) + part(1 / 16), k)


def major_axis(dx, dy):
    p, q = [truncate10(v) for v in dx], [truncate10(v) for v in dy]
    candidates = [p, q, [diagonal(p[0] + q[0]), diagonal(p[1] + q[1])], [diagonal(p[0] - q[0]), diagonal(p[1] - q[1])]]
    best = max(candidates, key=lambda c: approximate_length(*c))
    return best, approximate_length(*best)


def sample_weights(length):
    pairs = math.ceil(length / 2)
    reciprocal = 2.0 ** (-fixed_log2(length) / 256)
    exponent = math.frexp(reciprocal)[1]
    significant_bits = 8 - exponent + (1 if 2.0 ** (exponent - 1) == reciprocal else 0)
    unit_bits = min(10, significant_bits)
    # rounded at 8 significant bits, then truncated to 1024ths past P = 8
    inner = math.floor(reciprocal * 2 ** significant_bits + 0.5) >> (significant_bits - unit_bits)
    rest = 2 ** unit_bits - 2 * inner * (pairs - 1)
    return [inner] * (pairs - 1) + [max(rest, 0) // 2], unit_bits


def texel_shares(weight, a, b):  # mipmap_level_weights
    right = round_half_up(a * weight / 256)
    left = weight - right
    right_lower = round_half_up(right * b / 256)
    left_upper = round_half_up(left * (256 - b) / 256)
    return ((0, 0, left_upper), (1, 0, right - right_lower), (0, 1, left - left_upper), (1, 1, right_lower))


def delta_response(offset, step, weights, unit_bits):
    """The delta texel's weight, in 1024ths, for a fetch `offset` texels from its centre."""
    total = 0
    for k, weight in enumerate(weights):
        for side in (1, -1):
            u = 128 + offset[0] + side * (2 * k + 1) * step[0] / 128
            v = 128 + offset[1] + side * (2 * k + 1) * step[1] / 128
            i, a = math.floor(u), round_half_up((u - math.floor(u)) * 256)
            j, b = math.floor(v), round_half_up((v - math.floor(v)) * 256)
            if a == 256:
                i, a = i + 1, 0
            if b == 256:
                j, b = j + 1, 0
            for di, dj, w in texel_shares(weight, a, b):
                if (i + di, j + dj) == (128, 128):
                    total += w
    return total * 1024 / 2 ** unit_bits


def main():
    args = sys.argv[1:]
    name = args.pop(0) if args and args[0].endswith(".txt") else "anisotropy3.txt"
    configs, responses = {}, defaultdict(dict)
    for line in open(HERE / name):
        f = line.split()
        if f[0] == "C":
            configs[int(f[1])] = [float.fromhex(v) for v in (f[3], f[4], f[6], f[7])]
        elif f[0] == "A":
            responses[int(f[1])][(float(f[2]), float(f[3]))] = float(f[4])
    spacing = min(abs(x) for r in responses.values() for (x, y) in r if x != 0)  # the grid's
    reach = round(6 / spacing)
    for c in [int(a) for a in args] or sorted(configs):
        dx, dy = configs[c][:2], configs[c][2:]
        axis, length = major_axis(dx, dy)
        weights, unit_bits = sample_weights(length)
        r = responses[c]
        total = sum(r.values())
        cxx = sum(x * x * w for (x, y), w in r.items()) / total
        cyy = sum(y * y * w for (x, y), w in r.items()) / total
        cxy = sum(x * y * w for (x, y), w in r.items()) / total
        angle = 0.5 * math.atan2(2 * cxy, cxx - cyy)
        guess = (round(64 * math.cos(angle)), round(64 * math.sin(angle)))
        best = None
        for step in [(guess[0] + i, guess[1] + j) for i in (-1, 0, 1) for j in (-1, 0, 1)]:
            misses = sum(
                delta_response((i * spacing, j * spacing), step, weights, unit_bits) != r.get((i * spacing, j * spacing), 0.0)
                for i in range(-reach, reach + 1) for j in range(-reach, reach + 1))
            if best is None or misses < best[0]:
                best = (misses, step)
        print(f"{c} dx {dx[0]:.4f} {dx[1]:.4f} dy {dy[0]:.4f} {dy[1]:.4f} length {length} step {best[1]} misses {best[0]}",
              flush=True)


if __name__ == "__main__":
    main()
