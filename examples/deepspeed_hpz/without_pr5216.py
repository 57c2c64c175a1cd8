# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A copy of the installed DeepSpeed without PR #5216's synchronization, for the demo and
zeropp_hpz.py --buggy: the installed package is not touched.

    python without_pr5216.py     # makes the copy (once per release) and prints its folder
"""
import importlib.metadata
import importlib.util
import os
import shutil
import sys
import tempfile

# The synchronization PR #5216 added after the secondary-partition copy in
# deepspeed/runtime/zero/partition_parameters.py (Init._partition_param_sec), as the installed
# release spells it: later releases only skip it on accelerators that order the two themselves.
PR5216_SYNCHRONIZATION = """\
            # TODO: This is a temporary fix to avoid the issue that 2nd tensor all-gather happens before 2nd tensor partition is done
            if not get_accelerator().resolves_data_dependency():
                get_accelerator().current_stream().synchronize()
"""
PATCHED_MODULE = os.path.join("runtime", "zero", "partition_parameters.py")


def copy_without_pr5216():
    """The folder holding a copy of the installed DeepSpeed with PR #5216's synchronization
    removed (the lines after it move up by as many lines), to put first on sys.path. The copy is
    made once per installed release, in the temporary directory, and shared by the ranks (so
    their reports name the same files): each rank that finds none makes its own and renames it
    into place, and the first rename wins."""
    spec = importlib.util.find_spec("deepspeed")
    installed = os.path.dirname(spec.origin)
    release = importlib.metadata.version("deepspeed")
    shared = os.path.join(tempfile.gettempdir(), f"deepspeed-{release}-without-pr5216")
    if not os.path.isdir(os.path.join(shared, "deepspeed")):
        scratch = tempfile.mkdtemp(prefix=os.path.basename(shared) + ".", dir=os.path.dirname(shared))
        shutil.copytree(installed, os.path.join(scratch, "deepspeed"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        module = os.path.join(scratch, "deepspeed", PATCHED_MODULE)
        with open(module) as source:
            text = source.read()
        if text.count(PR5216_SYNCHRONIZATION) != 1:
            shutil.rmtree(scratch)
            sys.exit(f"without_pr5216.py: {os.path.join(installed, PATCHED_MODULE)} does not contain "
                     "PR #5216's synchronization exactly once; the patch was written for "
                     "DeepSpeed 0.19.8")
        with open(module, "w") as source:
            source.write(text.replace(PR5216_SYNCHRONIZATION, ""))
        try:
            os.rename(scratch, shared)
        except OSError:  # another rank's copy is in place
            shutil.rmtree(scratch)
    return shared


if __name__ == "__main__":
    if importlib.util.find_spec("deepspeed") is None:
        sys.exit("without_pr5216.py: DeepSpeed is not installed (scripts/ensure-torch.sh installs it)")
    print(copy_without_pr5216())
