# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Whose block a parameter's gradient is, where the code sets `param.grad` to None.

Autograd makes a parameter's gradient on the stream current for the forward operators (the
caller's) and keeps no other reference to it once it is in `param.grad`: dropping it (`= None`,
another value, `del`) gives its block back to that stream's pool at once (PyTorch's documentation
of record_stream; DeepSpeed ZeRO-3 records the current stream on each gradient before freeing
it). That holds only where the code leaves gradients where autograd put them. A class (or, for
functions, a module) that points gradients into buffers of its own (`param.grad.data = slot`, or
`param.grad = bucket_view`) may drop a view whose block the buffer keeps, and the analysis cannot
tell from the path alone which one a call met: there the rule says nothing.
"""
import ast
import functools

from .. import torch_model


def owns_autograd_gradients(frame):
    """Whether the gradients the frame's function finds in `param.grad` are autograd's own."""
    owner = frame.class_info.node if frame.class_info is not None else \
        frame.function.module.body.node
    return not _redirects_gradients(owner)


@functools.lru_cache(maxsize=None)
def _redirects_gradients(owner):
    for node in ast.walk(owner):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets, value = [node.target], node.value
        else:
            continue
        if isinstance(value, ast.Constant) and value.value is None:
            continue
        if any(_names_a_gradient(target) for target in targets):
            return True
    return False


def _names_a_gradient(target):
    """`x.grad` or `x.grad.data`."""
    if isinstance(target, ast.Attribute) and target.attr == "data":
        target = target.value
    return isinstance(target, ast.Attribute) and target.attr == torch_model.GRADIENT_ATTRIBUTE
