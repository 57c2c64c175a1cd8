#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""expect_exit.py CODE CMD ARGS...: runs CMD, passes its stdout/stderr through, and succeeds
only when CMD exits with CODE (lit's internal shell cannot test a specific exit status)."""
import subprocess
import sys

expected = int(sys.argv[1])
result = subprocess.run(sys.argv[2:])
if result.returncode != expected:
    sys.stderr.write(f"expect_exit: {sys.argv[2]} exited {result.returncode}, expected {expected}\n")
    sys.exit(1)
