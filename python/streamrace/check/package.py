# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The files checked together, as one program: their modules, classes and functions, what each
module imported, and the functions that run later as hooks. Calls resolve through it: a name to
the function of the module or closure that defines it, `self.m` to the class's method (or its
bases'), `obj.m` on an object of unknown class to the one function of that name in the package
(or to each implementation of it, where the classes defining it derive from one of the package).
"""
import ast
import functools
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .. import torch_model
from .condition_texts import async_flag_texts, condition_text, none_test, optional_stream
from .given_conditions import count_given_conditions, flags_tested
from .hook_registrations import find_hooks, registers_hook
from .stream_work import (LIFETIME_WORK_NAMES, RELEASES_STORAGE, STREAM_READS, STREAM_WORDS,
                          STREAM_WORK_NAMES, functions_doing_stream_work)
from .syntax import (bound_names, breadth_first, child_nodes, expression_name, nodes_under,
                     unwrapped_annotation)


@dataclass(eq=False)
class FunctionInfo:
    name: str
    qualified_name: str
    node: ast.AST
    module: "ModuleInfo"
    class_name: Optional[str] = None
    parent: Optional["FunctionInfo"] = None
    nested: Dict[str, "FunctionInfo"] = field(default_factory=dict)
    # Names used in the body (attributes and variables): a quick test of what it may do.
    names: frozenset = frozenset()
    flag_names: set = field(default_factory=set)   # plain names its tests test as flags
    is_property: bool = False
    # From the one walk over the body: the names it calls, its calls registering hooks, and its
    # attribute, call and annotated assignment nodes (what tensor usage is read from).
    calls: frozenset = frozenset()
    hook_calls: tuple = ()
    attribute_nodes: tuple = ()
    call_nodes: tuple = ()
    annotated_assignments: tuple = ()
    asserted_tests: tuple = ()   # the tests of its `assert`s (`assert isinstance(x, Tensor)`)
    # The parameters whose bytes the body may read, once asked (argument_reads.py).
    parameters_read: Optional[frozenset] = None
    # Whether it returns a tensor it made, once asked (new_tensors.py).
    returns_new_tensor: Optional[bool] = None
    # The local names it binds to a tensor's sizes, once asked (indices.py).
    size_names: Optional[frozenset] = None
    # What parameters() returns, once asked: every name the analysis cannot find among a
    # path's locals is looked up there.
    _parameters: Optional[tuple] = None
    _closure_names: Optional[frozenset] = None
    _parameters_after_self: Optional[tuple] = None

    def parameters(self):
        """(positional names, the *args node, keyword-only names, the **kwargs node)."""
        if self._parameters is None:
            if not hasattr(self.node, "args"):
                self._parameters = ((), None, (), None)   # a module's own statements
            else:
                args = self.node.args
                self._parameters = (tuple(a.arg for a in args.posonlyargs + args.args),
                                    args.vararg, tuple(a.arg for a in args.kwonlyargs),
                                    args.kwarg)
        return self._parameters

    def is_method(self):
        return self.class_name is not None and self.parent is None

    def is_static(self):
        return any(isinstance(d, ast.Name) and d.id == "staticmethod"
                   for d in self.node.decorator_list)

    def parameters_after_self(self):
        """The positional parameters a call through an object gives values to."""
        if self._parameters_after_self is None:
            positional = self.parameters()[0]
            self._parameters_after_self = positional[1:] if self.is_method() and positional \
                and not self.is_static() else positional
        return self._parameters_after_self

    def accepts(self, args, kwargs):
        """Whether a call through an object could give it these arguments after its `self`."""
        _, vararg, keyword_only, kwarg = self.parameters()
        positional = self.parameters_after_self()
        if len(args) > len(positional) and vararg is None:
            return False
        return kwarg is not None or all(name in positional or name in keyword_only
                                        for name in kwargs)

    def own_call_nodes(self):
        """Its call nodes but those of the functions defined in it (which hold them too)."""
        nested = {id(call) for inner in self.nested.values() for call in inner.call_nodes}
        return [call for call in self.call_nodes if id(call) not in nested]

    def closure_names(self):
        """The names the enclosing functions bind (their parameters and locals), which a nested
        function reads from the call of its maker that made it."""
        if self._closure_names is None:
            names = set()
            parent = self.parent
            while parent is not None:
                positional, vararg, keyword_only, kwarg = parent.parameters()
                names.update(positional + keyword_only)
                names.update(extra.arg for extra in (vararg, kwarg) if extra is not None)
                names.update(bound_names(parent.node))
                parent = parent.parent
            self._closure_names = frozenset(names)
        return self._closure_names


@dataclass(eq=False)
class ClassInfo:
    name: str
    module: "ModuleInfo"
    node: ast.ClassDef
    bases: List[str]
    methods: Dict[str, FunctionInfo] = field(default_factory=dict)


@dataclass(eq=False)
class ModuleInfo:
    source: object  # SourceFile
    dotted: str
    functions: Dict[str, FunctionInfo] = field(default_factory=dict)
    classes: Dict[str, ClassInfo] = field(default_factory=dict)
    # local name -> dotted name it stands for ("dist" -> "torch.distributed",
    # "flatten" -> "deepspeed.runtime.utils.flatten")
    imports: Dict[str, str] = field(default_factory=dict)
    body: Optional["FunctionInfo"] = None

    @property
    def path(self):
        return self.source.path


def _dotted_name(path):
    """The module's dotted name from the packages (folders with __init__.py) around it."""
    path = os.path.abspath(path)
    folder, name = os.path.split(path)
    parts = [os.path.splitext(name)[0]]
    if parts[0] == "__init__":
        parts = []
    while os.path.exists(os.path.join(folder, "__init__.py")):
        folder, package = os.path.split(folder)
        parts.insert(0, package)
    return ".".join(parts)


