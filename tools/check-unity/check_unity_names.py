#!/usr/bin/env python3
"""Lists names that two unit test files of one unity batch both define at
file scope (kernels, functions, types, variables), the mistake that breaks
weft_tests' unity build whenever a new test file shifts the batches.

The batches are CMake's: tests/CMakeLists.txt compiles unit/main.cpp and the
sorted *_test.cpp files, less those built alone, eight to a translation
unit, in weft_tests (every test file) and in weft_sanitizer_tests (the files
that sanitizer_unit_test_globs lists), whose batches differ. Names in a file's own anonymous namespace collide too: the batch is
one translation unit. A heuristic (column-0 definitions only): a name it
lists is worth a look, and it misses definitions that are indented.

Usage: tools/check-unity/check_unity_names.py [repository root]
Exit status 1 when a collision is found.
"""
import collections
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
cmake = (root / "tests/CMakeLists.txt").read_text()
batch_size = int(re.search(r"UNITY_BUILD_BATCH_SIZE (\d+)", cmake).group(1))
alone_block = re.search(r"set\(unit_tests_alone([^)]*)\)", cmake).group(1)
alone = {str(root / "tests" / p) for p in alone_block.split()}

unit = root / "tests/unit"
globs_block = re.search(r"set\(sanitizer_unit_test_globs([^)]*)\)", cmake).group(1)
sanitizer_files = {str(p) for g in globs_block.split() for p in (root / "tests").glob(g)}
targets = {
    "weft_tests": sorted(str(p) for p in unit.rglob("*_test.cpp")),
    "weft_sanitizer_tests": sorted(sanitizer_files),
}

blank = r"[ \t]"
definition = re.compile(
    rf"^(?:template{blank}*<[^>\n]*>{blank}*)?"
    rf"(?:(?:static|inline|constexpr|const|__global__|__device__|__host__|__constant__|__shared__){blank}+)*"
    rf"(?:struct|class|enum(?:{blank}+class)?|using|[\w:<>,*&]+(?:{blank}+[\w:<>,*&]+)*)"
    rf"{blank}+[*&]*(\w+){blank}*(?:\(|=|\[|\{{|;|:)",
    re.M,
)
ignored = {"main", "operator", "TEST_CASE", "TEST_CASE_FIXTURE", "namespace"}

found = False
for target, tests in targets.items():
    files = [f for f in [str(unit / "main.cpp")] + tests if f not in alone]
    for start in range(0, len(files), batch_size):
        batch = files[start:start + batch_size]
        defined_in = collections.defaultdict(set)
        for f in batch:
            # Namespace aliases and using-declarations may repeat in one unit.
            lines = pathlib.Path(f).read_text().splitlines()
            text = "\n".join(l for l in lines if not re.match(r"(namespace\s+\w+\s*=|using\s+namespace\b|using\s+[\w:]+::)", l))
            for name in set(definition.findall(text)) - ignored:
                defined_in[name].add(f)
        for name, where in sorted(defined_in.items()):
            if len(where) > 1:
                found = True
                shown = ", ".join(str(pathlib.Path(w).relative_to(unit)) for w in sorted(where))
                print(f"{target} batch {start // batch_size}: '{name}' defined in {shown}")
sys.exit(1 if found else 0)
