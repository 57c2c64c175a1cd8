# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A non-blocking copy to a device the caller names: `x.to(device, non_blocking=True)` with
`device` a parameter of the function (or a name its closure takes from the enclosing one's).
Given a GPU, the copy is ordered on the current stream like any other work; given the host, it
lands in pinned memory and the call returns before it is done (docs/semantics.md rule 7), so a
caller reading the result on the host reads bytes not yet written. A generic "move this batch"
helper is called with both (PyTorch Lightning #11287). The rule holds where a call of the
package names the host for that parameter: a helper only ever given GPUs (`get_h2d_func`) is
left alone, and so is code that tests what the device is (`device.type != "cpu"`, `device not
in CPU_DEVICES`, `"cuda" in str(device)`), which chose the flag by it."""
import ast
import re

from .syntax import nodes_under
from .values import Symbol

_DEVICE_KINDS = re.compile(r"cpu|cuda|host", re.IGNORECASE)
_HOST = re.compile(r"cpu", re.IGNORECASE)


def device_chosen_by_caller(args, kwargs, walker):
    """The parameter naming where `to(...)` copies, when the analysis's starting function was
    given it as is, a call of the package names the host for it, and no function around the
    copy tests what kind of device it is; else None."""
    given = kwargs.get("device") or (args[0] if args else None)
    if given is None:
        return None
    device, node = given
    if not isinstance(device, Symbol) or device.key is None or device.key.path or \
            device.key.root[0] != "param" or device.key.root[1] != walker.root_frame.ident or \
            not isinstance(node, ast.Name):
        return None
    function = walker.root
    while function is not None:
        if _tests_the_kind_of(node.id, function.node):
            return None
        function = function.parent
    return device if _host_handed_in(node.id, walker.root, walker.package) else None


def _host_handed_in(name, function, package):
    """Whether a call of the package gives the host for the parameter `name` of the function,
    or of the enclosing one a closure takes it from (`move_to_device(outputs, "cpu")`)."""
    while function is not None and name not in function.parameters()[0] + \
            function.parameters()[2]:
        function = function.parent
    if function is None:
        return False
    positional = function.parameters_after_self()
    for call in package.calls_named(function.name):
        given = [keyword.value for keyword in call.keywords if keyword.arg == name]
        if name in positional and positional.index(name) < len(call.args):
            given.append(call.args[positional.index(name)])
        if any(_HOST.search(ast.unparse(argument)) for argument in given):
            return True
    return False


def _tests_the_kind_of(name, function_node):
    """Whether a comparison in the function reads the name and a kind of device."""
    word = re.compile(r"\b%s\b" % re.escape(name))
    for node in nodes_under(function_node):
        if isinstance(node, ast.Compare):
            text = ast.unparse(node)
            if word.search(text) and _DEVICE_KINDS.search(word.sub("", text)):
                return True
    return False
