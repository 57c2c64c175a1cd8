#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The device check, for the day a GPU is lent: scripts/gpu_check.py says what it runs.
exec python3 "$(dirname "$0")/gpu_check.py" "$@"
