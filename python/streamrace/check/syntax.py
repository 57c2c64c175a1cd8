# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Walks and names over Python syntax trees that the package index and the passes share."""
import ast


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def nodes_under(root, summarized=None):
    """The nodes under `root`, itself included, in no set order (ast.walk's generators cost
    most of the indexing); a function definition in `summarized` comes as its FunctionInfo,
    its nodes not walked."""
    stack = [root]
    while stack:
        node = stack.pop()
        if summarized and type(node) in _DEFINITIONS and node is not root:
            info = summarized.get(node)
            if info is not None:
                yield info
                continue
        yield node
        stack += child_nodes(node)


def breadth_first(root):
    """ast.walk's nodes, in its order, without its generators (and without the operators and
    load/store markers, see child_nodes)."""
    order = [root]
    for node in order:   # the list grows behind the loop: each node's children join its end
        order += child_nodes(node)
    return order


def child_nodes(node):
    """ast.iter_child_nodes as a tuple, without its two generators; kept on the node, since the
    passes walk the same trees many times (the check never changes them). Left out: operators
    and load/store markers (`ctx`), read only through the node that holds them, and a third of
    what a walk would visit."""
    children = node.__dict__.get("_children")
    if children is None:
        found = []
        for name in node._fields:
            if name in _MARKER_FIELDS:
                continue
            value = getattr(node, name, None)
            if isinstance(value, list):
                found += [item for item in value if isinstance(item, ast.AST)]
            elif isinstance(value, ast.AST):
                found.append(value)
        children = node._children = tuple(found)
    return children


_MARKER_FIELDS = frozenset({"ctx", "op", "ops"})


def bound_names(node):
    """The plain names a statement or target assigns, anywhere inside it."""
    return {n.id for n in breadth_first(node)
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}


def expression_name(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = expression_name(node.value)
        return base + "." + node.attr if base else node.attr
    if isinstance(node, ast.Call):
        base = expression_name(node.func)
        return base + "()" if base else None
    return None



def unwrapped_annotation(annotation):
    """The type an annotation names, its optional forms taken off (`Optional[T]`, `T | None`,
    `"T"`); None for a union of several types or what does not parse."""
    annotation = parsed_annotation(annotation)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = [side for side in (annotation.left, annotation.right)
                 if not (isinstance(side, ast.Constant) and side.value is None)]
        return unwrapped_annotation(sides[0]) if len(sides) == 1 else None
    if isinstance(annotation, ast.Subscript) and \
            expression_name(annotation.value) in ("Optional", "typing.Optional"):
        return unwrapped_annotation(annotation.slice)
    return annotation


def parsed_annotation(annotation):
    """An annotation's expression, a string one parsed (`"EplbState"`); None if it does not
    parse."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    return annotation
