# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What counts as stream work in a function's body: the names that make a function worth
following from its callers, and which of the package's functions do such work, themselves or
through the functions they call."""
from .. import torch_model

# Names in a branch that make its condition one of stream work (statements.py keeps the paths
# that decide it differently apart the longest).
STREAM_WORDS = frozenset({"stream", "Stream", "current_stream", "default_stream", "wait_stream",
                          "wait_event", "record_event", "record", "synchronize", "async_op",
                          "non_blocking", "record_stream", "wait"})

# What a body holds when it points a tensor's `.data` at a new allocation (`out.data =
# torch.empty((1,))`, a deallocation helper's idiom), releasing the old storage.
RELEASES_STORAGE = "<.data released>"


# Names of the work that makes a function worth following from its callers: stream work, the
# release of a tensor's storage (`_free_storage`, `resize_(0)`, a `.data` store), which races
# with the work other streams may still do on it, and host memory made a tensor (`from_numpy`,
# `frombuffer`), which tells a copy into it from a copy on the device.
STREAM_WORK_NAMES = STREAM_WORDS | frozenset(
    name for name, kind in torch_model.LIFETIME_FUNCTIONS.items() if kind == "release") | frozenset({
    RELEASES_STORAGE, torch_model.STORAGE_RESIZE,
    "wait_event", "record_event", "Event", "set_stream", "record_stream", "isend", "irecv",
    "batch_isend_irecv", "_coalescing_manager", "all_reduce", "all_gather", "broadcast",
    "reduce_scatter", "reduce_scatter_tensor", "all_gather_into_tensor", "_all_gather_base",
    "_reduce_scatter_base", "all_to_all", "all_to_all_single", "allgather_fn",
    "reduce_scatter_fn", "send", "recv", "get_accelerator", "register_hook",
    "register_post_accumulate_grad_hook", "pin_memory", "from_numpy", "frombuffer",
})


# Names of stream work that only asks which stream is current.
STREAM_READS = frozenset({"current_stream", "default_stream"})

LIFETIME_WORK_NAMES = frozenset(
    name for name, kind in torch_model.LIFETIME_FUNCTIONS.items() if kind == "release") | \
    frozenset({RELEASES_STORAGE, torch_model.STORAGE_RESIZE, torch_model.RECORD_STREAM})


def functions_doing_stream_work(package):
    """The functions that do stream work themselves or through the package's functions they
    call (by name, as calls resolve)."""
    calls = {}
    working = set()
    for function in package.all_functions():
        if function.names & STREAM_WORK_NAMES:
            working.add(function)
        calls[function] = function.calls
    by_name = {}
    for function in package.all_functions():
        by_name.setdefault(function.name, []).append(function)
    changed = True
    while changed:
        changed = False
        for function, called in calls.items():
            if function in working:
                continue
            if any(callee in working for name in called for callee in by_name.get(name, ())):
                working.add(function)
                changed = True
    return working
