# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Lists the code builds of tensors it makes, bound to a name: `gathered = [torch.empty_like(x)
for _ in range(world_size)]`, `self.buffers = [a.new_zeros(n), a.new_zeros(n)]`. Their elements
are that name's elements (`gathered[rank]`, `self.buffers[i]`), as those of a list an attribute
is filled with by appends are, so that a collective writing them and a later read of one meet.
Unnamed, each would stay the expression's temporary, whose accesses no other access can meet."""
from .values import Container, Symbol, Tensor


def holds_made_tensors(value):
    """Whether a value is a list or tuple the code built of tensors the expression made, and of
    nothing else (`(x, torch.empty_like(x))` keeps naming x by its own name)."""
    return isinstance(value, Container) and value.key is None and not value.labels and \
        bool(value.items) and all(isinstance(item, Tensor) and item.key.root[0] == "temporary"
                                  for item in value.items)


class MadeLists:
    def name_made_list(self, value, key, state):
        """The value a name or attribute at `key` holds once `value` is bound there: for a list
        of made tensors, the name's elements, told apart by their indices as those of a list
        handed back by a call are (`buffers[i]` and `buffers[1 - i]` are two). Each binding is
        a new list (one per iteration of a loop that builds it)."""
        return Symbol(key.made(next(self.analysis.object_numbers)))
