#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs streamrace-check over checkouts of public CUDA/NCCL code bases and lists what it says.

    bench/real_code_survey.py [--build DIR] [--verdicts FILE] [--nvcc] [--time] [--advise]
        [--cuda-samples DIR] [--nccl-tests DIR] [--multi-gpu DIR] [--jobs N]

Each checkout is one of NVIDIA/cuda-samples, NVIDIA/nccl-tests, NVIDIA/multi-gpu-programming-models,
cloned anywhere (nothing of them lives in this repository). Every source file there that uses
streams, events, async copies or NCCL is analyzed with the flags its project builds it with, and
the script prints each finding (file:line: check: message), each file that failed to parse (with
its first error), and totals.

--verdicts FILE  a hand classification, one finding a line: `TP|FP <project>/<path>:<line> <check>`
                 (`#` starts a comment). The totals then count true and false positives, list
                 findings not classified yet, and the TP lines no longer reported.
--nvcc           also compile each file with nvcc (host and device, no linking): a parse failure
                 of ours on a file nvcc accepts is a bug; one nvcc rejects too is not counted.
--time           also time `clang++-22 -fsyntax-only` with the same flags and print the CPU ratio.
--advise         run with --advise=sync and print each advice (`ADVICE where: message`, then the
                 race its wait's removal lets through) and their count.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUDA = "/usr/local/cuda"
CLANG = "/usr/lib/llvm-22/bin/clang++"
STUBS = os.path.join(ROOT, "bench", "real_code")  # declarations-only mpi.h
USES_STREAMS = re.compile(r"cudaStream|cudaEvent|cudaMemcpyAsync|nccl")


def sources(top, subdirs, skip=()):
    for sub in subdirs:
        for folder, _, names in os.walk(os.path.join(top, sub)):
            for name in sorted(names):
                path = os.path.join(folder, name)
                if not name.endswith((".cu", ".cpp")) or any(s in path for s in skip):
                    continue
                with open(path, errors="replace") as source:
                    if USES_STREAMS.search(source.read()):
                        yield path


def uses_openmp(path):
    with open(path, errors="replace") as source:
        return "<omp.h>" in source.read()


def cmake_settings(path, top):
    """Include directories and relocatable device code from the sample's CMakeLists.txt."""
    folder = os.path.dirname(path)
    while not os.path.exists(os.path.join(folder, "CMakeLists.txt")) and folder != top:
        folder = os.path.dirname(folder)
    cmake = os.path.join(folder, "CMakeLists.txt")
    if not os.path.exists(cmake):
        return [], False
    text = open(cmake, errors="replace").read()
    includes = []
    for block in re.findall(r"include_directories\s*\(([^)]*)\)", text):
        for word in block.split():
            word = word.replace("${CMAKE_CURRENT_SOURCE_DIR}", folder)
            if word in ("PRIVATE", "PUBLIC", "INTERFACE", "SYSTEM") or "${" in word:
                continue
            directory = os.path.normpath(os.path.join(folder, word))
            if os.path.isdir(directory):
                includes.append("-I" + directory)
    return includes, "CUDA_SEPARABLE_COMPILATION ON" in text


def cuda_samples(top):
    for path in sources(top, ["Samples"]):
        includes, relocatable = cmake_settings(path, top)
        flags = ["-std=c++17", "-I" + os.path.join(top, "Common"), "-I" + os.path.dirname(path)]
        flags += includes
        if relocatable and path.endswith(".cu"):
            flags.append("-fgpu-rdc")
        if uses_openmp(path):
            flags.append("-fopenmp")
        yield path, flags


def nccl_tests(top):
    for path in sources(top, ["src"]):
        yield path, ["-std=c++17", "-DNCCL_OS_LINUX", "-I" + os.path.join(top, "src"),
                     "-I" + os.path.join(top, "os"), "-I" + os.path.join(top, "verifiable")]


def multi_gpu(top):
    # nvshmem needs NVSHMEM's headers, which neither nvcc nor we have here.
    for path in sources(top, ["."], skip=["/nvshmem/"]):
        flags = ["-std=c++17", "-DUSE_NVTX", "-DHAVE_CUB", "-DSKIP_CUDA_AWARENESS_CHECK",
                 "-I" + STUBS]
        if uses_openmp(path):
            flags.append("-fopenmp")
        yield path, flags


PROJECTS = {"cuda-samples": cuda_samples, "nccl-tests": nccl_tests, "multi-gpu": multi_gpu}


def language_flags(path):
    """How the project's own build reads the file: nvcc for .cu, the host compiler for .cpp."""
    if path.endswith(".cu"):
        return ["-x", "cuda", "-I" + CUDA + "/include"]
    return ["-isystem", CUDA + "/include"]


def timed(command):
    """Runs the command; its result and its own CPU seconds (safe with several running at once)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(command, os.waitstatus_to_exitcode(status), out.read(),
                                           err.read())
    return done, usage.ru_utime + usage.ru_stime


def analyze(job):
    checker, project, top, path, flags, options = job
    flags = language_flags(path) + flags
    with tempfile.NamedTemporaryFile(suffix=".json") as output:
        advise = ["--advise=sync"] if getattr(options, "advise", False) else []
        done, cpu = timed([checker, "--format=json", "--output=" + output.name] + advise +
                          [path, "--"] + flags)
        document = {}
        if done.returncode in (0, 1) or os.path.getsize(output.name):
            try:
                document = json.load(open(output.name))
            except ValueError:
                pass
    result = {"project": project, "path": os.path.relpath(path, top),
              "findings": document.get("findings", []), "advice": document.get("advice", []),
              "status": done.returncode, "cpu": cpu}
    errors = [line for line in done.stderr.splitlines() if " error: " in line]
    if done.returncode == 2 or errors:
        result["error"] = errors[0] if errors else done.stderr.strip().splitlines()[-1:]
    if options.time:
        syntax = [CLANG, "-fsyntax-only", "-resource-dir=/usr/lib/llvm-22/lib/clang/22"] + flags
        if path.endswith(".cu"):
            syntax += ["--cuda-host-only", "--cuda-path=" + CUDA, "-Wno-unknown-cuda-version",
                       "-isystem", CUDA + "/include/cccl"]
        result["syntax_cpu"] = timed(syntax + [path])[1]
    if options.nvcc:
        nvcc = [CUDA + "/bin/nvcc", "-c", "-o", "/dev/null", "-arch=sm_90", "--extended-lambda"]
        nvcc += [f for f in flags if f not in ("-x", "cuda")]
        nvcc = [{"-fopenmp": "-Xcompiler=-fopenmp", "-fgpu-rdc": "-rdc=true"}.get(f, f)
                for f in nvcc]
        if not path.endswith(".cu"):
            nvcc += ["-x", "c++"]
        done = subprocess.run(nvcc + [path], capture_output=True, text=True)
        result["nvcc_ok"] = done.returncode == 0
    return result


def read_verdicts(path):
    verdicts = {}
    for number, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 3 or parts[0] not in ("TP", "FP"):
            sys.exit(f"{path}:{number}: expected `TP|FP <project>/<path>:<line> <check>`")
        verdicts[(parts[1], parts[2])] = parts[0]
    return verdicts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--cuda-samples")
    parser.add_argument("--nccl-tests")
    parser.add_argument("--multi-gpu")
    parser.add_argument("--verdicts")
    parser.add_argument("--nvcc", action="store_true")
    parser.add_argument("--time", action="store_true")
    parser.add_argument("--advise", action="store_true")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    options = parser.parse_args()
    checker = os.path.join(options.build, "bin", "streamrace-check")
    if not os.access(checker, os.X_OK):
        sys.exit(f"real_code_survey: build streamrace-check first ({checker})")
    tops = {"cuda-samples": options.cuda_samples, "nccl-tests": options.nccl_tests,
            "multi-gpu": options.multi_gpu}
    if not any(tops.values()):
        sys.exit("real_code_survey: give at least one checkout (--cuda-samples, --nccl-tests, "
                 "--multi-gpu)")
    jobs = []
    for project, top in tops.items():
        if not top:
            continue
        if not os.path.isdir(top):
            sys.exit(f"real_code_survey: {project} checkout '{top}' is not a directory")
        top = os.path.abspath(top)
        jobs += [(checker, project, top, path, flags, options)
                 for path, flags in PROJECTS[project](top)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
        results = list(pool.map(analyze, jobs))

    verdicts = read_verdicts(options.verdicts) if options.verdicts else {}
    counts = {"TP": 0, "FP": 0, "?": 0}
    reported = set()
    for result in results:
        for finding in result["findings"]:
            where = f"{result['project']}/{result['path']}:{finding['line']}"
            verdict = verdicts.get((where, finding["check"]), "?")
            counts[verdict] += 1
            reported.add((where, finding["check"]))
            print(f"{verdict} {where}:{finding['column']}: {finding['check']}: {finding['message']}")
    print()
    for result in results:
        for advice in result["advice"]:
            where = f"{result['project']}/{result['path']}:{advice['line']}"
            print(f"ADVICE {where}: {advice['message']}")
            for note in advice["notes"][:1]:
                print(f"    {os.path.basename(note['file'])}:{note['line']}: {note['message']}")
    if options.advise:
        print(f"advice: {sum(len(r['advice']) for r in results)}\n")
    failures = [r for r in results if "error" in r]
    nvcc_rejects = [r for r in failures if options.nvcc and not r["nvcc_ok"]]
    for result in failures:
        note = " (nvcc rejects it too)" if result in nvcc_rejects else ""
        print(f"parse failure{note}: {result['project']}/{result['path']}: {result['error']}")
    missing = [key for key, verdict in verdicts.items() if verdict == "TP" and key not in reported]
    for where, check in sorted(missing):
        print(f"true positive no longer reported: {where} {check}")
    print()
    for project in tops:
        mine = [r for r in results if r["project"] == project]
        if mine:
            print(f"{project}: {len(mine)} files, "
                  f"{sum(len(r['findings']) for r in mine)} findings, "
                  f"{sum('error' in r for r in mine)} parse failures")
    total = sum(counts.values())
    line = (f"total: {len(results)} files, {total} findings, {len(failures)} parse failures"
            f" ({len(failures) - len(nvcc_rejects)} on files nvcc compiles)" if options.nvcc else
            f"total: {len(results)} files, {total} findings, {len(failures)} parse failures")
    print(line)
    if verdicts:
        classified = counts["TP"] + counts["FP"]
        precision = f"{100 * counts['TP'] / classified:.0f}%" if classified else "n/a"
        print(f"true positives {counts['TP']}, false positives {counts['FP']}, unclassified "
              f"{counts['?']}; precision {precision}; classified TPs not reported {len(missing)}")
    if options.time:
        check = sum(r["cpu"] for r in results)
        syntax = sum(r["syntax_cpu"] for r in results)
        print(f"CPU seconds: streamrace-check {check:.1f}, clang++-22 -fsyntax-only {syntax:.1f}: "
              f"{check / syntax:.2f}x")


if __name__ == "__main__":
    main()
