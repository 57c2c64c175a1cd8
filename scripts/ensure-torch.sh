#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Makes <build>/venv, the Python virtual environment the PyTorch tests run in: the PyPI wheel
# named in test/lit/torch/requirements.txt (its CUDA 13 build, about 3 GB with the nvidia-*
# wheels it pulls in). Kept between runs; made again only when the requirements change, so a
# fresh machine pays the download once.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STREAMRACE_BUILD_DIR:-$root/build}
venv=$build/venv
requirements=$root/test/lit/torch/requirements.txt
installed=$venv/.streamrace-requirements
if [ -x "$venv/bin/python" ] && cmp -s "$requirements" "$installed"; then
  exit 0
fi
echo "streamrace: installing PyTorch into $venv (once; about 3 GB)"
mkdir -p "$build"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
cp "$requirements" "$installed"
