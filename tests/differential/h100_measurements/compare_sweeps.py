#!/usr/bin/env python3
"""Compares two outputs of a delta-texel sweep in measure_anisotropy6.cu's
form (`C config ...` names a configuration, `A config x y value` gives each
nonzero result, hex floats): the H200's and weft's, the latter from the same
program built against weft (the kernel launch written as a weft::launch of
the same lambda). Prints, per part, how many configurations match at every
grid point; with a third argument, each configuration that does not.

    compare_sweeps.py anisotropy6.txt weft_output.txt [verbose]
"""
import sys
from collections import Counter, defaultdict


def load(path):
    names, values = {}, defaultdict(dict)
    for line in open(path):
        fields = line.split()
        if not fields:
            continue
        if fields[0] == 'C':
            names[int(fields[1])] = ' '.join(fields[2:])
        elif fields[0] == 'A':
            point = (float.fromhex(fields[2]), float.fromhex(fields[3]))
            values[int(fields[1])][point] = float.fromhex(fields[4])
    return names, values


def main():
    names, measured = load(sys.argv[1])
    _, weft = load(sys.argv[2])
    matching, total = Counter(), Counter()
    for config in sorted(names):
        part = names[config].split()[1]
        total[part] += 1
        h, w = measured[config], weft[config]
        points = set(h) | set(w)
        differing = [p for p in points if h.get(p, 0) != w.get(p, 0)]
        if not differing:
            matching[part] += 1
        elif len(sys.argv) > 3:
            print('C %d %s: %d of %d points differ' % (config, names[config], len(differing), len(points)))
    for part in total:
        print('part %s: %d of %d' % (part, matching[part], total[part]))


if __name__ == '__main__':
    main()
