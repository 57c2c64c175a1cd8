# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""How a condition is named: its text, with `self` named by the class, so that one flag tested
in several places and on several paths is one condition (`self.overlap_comm`, `x is None`)."""
import ast
import re

from .. import torch_model
from .syntax import bound_names, breadth_first, expression_name


def async_flag_texts(call, class_name):
    """The conditions a call's asynchronous flags name (`async_op=self.overlap`), where they are
    not constants."""
    return [text for keyword in call.keywords
            if keyword.arg in torch_model.ASYNC_KEYWORDS and
            not isinstance(keyword.value, ast.Constant)
            for text in (condition_text(keyword.value, class_name),) if text is not None]


def condition_text(test, class_name):
    """A condition's identity: its text with `self` named by the class, when it reads only
    attributes and names (a flag, `self.overlap_comm`, `x is None`); None otherwise. `x is not
    None` is the condition `x is None`, negated."""
    while True:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test = test.operand
        elif is_not_none(test):
            test = none_test(test.left)
        else:
            break
    for node in breadth_first(test):
        if isinstance(node, (ast.Call, ast.Await, ast.NamedExpr, ast.Lambda)) and \
                not polls_completion(node):
            return None
    text = ast.unparse(test)
    if class_name:
        text = text.replace("self.", class_name + ".")
    return text


def polls_completion(test):
    """Whether a test asks a stream or an event whether its work is done (`e.query()`, on a
    receiver of names and attributes): a condition of its own, which, once true on a path,
    stays true."""
    return isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and \
        test.func.attr in torch_model.POLLING_METHODS and not test.args and \
        not test.keywords and not any(isinstance(node, ast.Call)
                                      for node in breadth_first(test.func.value))


def polls_in(test, flags=None):
    """The `query()` calls a test makes (`self.copied is None or self.copied.query()`), those
    of the polling flags it reads (`polling_flags`) included."""
    found = []
    for node in breadth_first(test):
        if polls_completion(node):
            found.append(node)
        elif flags and isinstance(node, ast.Name) and node.id in flags:
            found += polls_in(flags[node.id])
    return found


def polling_flags(function_node):
    """The names a function binds once to a test that polls (`done = event is not None and
    event.query()`), each to that test: `if done:` asks it again, and the poll's yes holds
    there as it would in `if event.query():`. Found once per function."""
    found = getattr(function_node, "_polling_flags", None)
    if found is None:
        bound, found = {}, {}
        for node in breadth_first(function_node):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in bound_names(target):
                        bound[name] = bound.get(name, 0) + 1
                if isinstance(node, ast.Assign) and len(targets) == 1 and \
                        isinstance(targets[0], ast.Name) and polls_in(node.value):
                    found[targets[0].id] = node.value
        found = {name: test for name, test in found.items() if bound[name] == 1}
        function_node._polling_flags = found
    return found


def asserted_on_host(test):
    """The names a test says are tensors in host memory, each part of an `and` apart:
    `x.device.type == "cpu"`, `x.is_cpu`, `not x.is_cuda`, `x.device == torch.device("cpu")`."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) \
        else [test]
    found = []
    for part in parts:
        if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not) and \
                isinstance(part.operand, ast.Attribute) and part.operand.attr == "is_cuda":
            tensor = part.operand.value
        elif isinstance(part, ast.Attribute) and part.attr == "is_cpu":
            tensor = part.value
        elif isinstance(part, ast.Compare) and len(part.ops) == 1 and \
                isinstance(part.ops[0], ast.Eq) and _names_the_host(part.comparators[0]):
            device = part.left.value if isinstance(part.left, ast.Attribute) and \
                part.left.attr == "type" else part.left
            tensor = device.value if isinstance(device, ast.Attribute) and \
                device.attr == "device" else None
        else:
            tensor = None
        if isinstance(tensor, ast.Name):
            found.append(tensor)
    return found


def _names_the_host(node):
    """`"cpu"`, or `torch.device("cpu")`."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and \
            (expression_name(node.func) or "").split(".")[-1] == "device":
        node = node.args[0]
    return isinstance(node, ast.Constant) and node.value == "cpu"


def is_not_none(test):
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and \
        isinstance(test.ops[0], ast.IsNot) and isinstance(test.comparators[0], ast.Constant) and \
        test.comparators[0].value is None


def compared_with_a_bool(test):
    """For `x is True`, `x == False`, `x is not True` and their kin: whether the comparison is
    x's truth negated (False: it is x's truth; None: no such comparison)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and
            isinstance(test.left, (ast.Name, ast.Attribute)) and
            isinstance(test.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) and
            isinstance(test.comparators[0], ast.Constant) and
            isinstance(test.comparators[0].value, bool)):
        return None
    return isinstance(test.ops[0], (ast.IsNot, ast.NotEq)) == test.comparators[0].value


def none_test(expression):
    """`expression is None`, made once per expression."""
    made = getattr(expression, "_none_test", None)
    if made is None:
        made = ast.Compare(expression, [ast.Is()], [ast.Constant(None)])
        ast.copy_location(made, expression)
        expression._none_test = made
    return made


def optional_stream(context_expr):
    """The stream of `something.stream(<stream>)` given as a name or an attribute, which may be
    None: the context then changes nothing. Also through a function a project keeps for it
    (TorchRec's `self._stream_context(stream)`, which holds `torch.cuda.stream`)."""
    if isinstance(context_expr, ast.Call) and len(context_expr.args) == 1 and \
            "stream" in (expression_name(context_expr.func) or "").rsplit(".", 1)[-1] and \
            isinstance(context_expr.args[0], (ast.Name, ast.Attribute)):
        return context_expr.args[0]
    return None


_NAMES_OF_CONDITION = {}


def mentions_name(text, name):
    """Whether a condition's text reads the variable `name` (not an attribute of that name)."""
    names = _NAMES_OF_CONDITION.get(text)
    if names is None:
        names = _NAMES_OF_CONDITION[text] = frozenset(re.findall(r"(?<![\w.])([A-Za-z_]\w*)",
                                                                   text))
    return name in names