class Package:
    def __init__(self, sources):
        self.modules = []
        self.by_dotted = {}
        self.classes_by_name = {}
        self.functions_by_name = {}   # plain name -> [FunctionInfo] (methods and nested too)
        self.attribute_functions = {}  # attribute name -> [FunctionInfo] assigned to it
        # Attribute names of containers the package fills by an item store or a method
        # (`self.model_states[name] = state`, `obj.buckets.append(b)`), anywhere.
        self.filled_fields = set()
        # Attribute name -> the constants stored under it anywhere (None for a store of
        # anything else): a flag set in `__init__` and changed by code not walked is no constant.
        self.stored_constants = {}
        # Attribute name -> the names of the classes whose new objects are stored under it, or
        # held in a container stored or filled under it, anywhere (None for anything else).
        self.stored_classes = {}
        self.hooks = {}               # FunctionInfo -> "gradient" or "module"
        self.condition_counts = {}
        # Per `if` whose branches do no stream work themselves: its condition texts, and the
        # names its branches use (the functions they call among them).
        self.branches_calling = []
        self.stream_condition_texts = set()
        self.async_flags = set()   # the texts of the flags given as a collective's async_op
        self._called_names = None   # every name the package's functions call, once asked
        self._calls_by_name = None   # the same, each name's call nodes
        self._implementations = {}   # method name -> implementations(name)
        self.optional_stream_texts = set()
        for source in sources:
            module = ModuleInfo(source, _dotted_name(source.path))
            self.modules.append(module)
            self.by_dotted.setdefault(module.dotted, module)
            indexer = _Indexer(self, module)
            indexer.visit(source.tree)
            # A script's statements outside any function are a function of their own.
            module.body = FunctionInfo("<module>", "<module>", source.tree, module)
            _summarize(module.body, indexer.by_node)
        for module in self.modules:
            find_hooks(self, module)
        count_given_conditions(self)
        # `if stream:` of a stream a context may be given as None tests `stream is not None`.
        for text in self.optional_stream_texts:
            truth = text[:-len(" is None")]
            if truth in self.condition_counts:
                self.condition_counts[text] = self.condition_counts.get(text, 0) + \
                    self.condition_counts[truth]
        # Conditions tested more than once: the paths that decide them differently are kept
        # apart, so that the second test takes the branch the first one took.
        self.correlated = frozenset(t for t, n in self.condition_counts.items() if n > 1) | \
            frozenset(t for t in self.optional_stream_texts if t in self.condition_counts)
        self._stream_work = functions_doing_stream_work(self)
        # Conditions that decide stream work (a branch that picks a stream, waits, or launches
        # a collective): paths that decide them differently are the last to be joined.
        releasing = {function.name for function in self._stream_work
                     if self.only_keeps_lifetimes(function)}
        for texts, names in self.branches_calling:
            if not names.isdisjoint(releasing):
                # `if overlap: self.free_shards(p)`, where the callee records and releases:
                # whether storage is given back decides what later work on it meets.
                self.stream_condition_texts.update(texts)
        self.stream_conditions = frozenset(self.stream_condition_texts)
        self._sets_default_device = None
        self._ancestors = {}
        self._bases = {}

    def does_stream_work(self, function):
        """Whether a function, or one it calls by name, touches streams, events, collectives or
        host copies: only those are followed into from their callers."""
        return function in self._stream_work

    def classes_held_in(self, attribute):
        """The package's classes whose objects every store under that attribute name makes
        (`self.staging = StagingBuffer(...)`, `self.slots = [Slot() for _ in range(2)]`), or
        None where a store holds anything else."""
        names = self.stored_classes.get(attribute)
        if not names or None in names:
            return None
        classes = [self.class_named(name) for name in names]
        return None if None in classes else frozenset(names)

    def never_stored(self, attribute):
        """Whether no statement of the package stores anything under that attribute name: a
        stream read from it is one the package knows nothing of (set from outside, or code
        that never runs)."""
        return attribute is not None and attribute not in self.stored_constants

    def sets_default_device(self):
        """Whether the package makes another device than the CPU the default one for new
        tensors (`torch.set_default_device("cuda")`), anywhere."""
        if self._sets_default_device is None:
            self._sets_default_device = any(function.names & torch_model.DEFAULT_DEVICE_SETTERS
                                            for function in self.all_functions())
        return self._sets_default_device

    def does_stream_work_itself(self, function):
        """Whether a function's own body touches streams, events, collectives or host copies
        (not only through the package's functions it calls)."""
        return bool(function.names & STREAM_WORK_NAMES)

    def only_changes_lifetimes(self, function):
        """Whether a function's stream work is all releases, resizes and `record_stream`s of
        its own (`free_storage_(t)`), none through the package's functions it calls."""
        work = function.names & STREAM_WORK_NAMES
        return bool(work) and work <= LIFETIME_WORK_NAMES and \
            not self.works_through_callees(function)

    def works_alone(self, function):
        """Whether a function does stream work itself and none through the package's functions
        it calls (`wait_for_batch(batch, stream)`: a wait and a `record_stream`)."""
        return self.does_stream_work_itself(function) and \
            not self.works_through_callees(function)

    def works_through_callees(self, function):
        return any(self.does_stream_work(callee) for name in function.calls
                   for callee in self.functions_by_name.get(name, ()))

    def only_keeps_lifetimes(self, function, seen=frozenset()):
        """Whether all the stream work a function does, itself and through the package's
        functions it calls, is releases, resizes and `record_stream`s (`free_shards(params)`
        recording each shard on the current stream, then calling `free_storage_` on it)."""
        work = function.names & STREAM_WORK_NAMES - STREAM_READS
        if not work <= LIFETIME_WORK_NAMES:
            return False
        seen = seen | {function}
        # A call by the name of the work itself (`p.record_stream(s)`) is that work, whatever
        # a package class of that method name does.
        return all(callee not in seen and self.only_keeps_lifetimes(callee, seen)
                   for name in function.calls - STREAM_WORK_NAMES
                   for callee in self.functions_by_name.get(name, ())
                   if self.does_stream_work(callee))

    def all_functions(self):
        for functions in self.functions_by_name.values():
            yield from functions
        for module in self.modules:
            yield module.body

    def called_by_name(self, function):
        """Whether some function of the package calls one of this function's name (by name, or
        as an attribute: `helper(x)`, `obj.helper(x)`); a method only as an attribute, since a
        bare name (`next(iterator)`) calls a module's function or a builtin, never a method."""
        if function.class_name is not None and function.parent is None:
            return any(isinstance(call.func, ast.Attribute)
                       for call in self.calls_named(function.name))
        if self._called_names is None:
            self._called_names = frozenset().union(*(f.calls for f in self.all_functions()))
        return function.name in self._called_names

    def calls_named(self, name):
        """The package's calls of a function of this name, as `called_by_name` counts them."""
        if self._calls_by_name is None:
            self._calls_by_name = {}
            for function in self.all_functions():
                for call in function.own_call_nodes():
                    called = call.func.attr if isinstance(call.func, ast.Attribute) else \
                        getattr(call.func, "id", None)
                    self._calls_by_name.setdefault(called, []).append(call)
        return self._calls_by_name.get(name, ())

    def add_function(self, info):
        self.functions_by_name.setdefault(info.name, []).append(info)

    def class_named(self, name, module=None):
        if module is not None:
            if name in module.classes:
                return module.classes[name]
            target = module.imports.get(name)
            if target:
                found = self._imported(target)
                if isinstance(found, ClassInfo):
                    return found
        candidates = self.classes_by_name.get(name, [])
        return candidates[0] if len(candidates) == 1 else None

    def ancestors(self, class_name):
        """The names of a class and of the classes it derives from, as far as the package
        defines them (found once per class name)."""
        found = self._ancestors.get(class_name)
        if found is None:
            found = self._ancestors[class_name] = frozenset((class_name,) +
                                                            self.bases_of(class_name))
        return found

    def bases_of(self, class_name):
        """The names of the classes a class derives from, as far as the package defines them,
        the nearest first (found once per class name)."""
        found = self._bases.get(class_name)
        if found is None:
            found, pending = [], [class_name]
            while pending:
                class_info = self.class_named(pending.pop(0))
                for base in class_info.bases if class_info is not None else ():
                    name = base.split(".")[-1]
                    if name != class_name and name not in found:
                        found.append(name)
                        pending.append(name)
            self._bases[class_name] = found = tuple(found)
        return found

    def method(self, class_info, name, seen=None):
        """The method `name` of the class or of its bases in the package."""
        if class_info is None:
            return None
        if name in class_info.methods:
            return class_info.methods[name]
        seen = seen or set()
        seen.add(class_info.name)
        for base in class_info.bases:
            base_info = self.class_named(base.split(".")[-1], class_info.module)
            if base_info is not None and base_info.name not in seen:
                found = self.method(base_info, name, seen)
                if found is not None:
                    return found
        return None

    def annotated_class(self, annotation, module):
        """The package class whose instance a parameter annotation names (`EplbState`,
        `"EplbState"`, `EplbState | None`, `Optional[EplbState]`); None for anything else,
        containers of instances included."""
        annotation = unwrapped_annotation(annotation)
        name = expression_name(annotation) if isinstance(annotation, (ast.Name, ast.Attribute)) \
            else None
        return self.class_named(name.split(".")[-1], module) if name else None

    def resolve_name(self, module, function, name):
        """A plain name called in `function` of `module`: a closure's nested function, a function
        or class of the module, or an imported one of the package."""
        scope = function
        while scope is not None:
            if name in scope.nested:
                return scope.nested[name]
            scope = scope.parent
        if name in module.functions:
            return module.functions[name]
        if name in module.classes:
            return module.classes[name]
        target = module.imports.get(name)
        if target:
            return self._imported(target)
        return None

    def _imported(self, dotted):
        module_name, _, attribute = dotted.rpartition(".")
        module = self.by_dotted.get(module_name)
        if module is not None:
            if attribute in module.functions:
                return module.functions[attribute]
            if attribute in module.classes:
                return module.classes[attribute]
            target = module.imports.get(attribute)
            if target and target != dotted:
                return self._imported(target)
        return None

    def module_attribute(self, dotted_module, attribute):
        module = self.by_dotted.get(dotted_module)
        if module is None:
            return None
        return module.functions.get(attribute) or module.classes.get(attribute)

    def unique_method(self, name):
        """The one function the package defines under this name for objects of unknown class:
        methods of that name, and nested functions assigned to attributes of that name."""
        candidates = [f for f in self.functions_by_name.get(name, []) if f.is_method()]
        candidates += self.attribute_functions.get(name, [])
        unique = {id(c): c for c in candidates}
        return next(iter(unique.values())) if len(unique) == 1 else None

    def implementations(self, name):
        """The methods of this name that classes deriving from one class of the package define
        (`HaloExchangerNoComm`, `HaloExchangerAllGather`, ... of `HaloExchanger`): what an object
        known only as one of them may run. Empty when classes unrelated in the package share
        the name, or when so many do that following each costs more than it tells."""
        found = self._implementations.get(name)
        if found is None:
            methods = [f for f in self.functions_by_name.get(name, []) if f.is_method()]
            found = ()
            if 2 <= len(methods) <= _MOST_IMPLEMENTATIONS and \
                    all(f.class_name is not None for f in methods):
                shared = functools.reduce(frozenset.intersection,
                                          (self.ancestors(f.class_name) for f in methods))
                if any(self.class_named(base) is not None for base in shared):
                    found = tuple(methods)
            # Asked at every call of the name on an object of unknown class: answered once.
            self._implementations[name] = found
        return found


