#!/usr/bin/env python3
"""Checks weft's rule for filtered sRGB texels (docs/textures.md, "Precision";
include/weft/detail/textures/sampling/texel_reading.hpp, blend_srgb_channel) against
every blend in srgb.txt: prints how many of the 10728 measured r, g, b
results it gives bit for bit, and the first few it misses. Run from
anywhere: python3 tests/differential/h100_measurements/check_srgb_rule.py
"""
import math
import re
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent
table = HERE.parents[2] / "include/weft/detail/textures/sampling/srgb_decoding.hpp"
LINEAR = [struct.unpack("<f", struct.pack("<I", int(b, 16)))[0]
          for b in re.findall(r"0x([0-9a-f]{8})", table.read_text())][:256]


def blend(codes_and_weights):
    """One channel: codes with weights in 256ths, as weft blends them."""
    taken = [(c, w) for c, w in codes_and_weights if w]
    if max(LINEAR[c] for c, _ in taken) == 0:
        return 0.0
    scale = max(LINEAR[c | 7] for c, _ in taken)  # the code's top five bits set the scale
    unit = 2.0 ** (math.frexp(scale)[1] - 8)  # 8 significant bits of it
    total = sum(w / 256 * math.floor(LINEAR[c] / unit) for c, w in taken) * unit
    if total == 0:
        return 0.0
    half_unit = 2.0 ** (max(math.frexp(total)[1] - 1, -14) - 10)
    return math.floor(total / half_unit + 0.5) * half_unit


def measured_blends():
    for line in open(HERE / "srgb.txt"):
        f = line.split()
        if f[0] not in ("SRGB", "RAMP"):
            continue
        x = float.fromhex(f[1]) - 0.5
        got = [int(v, 16) for v in f[2:5]]
        if f[0] == "SRGB":  # texel 2v = (v, 0, 255, v), 2v + 1 = (0, v, v, 255)
            v = int(x // 2)
            w = round((x - 2 * v) * 256)
            pairs = [(v, 0), (0, v), (255, v)]
        else:  # texel i = (i, 255 - i, 37 i mod 256, i)
            i = int(x)
            w = round((x - i) * 256)
            pairs = [(i, i + 1), (255 - i, 254 - i), (37 * i % 256, 37 * (i + 1) % 256)]
        for (a, b), bits in zip(pairs, got):
            yield a, b, w, bits


def main():
    total = matched = 0
    misses = []
    for a, b, w, bits in measured_blends():
        total += 1
        mine = struct.unpack("<I", struct.pack("<f", blend([(a, 256 - w), (b, w)])))[0]
        if mine == bits:
            matched += 1
        elif len(misses) < 5:
            misses.append((a, b, w, hex(bits), hex(mine)))
    print(f"{matched} of {total} blends match", *misses, sep="\n")


if __name__ == "__main__":
    main()
