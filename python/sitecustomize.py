# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Put on PYTHONPATH by `streamrace run`: enables streamrace.torch when the program imports torch
# (streamrace/_autoload.py), then runs the sitecustomize the interpreter would have run.
from streamrace import _autoload

_autoload.install()
_autoload.chain_sitecustomize(__file__)
