#!/usr/bin/env python3
"""Builds and runs a cuda-samples checkout with weft, and writes a table of the results.

    tools/compat/run_samples.py CHECKOUT [--out DIR] [--weft DIR] [--only NAME,...] [-j N]
                                [--time-limit S] [--opt -O1] [--doc docs/compatibility.md]
                                [--gpu tools/compat/reference/...json] [--nvcc sm_90]

CHECKOUT is a checkout of NVIDIA/cuda-samples (or anything laid out as it is:
Samples/<category>/<sample>/CMakeLists.txt, Common/, test_args.json). Nothing
is written into it except what the samples themselves write when they run
(they run from their own directory, where they find their data files).

For each sample the script reads its CMakeLists.txt for what a user would
give weft_add_cuda_executable: the sources of its add_executable, its include
directories (Common/ and those it adds) and its libraries. A sample that
needs what weft does not offer (OpenGL, Vulkan, the driver API's modules,
NVRTC, inline PTX, cuBLAS, ...) is listed as out of scope with the reason and
is not built. The others go into ONE generated CMake project in --out, one
weft_add_cuda_executable target per sample, so that weft-port is built once;
Ninja builds them all with -k 0 (keep going) and prints each failed command's
output in one piece, from which the first error of each sample is taken.
Each sample that built then runs with its arguments from test_args.json and
a time limit; it passed if it exits with 0 and prints its PASS line (where
its source has one). Exit code 2 is CUDA samples' EXIT_WAIVED.

Results go to --out: results.json, results.csv, results.md (the tables, as
docs/compatibility.md shows them), logs/ (the build log and each run's
output). --doc FILE replaces the part of FILE between the markers
BEGIN_MARKER and END_MARKER below with the same tables.

--nvcc ARCH builds the same samples with nvcc for a real GPU instead (on a
machine that has one) and judges their runs the same way: its results.json,
given to a weft run as --gpu, adds each sample's GPU verdict to the tables.
"""

import argparse
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field, asdict
from pathlib import Path

WEFT_DEFAULT = Path(__file__).resolve().parents[2]
BEGIN_MARKER = "<!-- BEGIN run_samples.py tables -->"
END_MARKER = "<!-- END run_samples.py tables -->"
EXIT_WAIVED = 2  # what the samples return when the device lacks a feature they need

SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".c", ".h", ".hpp", ".cxx")

# What a sample's CMakeLists.txt finds or links that weft does not provide.
# (CUDA's own libraries are judged from the sources instead: some samples
# link cuBLAS without calling it.)
CMAKE_NEEDS = [
    (r"CUDA::nvrtc", "NVRTC"),
    (r"CUDA::nvjpeg", "nvJPEG"),
    (r"NVVM_LIB|libnvvm", "libNVVM"),
    (r"find_package\(OpenGL|OPENGL_LIBRARIES|GLUT_LIBRARIES|GLEW", "OpenGL"),
    (r"find_package\(Vulkan|Vulkan_LIBRARIES", "Vulkan"),
    (r"find_package\(EGL|EGL_LIB", "EGL"),
    (r"find_package\(FreeImage", "FreeImage"),
    (r"find_package\(MPI|MPI_CXX", "MPI"),
]

# The same read from the sample's own sources, with comments removed (a
# comment quoting inline PTX does not count). Inline assembly counts only in
# .cu and .cuh files: a sample's copy of Boost has x86 assembly for the host.
# (Inline PTX that only reads a special register is ported: see
# only_supported_ptx.)
INLINE_ASM = re.compile(r"\b(asm|__asm__)\s*(volatile|__volatile__)?\s*\(")
DEVICE_SOURCE_NEEDS = [
    (INLINE_ASM.pattern, "inline PTX"),
]

# What weft-port turns into a weft::ptx call (tools/weft-port/porter.hpp, "inline PTX
# that reads a special register"): `mov` of one special register into %0.
SUPPORTED_PTX = re.compile(
    r"\s*mov\.[usb](32|64)\s+%0\s*,\s*%%?(globaltimer(_lo|_hi)?|clock(64)?|laneid|n?warpid|n?smid|gridid"
    r"|lanemask_(eq|le|lt|ge|gt)|n?tid\.[xyz]|n?ctaid\.[xyz]|dynamic_smem_size|total_smem_size)\s*;?\s*$")