class _Indexer(ast.NodeVisitor):
    def __init__(self, package, module):
        self.package = package
        self.module = module
        self.scopes = []  # ClassInfo and FunctionInfo, innermost last
        # For each loop around the statement visited, in this function: the names it binds.
        self.loops = []
        self.by_node = {}  # def node -> its FunctionInfo, once summarized
        # statement -> (the names it mentions, the plain names it binds), nested statements
        # included: an `if` or a loop asks about its body, and so does each one nested in it.
        self.statement_names = {}

    def generic_visit(self, node):
        # Definitions and imports are statements: the expressions between them hold none of
        # either (lambdas are not indexed), so only statement lists are walked.
        for statements in ("body", "orelse", "handlers", "finalbody", "cases"):
            for child in getattr(node, statements, ()):
                self.visit(child)

    def _class_name(self):
        for scope in reversed(self.scopes):
            if isinstance(scope, ClassInfo):
                return scope.name
            if isinstance(scope, FunctionInfo):
                return scope.class_name
        return None

    def _count_condition(self, test, decides_stream_work):
        if self.scopes and isinstance(self.scopes[-1], FunctionInfo):
            self.scopes[-1].flag_names.update(flags_tested(test))
        parts = test.values if isinstance(test, ast.BoolOp) else [test]
        class_name = self._class_name()
        for part in parts:
            text = condition_text(part, class_name)
            if text is not None:
                counts = self.package.condition_counts
                counts[text] = counts.get(text, 0) + self._times_tested(part)
        if decides_stream_work:
            self.package.stream_condition_texts.update(self._condition_texts(test))

    def _condition_texts(self, test):
        """A test's text, and those of the parts of its `and`/`or` chains (under a negation
        too), which are what the paths record (statements.py)."""
        texts = set()
        parts = [test]
        while parts:
            part = parts.pop()
            text = condition_text(part, self._class_name())
            if text is not None:
                texts.add(text)
            if isinstance(part, ast.BoolOp):
                parts += part.values
            elif isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not):
                parts.append(part.operand)
        return texts

    def _times_tested(self, test):
        """A test in a loop that reads nothing the loop changes is tested again, with the same
        outcome, on the next iteration."""
        read = {n.id for n in breadth_first(test) if isinstance(n, ast.Name)}
        return 2 if any(not (read & bound) for bound in self.loops) else 1

    def _names_of(self, statement):
        found = self.statement_names.get(statement)
        if found is None:
            names, bound = set(), set()
            stack = list(child_nodes(statement))
            while stack:
                node = stack.pop()
                if isinstance(node, ast.stmt):
                    inner_names, inner_bound = self._names_of(node)
                    names |= inner_names
                    bound |= inner_bound
                    continue
                if isinstance(node, ast.Attribute):
                    names.add(node.attr)
                elif isinstance(node, ast.Name):
                    names.add(node.id)
                    if isinstance(node.ctx, (ast.Store, ast.Del)):
                        bound.add(node.id)
                elif isinstance(node, ast.keyword) and node.arg:
                    names.add(node.arg)
                elif type(node) is ast.Constant and node.value in _FLAGS_BY_KEY:
                    names.add(node.value)
                stack += child_nodes(node)
            found = self.statement_names[statement] = (names, bound)
        return found

    def visit_If(self, node):
        names = set()
        for statement in node.body + node.orelse:
            names |= self._names_of(statement)[0]
        decides_stream_work = not names.isdisjoint(STREAM_WORDS)
        self._count_condition(node.test, decides_stream_work)
        if not decides_stream_work:
            # Whether a branch calls a function that does stream work is known once every
            # module is indexed (Package.__init__).
            self.package.branches_calling.append((self._condition_texts(node.test), names))
        self.generic_visit(node)

    def visit_With(self, node):
        # `with torch.cuda.stream(self._stream):` is a test of whether the stream is None (a
        # context of None changes nothing) where the code tests that too.
        for item in node.items:
            given = optional_stream(item.context_expr)
            text = condition_text(none_test(given), self._class_name()) \
                if given is not None else None
            if text is not None:
                self.package.optional_stream_texts.add(text)
        self.generic_visit(node)

    visit_AsyncWith = visit_With

    def visit_Assert(self, node):
        # What an assertion tests holds past it (statements.py): tested by an `if` elsewhere,
        # the paths that took the other branch there do not reach past it.
        self._count_condition(node.test, False)
        self.generic_visit(node)

    def visit_While(self, node):
        self._count_condition(node.test, False)
        self._visit_loop(node, set())

    def visit_For(self, node):
        text = "for:" + (condition_text(node.iter, self._class_name()) or "")
        self.package.condition_counts[text] = self.package.condition_counts.get(text, 0) + 1
        self._visit_loop(node, bound_names(node.target))

    def _visit_loop(self, node, bound):
        for statement in node.body:
            bound |= self._names_of(statement)[1]
        self.loops.append(bound)
        self.generic_visit(node)
        self.loops.pop()

    visit_AsyncFor = visit_For

    def _in_function(self):
        return any(isinstance(s, FunctionInfo) for s in self.scopes)

    def visit_Import(self, node):
        if self._in_function():
            return
        for alias in node.names:
            if alias.asname:
                self.module.imports[alias.asname] = alias.name
            else:
                self.module.imports.setdefault(alias.name.split(".")[0], alias.name.split(".")[0])

    def visit_ImportFrom(self, node):
        if self._in_function():
            return
        base = node.module or ""
        if node.level:
            package = self.module.dotted.split(".")
            if not os.path.basename(self.module.path).startswith("__init__"):
                package = package[:-1]
            if node.level > 1:
                package = package[:len(package) - (node.level - 1)]
            base = ".".join(package + ([base] if base else []))
        for alias in node.names:
            self.module.imports[alias.asname or alias.name] = base + "." + alias.name

    def visit_ClassDef(self, node):
        # A generic base (`Pipeline[In, Out]`) is the class it subscripts.
        bases = [b.value if isinstance(b, ast.Subscript) else b for b in node.bases]
        info = ClassInfo(node.name, self.module, node,
                         [expression_name(b) for b in bases if expression_name(b)])
        if not self.scopes:
            self.module.classes[node.name] = info
        self.package.classes_by_name.setdefault(node.name, []).append(info)
        self.scopes.append(info)
        loops, self.loops = self.loops, []
        for statement in node.body:
            self.visit(statement)
        self.loops = loops
        self.scopes.pop()

    def visit_FunctionDef(self, node):
        enclosing = self.scopes[-1] if self.scopes else None
        if isinstance(enclosing, ClassInfo):
            parent, class_name = None, enclosing.name
            qualified = enclosing.name + "." + node.name
        elif isinstance(enclosing, FunctionInfo):
            parent, class_name = enclosing, enclosing.class_name
            qualified = enclosing.qualified_name + "." + node.name
        else:
            parent, class_name, qualified = None, None, node.name
        info = FunctionInfo(node.name, qualified, node, self.module, class_name, parent)
        info.is_property = any(expression_name(d) in ("property", "cached_property",
                                                       "functools.cached_property")
                               for d in node.decorator_list)
        if isinstance(enclosing, ClassInfo):
            enclosing.methods.setdefault(node.name, info)
        elif parent is not None:
            parent.nested[node.name] = info
        else:
            self.module.functions[node.name] = info
        self.package.add_function(info)
        self.scopes.append(info)
        loops, self.loops = self.loops, []
        for statement in node.body:
            self.visit(statement)
        self.loops = loops
        self.scopes.pop()
        # After the body: the functions defined in it are summarized, and taken whole.
        _summarize(info, self.by_node)
        self.by_node[node] = info
        self._count_async_flags(info, class_name)

    def _count_async_flags(self, info, class_name):
        """`async_op=flag` tests the flag: where the package tests it again (`if flag:
        self.handle = work`), paths stay apart by its value from the call on (statements.py),
        and it decides stream work (whether the current stream waits for the collective)."""
        for call in info.own_call_nodes():
            for text in async_flag_texts(call, class_name):
                counts = self.package.condition_counts
                counts[text] = counts.get(text, 0) + 1
                self.package.stream_condition_texts.add(text)
                self.package.async_flags.add(text)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Expr(self, node):
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                call.func.attr in _FILLING_METHODS and isinstance(call.func.value, ast.Attribute):
            self.package.filled_fields.add(call.func.value.attr)
            for argument in call.args or [None]:
                self._held(call.func.value.attr, argument)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self._stored(node.target, node.value)

    def visit_AugAssign(self, node):
        self._stored(node.target, None)

    def _stored(self, target, value):
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute):
            self.package.filled_fields.add(target.value.attr)
            self._held(target.value.attr, value)
        elif isinstance(target, ast.Attribute):
            constant = repr(value.value) if isinstance(value, ast.Constant) else None
            self.package.stored_constants.setdefault(target.attr, set()).add(constant)
            self._held(target.attr, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._stored(element, None)

    def visit_Assign(self, node):
        for target in node.targets:
            self._stored(target, node.value)
        # obj.name = nested_function: calls of obj.name() reach it.
        enclosing = self.scopes[-1] if self.scopes else None
        if isinstance(enclosing, FunctionInfo) and isinstance(node.value, ast.Name):
            for target in node.targets:
                if isinstance(target, ast.Attribute):
                    found = enclosing.nested.get(node.value.id)
                    if found is not None:
                        self.package.attribute_functions.setdefault(target.attr, []).append(found)


    def _held(self, attribute, value):
        if isinstance(value, ast.Constant) and value.value is None:
            return   # `self.x = None` until the object is made: says nothing of it
        if isinstance(value, (ast.List, ast.Tuple)):
            elements = value.elts
        elif isinstance(value, ast.ListComp):
            elements = [value.elt]
        else:
            elements = [value]
        held = self.package.stored_classes.setdefault(attribute, set())
        held.update(_constructed_class(element) for element in elements or [None])


def _constructed_class(value):
    """The name a call that may make an object is made by (`StagingBuffer(...)`,
    `buffers.StagingBuffer(...)`), or None."""
    if not isinstance(value, ast.Call):
        return None
    if isinstance(value.func, ast.Name):
        return value.func.id
    return value.func.attr if isinstance(value.func, ast.Attribute) else None


# The most implementations of one method followed for an object whose class is unknown.
_MOST_IMPLEMENTATIONS = 4

_FILLING_METHODS = frozenset({"append", "extend", "insert", "update", "setdefault", "add"})

# A call's asynchronous flags, when a dict handed over as `**options` holds them
# (`options["non_blocking"] = True`: keyword_splats.py).
_FLAGS_BY_KEY = frozenset({"non_blocking", *torch_model.ASYNC_KEYWORDS})


def _summarize(info, summarized):
    """What the body holds, nested functions included: names, calls, hook registrations, and
    attribute and call nodes. A nested function in `summarized` (each is, before the function
    that defines it) is taken from its own summary, so that every node is walked once."""
    names, calls, attributes, call_nodes, annotated, asserted = set(), set(), [], [], [], []
    registers_hooks = False
    for child in nodes_under(info.node, summarized):
        if isinstance(child, FunctionInfo):
            names |= child.names
            calls |= child.calls
            attributes += child.attribute_nodes
            call_nodes += child.call_nodes
            annotated += child.annotated_assignments
            asserted += child.asserted_tests
            registers_hooks = registers_hooks or bool(child.hook_calls)
        elif isinstance(child, ast.Attribute):
            names.add(child.attr)
            attributes.append(child)
        elif isinstance(child, ast.Name):
            names.add(child.id)
        elif isinstance(child, ast.keyword) and child.arg:
            names.add(child.arg)
        elif type(child) is ast.Constant and child.value in _FLAGS_BY_KEY:
            names.add(child.value)
        elif isinstance(child, ast.Assign) and _points_data_at_new_storage(child):
            names.add(RELEASES_STORAGE)
        elif type(child) is ast.AnnAssign:
            annotated.append(child)
        elif type(child) is ast.Assert:
            asserted.append(child.test)
        elif isinstance(child, ast.Call):
            call_nodes.append(child)
            if isinstance(child.func, ast.Name):
                calls.add(child.func.id)
            elif isinstance(child.func, ast.Attribute):
                calls.add(child.func.attr)
            registers_hooks = registers_hooks or registers_hook(child)
    info.names = frozenset(names)
    info.calls = frozenset(calls)
    # In ast.walk's order, as registrations are taken (the first of a hook's wins); few
    # functions register hooks, so those alone are walked again.
    info.hook_calls = tuple(child for child in breadth_first(info.node) if
                            isinstance(child, ast.Call) and registers_hook(child)) \
        if registers_hooks else ()
    info.attribute_nodes = tuple(attributes)
    info.call_nodes = tuple(call_nodes)
    info.annotated_assignments = tuple(annotated)
    info.asserted_tests = tuple(asserted)


def _points_data_at_new_storage(assign):
    value = assign.value
    if not isinstance(value, ast.Call):
        return False
    made = value.func.attr if isinstance(value.func, ast.Attribute) else \
        value.func.id if isinstance(value.func, ast.Name) else None
    return made in torch_model.FACTORY_FUNCTIONS and any(
        isinstance(target, ast.Attribute) and target.attr == "data" for target in assign.targets)
