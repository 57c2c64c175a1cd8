# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""How `streamrace run` enables streamrace.torch in the Python processes of a job: its
sitecustomize installs an import hook that enables it right after `import torch` finishes, and
then runs the sitecustomize the interpreter would have run without it."""
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys


class _AfterTorchImport(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            import streamrace.torch

            streamrace.torch.enable()

        spec.loader.exec_module = exec_module
        return spec


def install():
    sys.meta_path.insert(0, _AfterTorchImport())


def chain_sitecustomize(own_file):
    """Runs the next sitecustomize on sys.path after this one's folder, if there is one."""
    own_folder = os.path.dirname(os.path.abspath(own_file))
    for folder in sys.path:
        if not folder or os.path.abspath(folder) == own_folder:
            continue
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", [folder])
        if spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return
