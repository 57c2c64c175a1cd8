# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A program that fails, for the tools that run programs: its exit status is 3.
raise SystemExit(3)
