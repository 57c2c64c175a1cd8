# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Lists the code builds of tensors it makes, bound to a name: `gathered = [torch.empty_like(x)
for _ in range(world_size)]`, `self.buffers = [torch.empty(n), torch.empty(n)]`, `{name:
torch.zeros_like(p) for ...}`. Their elements are that name's elements (`gathered[rank]`,
`self.buffers[i]`), as those of a list an attribute is filled with by appends are, so that a
collective writing them and a later read of one meet; made on the device, they are device
tensors. Unnamed, each would stay the expression's temporary, whose accesses no other access can
meet."""
from .values import VERSION_SEPARATOR, Container, Key, Symbol, Tensor


def holds_made_tensors(value):
    """Whether a value is a list or tuple the code built of tensors the expression made, and of
    nothing else (`(x, torch.empty_like(x))` keeps naming x by its own name)."""
    return isinstance(value, Container) and value.key is None and not value.labels and \
        bool(value.items) and all(isinstance(item, Tensor) and item.key.root[0] == "temporary"
                                  for item in value.items)


def _each_version(key):
    """The keys of the lists a key joined on two paths may be (`gathered@3|5` is `gathered@3`
    or `gathered@5`)."""
    for position, part in enumerate(key.path):
        if part.startswith("@") and VERSION_SEPARATOR in part:
            return [Key(key.root, key.path[:position] + (version,) + key.path[position + 1:])
                    for version in part.split(VERSION_SEPARATOR)]
    return [key]


class DeviceLists:
    """Which named lists hold tensors made on the device: by the list's key, and for an
    attribute by the attribute's, which the class's other methods use. Their elements are device
    tensors. Lists made in host memory keep elements of unknown place: another object's
    methods reach the attribute under another name (`self.context.buffers`), where the place is
    not known, and a copy seen there on the current stream would then meet the host's own
    writes seen here."""

    def __init__(self):
        self.on_device = {}

    def note(self, key, items):
        made_there = all(not item.on_host for item in items)
        for known in {key, key.unversioned()}:
            self.on_device[known] = self.on_device.get(known, True) and made_there

    def element(self, list_key, element_key):
        """The element of a named device list as a tensor, or None for other keys."""
        if all(self.on_device.get(key) for key in _each_version(list_key)) or \
                self.on_device.get(list_key.unversioned()):
            return Tensor(element_key)
        return None


class MadeLists:
    def name_made_list(self, value, key):
        """The value a name or attribute at `key` holds once `value` is bound there: for a list
        of made tensors, the name's elements, told apart by their indices as those of a list
        handed back by a call are (`buffers[i]` and `buffers[1 - i]` are two). Each binding is
        a new list (one per iteration of a loop that builds it)."""
        named = key.made(next(self.analysis.object_numbers))
        self.analysis.made_lists.note(named, value.items)
        return Symbol(named)

    def made_list_element(self, base, element):
        """An element of `base` as the analysis found it, a tensor where `base` is a list of
        made tensors and nothing else was stored there."""
        if isinstance(base, Symbol) and isinstance(element, Symbol) and \
                element.key.root == base.key.root and \
                element.key.path[:-1] == base.key.path:
            return self.analysis.made_lists.element(base.key, element.key) or element
        return element
