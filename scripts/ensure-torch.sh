#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Makes <build>/venv, the Python virtual environment the PyTorch tests run in: the PyPI wheel
# named in test/lit/torch/requirements.txt (its CUDA 13 build, about 3 GB with the nvidia-*
# wheels it pulls in), then DeepSpeed (test/lit/torch/deepspeed-requirements.txt, about 40 MB).
# Kept between runs; each part is installed again only when its requirements change, so a
# fresh machine pays the download once.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STREAMRACE_BUILD_DIR:-$root/build}
venv=$build/venv
requirements=$root/test/lit/torch/requirements.txt
installed=$venv/.streamrace-requirements
if ! { [ -x "$venv/bin/python" ] && cmp -s "$requirements" "$installed"; }; then
  echo "streamrace: installing PyTorch into $venv (once; about 3 GB)"
  mkdir -p "$build"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$installed"
fi
# DeepSpeed's setup.py imports torch, so it builds against the venv's (no build isolation);
# DS_BUILD_OPS=0 leaves its CUDA ops to be compiled when first used (never, by the tests).
deepspeed_requirements=$root/test/lit/torch/deepspeed-requirements.txt
deepspeed_installed=$venv/.streamrace-deepspeed-requirements
if ! cmp -s "$deepspeed_requirements" "$deepspeed_installed"; then
  echo "streamrace: installing DeepSpeed into $venv (once; about 40 MB)"
  DS_BUILD_OPS=0 "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-build-isolation -r "$deepspeed_requirements"
  cp "$deepspeed_requirements" "$deepspeed_installed"
fi
# streamrace.torch's operator observer, compiled against this PyTorch once (about 20 s), where
# the tests' jobs find it (test/lit/torch/lit.local.cfg), so that they do not all build it at once.
STREAMRACE_CACHE_DIR=$build/streamrace-cache PYTHONPATH=$build/lib/streamrace/python \
  "$venv/bin/python" -m streamrace.torch.observer >/dev/null
