# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What is still being written when a hook starts: autograd runs it right after enqueueing the
operator that made what it is given, on the stream current when it fires. A gradient hook is
given the gradient the backward operator wrote; a saved-tensor pack hook
(`saved_tensors_hooks(pack, unpack)`) the tensor a forward operator saved for backward, often
its own output, which an activation-offloading hook copies to the host on a stream of its own.
Either may still be running on the current stream, so a side stream must wait for it first."""
from .state import Site
from .values import Key, Tensor

# What the pending write is called in findings.
FORWARD_OPERATOR = "the forward operator saving it"


def enter_hook(walker, function, hook, state, frame):
    kind, _, path, line, column = hook
    # The site named is where the hook was registered.
    site = Site(path, line, column, "autograd", ())
    if kind == "gradient":
        walker.access(Tensor(Key(("field", "grad"))), "write", "autograd", function.node,
                      state, frame, site=site)
    elif kind == "saved tensor" and function.parameters_after_self():
        saved = Key(("param", frame.ident, function.parameters_after_self()[0]))
        walker.access(Tensor(saved), "write", FORWARD_OPERATOR, function.node, state, frame,
                      site=site, own_bytes=True)