SOURCE_NEEDS = [
    (r"\bcu(ModuleLoad\w*|LinkCreate|LinkAddData|LibraryLoad\w*)\s*\(", "driver-API modules and PTX"),
    (r"#\s*include\s*[<\"](nvrtc\.h|nvrtc_helper\.h)|\bnvrtc[A-Z]\w*\s*\(", "NVRTC"),
    (r"#\s*include\s*[<\"]nvvm\.h", "libNVVM"),
    (r"#\s*include\s*[<\"]cublas", "cuBLAS"),
    (r"#\s*include\s*[<\"]cufft", "cuFFT"),
    (r"#\s*include\s*[<\"]npp", "NPP"),
    (r"#\s*include\s*[<\"]cusolver", "cuSOLVER"),
    (r"#\s*include\s*[<\"]cusparse", "cuSPARSE"),
    (r"#\s*include\s*[<\"](nvjpeg|helper_nvJPEG)", "nvJPEG"),
    (r"#\s*include\s*[<\"]nvJitLink", "nvJitLink"),
    (r"#\s*include\s*[<\"]cudla", "cuDLA"),
    (r"#\s*include\s*[<\"]nvsci", "NvSci"),
    (r"#\s*include\s*[<\"]thrust/", "Thrust"),
    (r"#\s*include\s*[<\"]cub/", "CUB"),
    (r"#\s*include\s*[<\"](GL/|GLFW/|GLES\d*/)|\bcudaGraphicsGL\w+", "OpenGL"),
    (r"#\s*include\s*[<\"]EGL/|\bcudaEGL\w+", "EGL"),
    (r"#\s*include\s*[<\"]vulkan/", "Vulkan"),
    (r"#\s*include\s*[<\"](d3d|cuda_d3d)", "Direct3D (Windows)"),
    (r"#\s*include\s*[<\"]mpi\.h", "MPI"),
    (r"\bcudaIpc\w+|helper_multiprocess|\bcuMemExportToShareableHandle\b", "IPC between processes"),
    (r"\bcudaDeviceEnablePeerAccess\b|\bcudaMemcpyPeer", "several GPUs (peer access)"),
]

# Features a sample in scope uses, named in the tables (the `uses` column and
# a count line of their own) so that a feature's progress reads at a glance.
# They are in scope: the headline counts them. (Textures, issue 15, were set
# apart from the headline until weft had them, as CUDA graphs were before.)
USES_PATTERNS = [
    (r"\bcuda(Texture|Surface)Object_t\b|\b(texture|surface)\s*<|\bcudaCreate(Texture|Surface)Object\b", "textures"),
]

PASS_PATTERN = re.compile(r"PASS|[Tt]est passed|\bpassed\b")
FAIL_PATTERN = re.compile(r"FAIL|[Tt]est failed")
ERROR_LINE = re.compile(r"(fatal error|error):|undefined reference|multiple definition|No such file")
RUN_ERROR_LINE = re.compile(r"error|fail|mismatch|assert|abort|weft:|terminate|exception|segmentation|differ",
                            re.IGNORECASE)


@dataclass
class Sample:
    name: str
    category: str  # 0_Introduction, ...
    directory: Path
    sources: list = field(default_factory=list)  # absolute paths, as add_executable lists them
    include_dirs: list = field(default_factory=list)
    openmp: bool = False
    separable: bool = False  # CUDA_SEPARABLE_COMPILATION (dynamic parallelism): nvcc needs -rdc
    scope: str = "in"  # in | out
    uses: list = field(default_factory=list)  # features of USES_PATTERNS its sources use
    reasons: list = field(default_factory=list)  # why it is out of scope
    runs: list = field(default_factory=lambda: [[]])  # argument lists, one per run
    expects_pass_line: bool = False  # its sources print a PASS line, so a run must show it
    built: bool = False
    build_seconds: float = 0.0
    verdict: str = ""  # passed | passed (no PASS line) | failed | waived | timeout | not built | out of scope
    run_seconds: float = 0.0
    first_error: str = ""
    gpu_verdict: str = ""  # the verdict of the same sample built with nvcc and run on a GPU (--gpu)


