# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""torch-overhead-bench: what tracing costs a PyTorch job per step and per aten operator.

Runs model_steps.py three ways, each in its own process: untraced, under `streamrace run`
(streamrace.torch on: every operator's ranges and Python lines, the caching allocator's blocks),
and under PyTorch's own sanitizer (TORCH_CUDA_SANITIZER=1), and prints the median step of each
and the time added per operator. A benchmark prints figures; nothing here is a pass or a fail.

Usage: run_torch_overhead.py --streamrace BIN --python PY [--steps N] [--env K=V ...]
(--env: variables for all three runs, e.g. the emulator's LD_PRELOAD)
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def measure(command, environment):
    result = subprocess.run(command, env=environment, capture_output=True, text=True)
    operators = re.search(r"operators per step: (\d+)", result.stdout)
    step = re.search(r"median step: ([0-9.]+) ms", result.stdout)
    if result.returncode not in (0, 66) or not operators or not step:
        sys.exit("torch-overhead-bench: %s failed (status %d):\n%s" %
                 (" ".join(command), result.returncode, result.stderr[-2000:]))
    return int(operators.group(1)), float(step.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--streamrace", required=True)
    parser.add_argument("--python", required=True)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--env", action="append", default=[])
    options = parser.parse_args()
    environment = dict(os.environ)
    for assignment in options.env:
        key, _, value = assignment.partition("=")
        environment[key] = value
    model = [options.python, os.path.join(os.path.dirname(__file__), "model_steps.py"),
             str(options.steps)]
    operators, untraced = measure(model, environment)
    with tempfile.TemporaryDirectory() as output:
        _, traced = measure([options.streamrace, "run", "--output=" + output, "--"] + model,
                            environment)
    sanitized = dict(environment, TORCH_CUDA_SANITIZER="1")
    _, sanitizer = measure(model, sanitized)
    print("torch-overhead-bench: %d aten operators per step, median of %d steps" %
          (operators, options.steps))
    for name, step in (("untraced", untraced), ("streamrace", traced),
                       ("TORCH_CUDA_SANITIZER=1", sanitizer)):
        added = (step - untraced) * 1e3 / operators
        print("  %-24s %9.3f ms per step  %+8.1f us per operator" % (name, step, added))
    if traced > untraced:
        print("  streamrace adds %.1fx less per operator than the sanitizer" %
              ((sanitizer - untraced) / (traced - untraced)))


if __name__ == "__main__":
    main()
