# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The user model of a project's wrapper functions, in the file `streamrace-check --model` reads
for C++ too. Entries with `"language": "python"` are the Python check's:

    {"functions": [{"name": "HaloExchanger.left_right_halo_exchange", "language": "python",
                    "reads": [0, 1], "writes": [2, 3, "out"], "stream": 4}]}

`reads` and `writes` name the call's arguments by position (counted without `self`) or by
keyword; `stream` names the argument holding the stream the work is ordered on (the current
stream when it is left out). A name matches the callee as written (`exchanger.halo_exchange`,
`comm.all_gather`), its last component, or a dotted or `::` qualified name ending so.
"""
import json
from dataclasses import dataclass
from typing import Dict, Optional, Tuple


class ModelError(Exception):
    pass


@dataclass(frozen=True)
class WrapperModel:
    reads: Tuple = ()
    writes: Tuple = ()
    stream: Optional[int] = None


class UserModel:
    def __init__(self, functions: Dict[str, WrapperModel]):
        self.functions = functions
        self.by_last_component = {}
        for name, wrapper in functions.items():
            self.by_last_component.setdefault(_last_component(name), wrapper)

    def find(self, spelling):
        """The model of a callee spelled so in the source, or None."""
        if not self.functions or not spelling:
            return None
        return self.functions.get(spelling) or \
            self.by_last_component.get(_last_component(spelling))


EMPTY = UserModel({})


def load(path):
    try:
        with open(path, encoding="utf-8") as source:
            text = source.read()
    except OSError as error:
        raise ModelError("streamrace user model: cannot read '%s': %s" % (path, error.strerror))
    try:
        return parse(text)
    except ModelError as error:
        raise ModelError("streamrace user model: in '%s': %s" % (path, error))


def parse(text):
    try:
        document = json.loads(text)
    except ValueError as error:
        raise ModelError("not JSON: %s" % error)
    functions = document.get("functions") if isinstance(document, dict) else None
    if not isinstance(functions, list):
        raise ModelError('expected an object with a "functions" array')
    models = {}
    for entry in functions:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name:
            raise ModelError('every entry of "functions" needs a "name"')
        if entry.get("language") != "python":
            continue   # a C++ wrapper's model
        stream = entry.get("stream")
        if stream is not None and not _is_index(stream):
            raise ModelError("'stream' of '%s' must be an argument index" % name)
        models[name] = WrapperModel(_arguments(entry, "reads", name),
                                    _arguments(entry, "writes", name), stream)
    return UserModel(models)


def _arguments(entry, key, name):
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(
            _is_index(v) or isinstance(v, str) and v.isidentifier() for v in value):
        raise ModelError("'%s' of '%s' must be an array of argument indices or keyword names"
                         % (key, name))
    return tuple(value)


def _is_index(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _last_component(name):
    return name.replace("::", ".").rsplit(".", 1)[-1]