def strip_comments(text):
    """C and C++ comments out, strings kept (good enough for pattern checks)."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.DOTALL)
    return pattern.sub(lambda m: m.group(0) if m.group(0).startswith('"') else " ", text)


def only_supported_ptx(device_sources):
    """Whether every inline assembly statement in the device sources is one
    that weft-port ports: a read of one PTX special register."""
    for match in INLINE_ASM.finditer(device_sources):
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(device_sources)):
            depth += {"(": 1, ")": -1}.get(device_sources[end], 0)
            if depth == 0:
                break
        statement = device_sources[match.end():end]
        template = "".join(re.findall(r'"((?:\\.|[^"\\\n])*)"', statement.split(":", 1)[0]))
        if not SUPPORTED_PTX.match(template.replace("\\n", "")):
            return False
    return True


def cmake_calls(text, command):
    """The argument lists of every call of `command` in a CMakeLists text."""
    return [m.group(1).split() for m in re.finditer(r"\b%s\s*\(([^)]*)\)" % command, text, re.IGNORECASE)]


def read_samples(checkout):
    """Every directory under Samples/ whose CMakeLists.txt adds an executable, sorted by category and name."""
    samples = []
    for cmakelists in sorted((checkout / "Samples").rglob("CMakeLists.txt")):
        text = cmakelists.read_text(errors="replace")
        executables = cmake_calls(text, "add_executable")
        if not executables:
            continue
        directory = cmakelists.parent
        sample = Sample(name=directory.name, category=directory.relative_to(checkout / "Samples").parts[0],
                        directory=directory)
        # Some samples build several executables (7_libNVVM); the one named
        # as the directory, or the first, is the sample.
        chosen = next((e for e in executables if e[0] == directory.name), executables[0])
        sample.sources = [str((directory / s).resolve()) for s in chosen[1:] if not s.startswith("$")]
        # Common/ and what the CMakeLists adds; not the sample's own directory
        # unless it says so, as nvcc finds only quoted includes beside a file.
        includes = [checkout / "Common"]
        for call in cmake_calls(text, "include_directories") + cmake_calls(text, "target_include_directories"):
            for item in call:
                item = item.replace("${CMAKE_CURRENT_SOURCE_DIR}", str(directory))
                if item.startswith("$") or item.upper() in ("PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE"):
                    continue
                path = (directory / item).resolve()
                if path.is_dir() and path not in includes:
                    includes.append(path)
        sample.include_dirs = [str(p) for p in includes]
        sample.openmp = "OpenMP::" in text
        sample.separable = bool(re.search(r"CUDA_SEPARABLE_COMPILATION\s+ON", text))
        classify(sample, text)
        samples.append(sample)
    return samples


def classify(sample, cmake_text):
    """Sets scope and reasons from the CMakeLists text and the sample's own sources."""
    reasons = [why for pattern, why in CMAKE_NEEDS if re.search(pattern, cmake_text)]
    sources, device_sources = "", ""
    for path in sorted(sample.directory.rglob("*")):
        if path.suffix in SOURCE_SUFFIXES and path.is_file():
            text = strip_comments(path.read_text(errors="replace")) + "\n"
            sources += text
            if path.suffix in (".cu", ".cuh"):
                device_sources += text
    reasons += [why for pattern, why in DEVICE_SOURCE_NEEDS
                if re.search(pattern, device_sources) and not (why == "inline PTX" and only_supported_ptx(device_sources))]
    reasons += [why for pattern, why in SOURCE_NEEDS if re.search(pattern, sources)]
    if sample.category == "7_libNVVM":
        reasons.append("libNVVM")
    if sample.category == "8_Platform_Specific":
        reasons.append("Tegra platform")
    sample.reasons = list(dict.fromkeys(reasons))  # in order, once each
    sample.uses = [what for pattern, what in USES_PATTERNS if re.search(pattern, sources)]
    sample.scope = "out" if sample.reasons else "in"
    # Where the source prints a PASS line, a run must print it to pass. Only
    # string literals count: `bool passed = ...` prints nothing.
    literals = re.findall(r'"(?:\\.|[^"\\\n])*"', sources)
    sample.expects_pass_line = any(PASS_PATTERN.search(literal) for literal in literals)


