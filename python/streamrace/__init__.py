# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""streamrace's Python side: what a Python program tells the tracer that its CUDA calls cannot.

`streamrace.torch` states the exact byte ranges of every PyTorch operator and the Python lines
that issued it; `streamrace run` enables it in every Python process that imports torch.
Everything here talks to libstreamrace.so, which `streamrace run` preloads; without it (an
untraced run) nothing is enabled and nothing changes.
"""
