#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs the Debian packages the build and the tests need, only when one is missing, so a
# fresh machine of this kind is ready after one run and a prepared one pays nothing.
set -euo pipefail

packages=(
  cmake ninja-build g++ python3
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  clang-22 libclang-rt-22-dev libclang-22-dev llvm-22-dev llvm-22-tools clang-tidy-22
  clang-format-22 # test/lit/house/format.test: the code is as the committed .clang-format leaves it
  libunwind8 # the tracer captures call stacks with it (dlopen; glibc backtrace() without it)
  gnuplot-nox # the reference trainer's cost plot (reference_hpz/cost_report.py)
  python3-jsonschema # the SARIF schema check of test/lit/report/sarif.test
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "streamrace: installing missing packages: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