def apply_test_args(samples, checkout):
    """Arguments and skips from the checkout's test_args.json (the arguments its own test runner uses)."""
    path = checkout / "test_args.json"
    settings = json.loads(path.read_text()) if path.exists() else {}
    for sample in samples:
        entry = settings.get(sample.name, {})
        if entry.get("skip"):
            sample.reasons.append("skipped by test_args.json")
            sample.scope = "out"
        if entry.get("min_gpus", 1) > 1:
            sample.reasons.append("%d GPUs (test_args.json)" % entry["min_gpus"])
            sample.scope = "out"
        if "runs" in entry:
            sample.runs = [run.get("args", []) for run in entry["runs"]]
        elif "args" in entry:
            sample.runs = [entry["args"]]


def cmake_path(path):
    return '"%s"' % str(path).replace("\\", "/")


def write_project(samples, weft, project_dir):
    """One CMake project, one directory and one weft_add_cuda_executable target per sample."""
    project_dir.mkdir(parents=True, exist_ok=True)
    lines = [
        "# Generated by tools/compat/run_samples.py: each sample built as a user would,",
        "# its CMakeLists' sources given to weft_add_cuda_executable unmodified.",
        "cmake_minimum_required(VERSION 3.25)",
        "project(weft_compat LANGUAGES C CXX)",
        "add_subdirectory(%s weft)" % cmake_path(weft),
    ]
    for sample in samples:
        lines.append("add_subdirectory(samples/%s)" % sample.name)
        directory = project_dir / "samples" / sample.name
        directory.mkdir(parents=True, exist_ok=True)
        body = ["weft_add_cuda_executable(%s\n  %s)" % (sample.name, "\n  ".join(map(cmake_path, sample.sources))),
                "target_include_directories(%s PRIVATE\n  %s)" %
                (sample.name, "\n  ".join(map(cmake_path, sample.include_dirs)))]
        if sample.openmp:
            body += ["find_package(OpenMP REQUIRED)",
                     "target_link_libraries(%s PRIVATE OpenMP::OpenMP_CXX)" % sample.name]
        write_if_changed(directory / "CMakeLists.txt", "\n".join(body) + "\n")
    write_if_changed(project_dir / "CMakeLists.txt", "\n".join(lines) + "\n")


def write_if_changed(path, text):
    # An unchanged file keeps its time, so that a second run does not configure again for nothing.
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


class Shortener:
    """Error lines without the machine's absolute paths, and not too long for a table cell."""

    def __init__(self, checkout, weft, out, samples):
        self.replacements = [(str(s.directory) + "/", "") for s in samples]
        self.replacements += [(str(checkout) + "/", ""), (str(weft) + "/", "weft/"), (str(out) + "/", "")]
        self.replacements.sort(key=lambda pair: -len(pair[0]))  # the longest prefix first

    def __call__(self, line, limit=180):
        for prefix, replacement in self.replacements:
            line = line.replace(prefix, replacement)
        line = re.sub(r"build/samples/[^/]+/[^ :]*\.weft-port/", "", line)  # a port's path: the .cu's name is enough
        line = line.strip()
        return line if len(line) <= limit else line[:limit - 3] + "..."


def build(samples, project_dir, build_dir, jobs, opt, log_path, shorten):
    """Configures and builds every sample with Ninja -k 0; sets built, build_seconds and first_error."""
    configure = ["cmake", "-S", str(project_dir), "-B", str(build_dir), "-G", "Ninja",
                 "-DCMAKE_CXX_FLAGS=%s" % opt, "-DCMAKE_C_FLAGS=%s" % opt,
                 # One precompiled weft.hpp per executable costs more than it saves
                 # for one-file samples, and 150 MB of disk each.
                 "-DWEFT_PRECOMPILE_HEADERS=OFF"]
    with open(log_path, "w") as log:
        result = subprocess.run(configure, stdout=log, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        sys.exit("configuring the generated project failed; see %s" % log_path)
    # weft-port first, so that a failure there reads as what it is.
    with open(log_path, "a") as log:
        result = subprocess.run(["cmake", "--build", str(build_dir), "--target", "weft-port"], stdout=log,
                                stderr=subprocess.STDOUT)
    if result.returncode != 0:
        sys.exit("building weft-port failed; see %s" % log_path)
    targets = [s.name for s in samples]
    started = time.time()
    command = ["cmake", "--build", str(build_dir), "--target", *targets, "--", "-k", "0", "-j", str(jobs)]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    with open(log_path, "a") as log:
        log.write(result.stdout)
    print("built in %.0f s" % (time.time() - started), file=sys.stderr)
    errors = first_build_errors(result.stdout, shorten)
    seconds = build_times(build_dir / ".ninja_log")
    for sample in samples:
        sample.built = (build_dir / "samples" / sample.name / sample.name).exists()
        sample.build_seconds = seconds.get(sample.name, 0.0)
        if not sample.built:
            sample.first_error = errors.get(sample.name, "not built (no error found in the build log)")


def build_with_nvcc(samples, build_dir, jobs, arch, log_path, shorten):
    """The reference build: each sample compiled by nvcc for a real GPU (--nvcc ARCH), into the same
    place build() puts weft's executables, so that the runs and verdicts are the same code."""
    from concurrent.futures import ThreadPoolExecutor

    def compile_one(sample):
        target = build_dir / "samples" / sample.name / sample.name
        target.parent.mkdir(parents=True, exist_ok=True)
        command = ["nvcc", "-arch=" + arch, "-O2", "-std=c++17", "--extended-lambda", "-w", "-o", str(target),
                   *sample.sources, *("-I" + d for d in sample.include_dirs), "-lcuda", "-lcurand"]
        if sample.separable:
            command[1:1] = ["-rdc=true"]
            command.append("-lcudadevrt")
        if sample.openmp:
            command += ["-Xcompiler", "-fopenmp"]
        started = time.time()
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        sample.built = result.returncode == 0 and target.exists()
        sample.build_seconds = time.time() - started
        if not sample.built:
            lines = result.stdout.splitlines()
            sample.first_error = shorten(next((l for l in lines if ERROR_LINE.search(l)), lines[0] if lines else "failed"))
        return "$ %s\n%s\n" % (" ".join(command), result.stdout)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        logs = list(pool.map(compile_one, samples))
    log_path.write_text("".join(logs))


def first_build_errors(log, shorten):
    """sample -> its first error, from Ninja's output: each command's output follows its FAILED: line."""
    errors = {}
    # Ninja starts each command's report with "[n/m] description"; a failed
    # one continues with "FAILED: outputs", the command, and its output.
    for block in re.split(r"^(?=\[\d+/\d+\] )", log, flags=re.MULTILINE):
        failed = re.search(r"^FAILED: (\S+)", block, re.MULTILINE)
        if not failed:
            continue
        owner = re.match(r"samples/([^/]+)/", failed.group(1))
        if not owner or owner.group(1) in errors:
            continue
        lines = block[failed.end():].splitlines()[2:]  # past the FAILED line's end and the command
        line = next((l for l in lines if ERROR_LINE.search(l)), next((l for l in lines if l.strip()), "failed"))
        errors[owner.group(1)] = shorten(line)
    return errors


def build_times(ninja_log):
    """sample -> seconds its build steps took, from .ninja_log (start and end in ms per output)."""
    seconds = {}
    if not ninja_log.exists():
        return seconds
    for line in ninja_log.read_text().splitlines()[1:]:
        fields = line.split("\t")
        owner = re.match(r"samples/([^/]+)/", fields[3]) if len(fields) >= 4 else None
        if owner:
            seconds[owner.group(1)] = seconds.get(owner.group(1), 0.0) + (int(fields[1]) - int(fields[0])) / 1000
    return seconds


def run_sample(sample, build_dir, time_limit, log_dir, shorten, environment=None):
    """Runs a built sample once per argument list from its own directory; sets verdict, run_seconds, first_error."""
    executable = build_dir / "samples" / sample.name / sample.name
    outputs = []
    sample.run_seconds = 0.0
    for arguments in sample.runs:
        started = time.time()
        # A process group of its own, so that a timeout also ends what the sample started.
        process = subprocess.Popen([str(executable), *arguments], cwd=sample.directory, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                                   env=environment)
        try:
            output, _ = process.communicate(timeout=time_limit)
            code = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            code = None
        sample.run_seconds += time.time() - started
        text = output.decode(errors="replace")
        outputs.append("$ %s %s\n%s\n[exit %s]\n" % (sample.name, " ".join(arguments), text, code))
        verdict, error = judge(sample, code, text, time_limit, shorten)
        if verdict not in ("passed", "passed (no PASS line)"):
            break  # later runs would say nothing new
    (log_dir / ("%s.run.log" % sample.name)).write_text("".join(outputs))
    sample.verdict, sample.first_error = verdict, error


def judge(sample, code, output, time_limit, shorten):
    lines = [l for l in output.splitlines() if l.strip()]
    failing_line = next((l for l in lines if RUN_ERROR_LINE.search(l)), lines[-1] if lines else "")
    if code is None:
        return "timeout", "no exit after %d s%s" % (time_limit, (": " + shorten(lines[-1])) if lines else "")
    if code == EXIT_WAIVED:
        return "waived", shorten(failing_line)
    if code != 0:
        how = "killed by signal %d" % -code if code < 0 else "exit %d" % code
        return "failed", "%s: %s" % (how, shorten(failing_line)) if failing_line else how
    if FAIL_PATTERN.search(output):
        return "failed", "exit 0 but printed: " + shorten(next(l for l in lines if FAIL_PATTERN.search(l)))
    if PASS_PATTERN.search(output):
        return "passed", ""
    if sample.expects_pass_line:
        return "failed", "exit 0 without its PASS line: " + shorten(failing_line)
    return "passed (no PASS line)", ""


# ---------------------------------------------------------------------------
# Tables


def counts(samples):
    in_scope = [s for s in samples if s.scope != "out"]
    textured = [s for s in in_scope if "textures" in s.uses]

    def row(group):
        return (len(group), sum(s.built for s in group), sum(s.verdict.startswith("passed") for s in group))

    return {"all": len(samples), "out of scope": len(samples) - len(in_scope), "in scope": row(in_scope),
            "of which use textures": row(textured)}


def markdown(samples, label, settings):
    def cell(text):
        return str(text).replace("|", "\\|")

    with_gpu = any(s.gpu_verdict for s in samples)
    summary = counts(samples)
    lines = ["Suite: %s. %s" % (label, settings), "",
             "| | samples | built | passed |", "| --- | --- | --- | --- |"]
    for key in ("in scope", "of which use textures"):
        total, built, passed = summary[key]
        percent = " (%d%%)" % round(100 * passed / total) if total else ""
        lines.append("| %s | %d | %d | %d%s |" % (key, total, built, passed, percent))
    lines.append("| out of scope | %d | | |" % summary["out of scope"])
    if with_gpu:
        compared = [s for s in samples if s.scope == "in" and s.gpu_verdict]
        same = sum(same_verdict(s.verdict, s.gpu_verdict) for s in compared)
        lines += ["", "Same verdict as on the GPU (in scope): %d of %d." %
                  (same, len(compared))]
    lines += ["", "### In scope", "",
              "| sample | category | uses | built | passed | build s | run s | %sfirst error |" %
              ("GPU | " if with_gpu else ""),
              "| --- | --- | --- | --- | --- | --- | --- | %s--- |" % ("--- | " if with_gpu else "")]
    for s in samples:
        if s.scope == "out":
            continue
        # Ninja's log times only the steps that succeeded: a build that failed has no time.
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s%s |" % (
            s.name, s.category, ", ".join(s.uses), "yes" if s.built else "no", s.verdict or "not run",
            "%.0f" % s.build_seconds if s.built else "", "%.1f" % s.run_seconds if s.built else "",
            (cell(s.gpu_verdict or "not run") + " | ") if with_gpu else "", cell(s.first_error)))
    groups = error_groups(samples)
    if groups:
        lines += ["", "### First errors, grouped", "", "| samples | first error |", "| --- | --- |"]
        lines += ["| %d | %s |" % (len(names), cell(error) + " (" + ", ".join(names) + ")") for error, names in groups]
    lines += ["", "### Out of scope", "", "| sample | category | needs |", "| --- | --- | --- |"]
    lines += ["| %s | %s | %s |" % (s.name, s.category, ", ".join(s.reasons)) for s in samples if s.scope == "out"]
    return "\n".join(lines) + "\n"


def same_verdict(weft_verdict, gpu_verdict):
    """Passed is passed with or without a PASS line; otherwise the words must agree."""
    return weft_verdict.startswith("passed") == gpu_verdict.startswith("passed") and (
        weft_verdict.startswith("passed") or weft_verdict == gpu_verdict)


def error_groups(samples):
    """First errors with file, line and names of variables taken out, most frequent first."""
    groups = {}
    for s in samples:
        if s.scope == "out" or not s.first_error:
            continue
        key = re.sub(r"^[^ :]+:\d+(:\d+)?: ", "", s.first_error)  # file:line:column
        key = re.sub(r"^(exit \d+|killed by signal \d+): .*", r"\1", key)
        groups.setdefault(key, []).append(s.name)
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))


def update_doc(doc, tables):
    text = doc.read_text()
    begin, end = text.find(BEGIN_MARKER), text.find(END_MARKER)
    if begin < 0 or end < begin:
        sys.exit("%s has no %s ... %s section to replace" % (doc, BEGIN_MARKER, END_MARKER))
    doc.write_text(text[:begin + len(BEGIN_MARKER)] + "\n" + tables + text[end:])


def git_commit(directory):
    """The commit of the git checkout whose top is `directory`, or "" (a folder inside another checkout has none)."""
    def git(*command):
        result = subprocess.run(["git", "-C", str(directory), *command], capture_output=True, text=True)
        return result.stdout.strip() if result.returncode == 0 else ""

    top = git("rev-parse", "--show-toplevel")
    return git("rev-parse", "--short=12", "HEAD") if top and Path(top).resolve() == directory.resolve() else ""


def machine():
    """The cores the samples ran on, and their model, for the tables' settings line."""
    model = ""
    try:
        model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                      if line.startswith("model name")), "")
    except OSError:
        pass
    return "on %d cores%s" % (os.cpu_count() or 1, (" (%s)" % model) if model else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout", type=Path, help="a cuda-samples checkout (Samples/, Common/)")
    parser.add_argument("--weft", type=Path, default=WEFT_DEFAULT, help="weft's source tree (default: this one)")
    parser.add_argument("--out", type=Path, default=Path("build-compat"),
                        help="where the generated project, its build and the results go")
    parser.add_argument("--only", default="", help="comma-separated sample names (default: all)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2, help="parallel build jobs")
    parser.add_argument("--time-limit", type=float, default=60, help="seconds each run of a sample may take")
    parser.add_argument("--opt", default="-O1", help="optimisation flags for the samples and weft-port")
    parser.add_argument("--label", default="", help="how the tables name the suite (default: the checkout's commit)")
    parser.add_argument("--weft-commit", default="",
                        help="the weft commit the tables name (default: the --weft tree's git HEAD, which a copied"
                             " tree, such as the device machine's, may have stale)")
    parser.add_argument("--doc", type=Path, help="a Markdown page whose marked section gets the tables")
    parser.add_argument("--list", action="store_true", help="only classify the samples: build and run nothing")
    parser.add_argument("--nvcc", metavar="ARCH",
                        help="build with nvcc for a real GPU (e.g. sm_90) instead of weft: the reference verdicts")
    parser.add_argument("--gpu", type=Path, metavar="RESULTS_JSON",
                        help="the results.json of an --nvcc run: adds each sample's GPU verdict to the tables")
    parser.add_argument("--prebuilt", type=Path, metavar="OUT_DIR",
                        help="build nothing: run what an earlier run built in OUT_DIR (its build/ and results.json),"
                             " e.g. on a machine with more cores and the same architecture and libraries")
    parser.add_argument("--build-only", action="store_true",
                        help="build and write results.json, run nothing: a later --prebuilt run runs them")
    parser.add_argument("--run-jobs", type=int, default=1,
                        help="samples run at the same time (default 1; each gets the machine's cores unless --workers)")
    parser.add_argument("--workers", type=int, default=0,
                        help="WEFT_WORKERS for each run, e.g. 2 with --run-jobs 8 on 16 cores: eight 2-core machines")
    args = parser.parse_args()

    checkout, weft, out = args.checkout.resolve(), args.weft.resolve(), args.out.resolve()
    if not args.list and not args.nvcc and not args.prebuilt and not shutil.which("ninja"):
        # Ninja prints each failed command's output in one piece, which is how
        # each sample's first error is found in a parallel build.
        print("run_samples.py needs Ninja (apt-get install ninja-build)", file=sys.stderr)
        sys.exit(77)
    if not (checkout / "Samples").is_dir():
        sys.exit("%s has no Samples/ directory" % checkout)
    samples = read_samples(checkout)
    apply_test_args(samples, checkout)
    if args.only:
        wanted = set(args.only.split(","))
        samples = [s for s in samples if s.name in wanted]
    if len({s.name for s in samples}) != len(samples):
        sys.exit("two samples share a name; use --only")
    for s in samples:
        if s.scope == "out":
            s.verdict = "out of scope"
    label = args.label or "%s%s" % (checkout.name, (" at " + git_commit(checkout)) if git_commit(checkout) else "")
    compiler = ""
    if shutil.which("c++"):
        compiler = subprocess.run(["c++", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    settings = "weft %s, %s, %s, time limit %.0f s per run, %s." % (args.weft_commit or git_commit(weft) or "(no git)",
                                                                     compiler, args.opt,
                                                                     args.time_limit, machine())
    if args.prebuilt:
        earlier = json.loads((args.prebuilt.resolve() / "results.json").read_text())
        built_with = earlier["settings"].split(", time limit")[0]
        settings = "%s (built earlier), time limit %.0f s per run, %s." % (built_with, args.time_limit, machine())
    if args.nvcc:
        nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().split("\n")[-1]
        settings = "nvcc (%s), -arch=%s -O2, time limit %.0f s per run." % (nvcc, args.nvcc, args.time_limit)
    if args.workers or args.run_jobs > 1:
        settings = settings[:-1] + ", %d samples at a time%s." % (
            args.run_jobs, (" with WEFT_WORKERS=%d each" % args.workers) if args.workers else "")
    if args.gpu:
        gpu = {row["name"]: row["verdict"] for row in json.loads(args.gpu.read_text())["samples"]}
        for s in samples:
            s.gpu_verdict = gpu.get(s.name, "")

    buildable = [s for s in samples if s.scope != "out"]
    if not args.list and buildable:
        log_dir = out / "logs"
        log_dir.mkdir(parents=True, exist_ok=True)
        shorten = Shortener(checkout, weft, out, samples)
        build_dir = out / "build"
        if args.prebuilt:
            build_dir = args.prebuilt.resolve() / "build"
            rows = {row["name"]: row for row in earlier["samples"]}
            for sample in buildable:
                row = rows.get(sample.name, {})
                sample.built = bool(row.get("built")) and (build_dir / "samples" / sample.name / sample.name).exists()
                sample.build_seconds = row.get("build_seconds", 0.0)
                if not sample.built:
                    sample.first_error = row.get("first_error") or "not in the earlier build"
        elif args.nvcc:
            build_with_nvcc(buildable, build_dir, args.jobs, args.nvcc, log_dir / "build.log", shorten)
        else:
            write_project(buildable, weft, out / "project")
            build(buildable, out / "project", build_dir, args.jobs, args.opt, log_dir / "build.log", shorten)
        environment = None
        if args.workers:
            environment = dict(os.environ, WEFT_WORKERS=str(args.workers))

        def run_one(sample):
            if args.build_only:
                sample.verdict = "not run" if sample.built else "not built"
            elif sample.built:
                run_sample(sample, build_dir, args.time_limit, log_dir, shorten, environment)
            else:
                sample.verdict = "not built"
            print("%-32s %-12s %s" % (sample.name, sample.verdict, sample.first_error), file=sys.stderr)

        # Samples run from directories of their own, so several can run at once
        # on a machine with cores to spare (--run-jobs, with --workers each).
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=max(1, args.run_jobs)) as pool:
            list(pool.map(run_one, buildable))

    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for s in samples:
        row = asdict(s)
        row.update(directory=str(s.directory.relative_to(checkout)), sources=[Path(p).name for p in s.sources],
                   include_dirs=None, reasons="; ".join(s.reasons))
        del row["include_dirs"], row["runs"]
        rows.append(row)
    (out / "results.json").write_text(json.dumps({"label": label, "settings": settings, "counts": counts(samples),
                                                  "samples": rows}, indent=1) + "\n")
    with open(out / "results.csv", "w", newline="") as f:
        columns = ["name", "category", "scope", "uses", "reasons", "built", "verdict", "build_seconds", "run_seconds",
                   "first_error"]
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows([dict(row, uses=", ".join(row["uses"])) for row in rows])
    tables = markdown(samples, label, settings)
    (out / "results.md").write_text(tables)
    if args.doc:
        update_doc(args.doc, tables)
    summary = counts(samples)
    for key in ("in scope", "of which use textures"):
        print("%s: %d samples, %d built, %d passed" % ((key,) + summary[key]))
    print("out of scope: %d; tables in %s" % (summary["out of scope"], out / "results.md"))


if __name__ == "__main__":
    main()
