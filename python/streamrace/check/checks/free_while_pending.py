# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""streamrace-free-while-pending: a tensor's storage goes back to the caching allocator while
work on another stream may still use it, so the allocator can hand the block to new work on
the stream it was allocated on at once.

Three forms: the storage is released while such work is pending (`t.data = torch.empty(0)`,
`t.untyped_storage().resize_(0)`, `t.resize_(0)`) with no `record_stream` for that stream; or a
tensor allocated on a side stream is handed to the current stream (returned after the current
stream waited for the side stream) without `t.record_stream(current stream)`, so that when the
receiver drops it the block returns to the side stream's pool while the receiver's work may
still read it (PyTorch's documentation of record_stream); or a tensor made on the device is
kept in an object whose class's record_stream, which its holders call to hand it to another
stream, does not record that tensor (`record_stream_fields.py`).
"""
import ast
import itertools

from ..findings import Finding, Location
from ..state import Site, bytes_meet, may_be_same_stream, recorded_by_hand
from ..values import Container, Key, Tensor
from .wording import (access_side, appended_fix, chain_notes, describe_access, insertion_fix,
                      location, side, stream_name, stream_spelling)


class FreeWhilePending:
    name = "streamrace-free-while-pending"

    def released(self, tensor, node, state, frame, walker, scope_end=False, one_object=False,
                 storage_only=False):
        """`scope_end`: the tensor is dropped as its function returns at `node` (a return
        statement) or after it (the last statement). `one_object`: only the uses of that very
        object count (an attribute names a new object at each store; a use the analysis
        names by the attribute alone may be of another one). `storage_only`: the tensor lives
        on without its storage (`t.data = ...`, `resize_(0)`), and so do the tensors its
        attributes hold."""
        key = getattr(tensor, "key", None)
        if key is None or isinstance(tensor, Tensor) and tensor.on_host:
            # PyTorch's pinned-memory allocator records an event for each non-blocking copy and
            # reuses the block once it has passed; a copy from or to pageable memory is done
            # with it when the call returns.
            return None
        if scope_end and recorded_by_hand(key, state):
            return None
        allocation = tensor.alloc_stream if isinstance(tensor, Tensor) and \
            tensor.alloc_stream is not None else state.current
        accesses = walker.accesses
        for ident, ordered in state.pending.items():
            access = accesses[ident]
            # Most pending work is the allocating stream's own: that test comes first.
            if access.stream.key == allocation.key or allocation.key in ordered:
                continue
            if access.key.root[0] == "field" or not bytes_meet(access.key, key):
                continue
            if storage_only and access.key.held_by_an_attribute_of(key):
                continue
            if one_object and (access.key.root != key.root or
                               access.key.path[:len(key.path)] != key.path):
                continue
            if not storage_only and _kept_by_the_process_group(access, allocation, key, state):
                continue
            if scope_end and access.stream.kind == "opaque":
                continue   # a stream the caller gives may be the one that made the tensor
            if scope_end and _raced_after(access, allocation, state, accesses):
                continue
            if _recorded_after(access, key, ordered, state):
                continue
            site = walker.site(node, frame)
            source = walker.analysis.checks.sources.get(site.path)
            if scope_end:
                released = "'%s' is dropped when '%s' returns" % (
                    key.text(), site.function.rsplit(".", 1)[-1])
            elif storage_only:
                released = "the storage of '%s' is released" % key.text()
            else:   # its last name rebound or deleted
                released = "'%s' is dropped here" % key.text()
            message = "%s while %s may still use it; the caching allocator can give its block " \
                      "to new work on %s at once" % (released, describe_access(access),
                                                      stream_name(allocation))
            notes = chain_notes(site)
            notes.append((location(access.site), describe_access(access) + " here"))
            notes += chain_notes(access.site, shared=site.chain)
            made = _making(key, walker.accesses)
            if made is not None:
                # Where the block the allocator may hand out again was taken.
                notes.append((location(made.site), "'%s' is made here, on %s" % (
                    key.text(), stream_name(allocation))))
            elif key in walker.analysis.blocks_taken:
                taken = walker.analysis.blocks_taken[key]
                notes += chain_notes(taken, shared=site.chain + access.site.chain)
                notes.append((location(taken), "'%s' takes its block here, on %s: the next "
                              "allocation there may take the block released" % (
                                  key.text(), stream_name(allocation))))
            fix_notes, fixes = self._record_fix(key, access, ordered, node, site, scope_end,
                                                storage_only, state, frame, source, walker)
            notes += fix_notes
            return Finding(self.name, message, location(site), notes, fixes,
                           identity=((self.name, site.path, site.line, access.site.line),),
                           sides=(side(site, "release", allocation), access_side(access)))
        return None

    def _record_fix(self, key, access, ordered, node, site, scope_end, storage_only, state,
                    frame, source, walker):
        """The record_stream that makes the release safe, as notes and fixes. A tensor a
        collective was given and that is dropped is recorded on the stream that called the
        collective (`_kept_by_the_process_group`), beside the collective when that is in this
        function: there the name is bound on every path, in a loop that rebinds it too. A
        storage released after a synchronous collective is recorded on the stream that called
        it: that stream waited for the collective's work (`_recorded_after`)."""
        collective_drop = access.issued_on is not None and not storage_only
        waited_by_caller = access.issued_on is not None and access.issued_on.key in ordered
        # An attribute given another value is spelled as the statement spells it (in a loop
        # over the elements its key joins, `param.grad`).
        spelled = walker.spelling(node) if isinstance(node, ast.Attribute) and \
            key.path[-1:] == (node.attr,) and not collective_drop else None
        fix_text = self._record_stream_text(
            key, access.issued_on if collective_drop or waited_by_caller else access.stream,
            state, frame, source, spelled)
        if fix_text is None:
            if collective_drop:
                return [(location(access.site), "tell the allocator about this use: record the "
                         "tensor on the stream current here (`record_stream`)")], []
            if access.stream.kind != "collective":
                return [], []
            if waited_by_caller:
                return [(location(site), "record the tensor on %s, which waited for the "
                         "collective, before releasing the storage (`record_stream`)" %
                         stream_name(access.issued_on))], []
            return [(location(site), "wait for the collective's work handle (`work.wait()`) "
                     "before releasing the storage")], []
        if collective_drop and access.statement and access.site.path == site.path and \
                access.site.function == site.function:
            made = insertion_fix(source, access.statement, fix_text)
            note = (location(access.site), "tell the allocator about this use: `%s`" % fix_text)
        elif not scope_end and site.chain and not _named_in(key, frame):
            # Released by a helper given the tensor (`free_storage(p.shard)`): the record goes
            # where the tensor has the name the fix spells, before the call leading there.
            if not _named_in(key, walker.root_frame):
                return [(location(site), "tell the allocator about that use before releasing "
                         "the storage (`record_stream`)")], []
            call = site.chain[0]
            made = insertion_fix(walker.analysis.checks.sources.get(call.path),
                                 (call.line, call.column), fix_text)
            note = (location(call), "tell the allocator about that use before this call: `%s`"
                    % fix_text)
        else:
            if scope_end and not isinstance(node, ast.Return):
                made = appended_fix(source, node, fix_text)
            else:
                made = insertion_fix(source, getattr(node, "_statement", None) or
                                     (node.lineno, node.col_offset), fix_text)
            note = (location(site), "tell the allocator about that use before %s: `%s`" % (
                "it returns" if scope_end else "this", fix_text))
        return [note], [made] if made is not None else []

    def handed_over(self, value, node, state, frame, walker):
        for item in handed_without_record(value, state):
            allocation = item.alloc_stream
            receiver = state.current
            site = walker.site(node, frame)
            source = walker.analysis.checks.sources.get(site.path)
            message = "'%s' was allocated on %s and is handed to %s without record_stream; " \
                      "once it is dropped, the caching allocator can give its block to new " \
                      "work on %s while %s may still use it" % (
                          item.key.text(), stream_name(allocation), stream_name(receiver),
                          stream_name(allocation), stream_name(receiver))
            notes = chain_notes(site)
            fixes = []
            # Of a list or dict returned, the element is recorded where it is made (its name
            # here may be the last one's), not the container: a note without a fix.
            whole = item is value
            fix_text = self._record_stream_text(item.key, receiver, state, frame, source,
                                                spelled=walker.spelling(node) if whole else None)
            if fix_text is not None:
                made = insertion_fix(source, getattr(node, "_statement", None), fix_text) \
                    if whole else None
                if made is not None:
                    fixes.append(made)
                notes.append((location(site), "record the use on %s before handing it over: "
                              "`%s`" % (stream_name(receiver), fix_text)))
            return Finding(self.name, message, location(site), notes, fixes,
                           identity=((self.name, site.path, site.line, item.key.text()),),
                           sides=(side(site, "hand-over", receiver),))
        return None

    def block_retaken(self, made, use, handed, state, frame, walker):
        """A tensor made on a stream that handed another of its tensors (`handed`: key, the two
        streams' keys, the hand-over's site) to `use`'s stream without record_stream, once
        nothing holds that one: the allocator may give the new tensor its block while `use`
        is still pending."""
        key, _, _, site = handed
        ongoing = "reading" if use.mode == "read" else "writing"
        message = "'%s' is made on %s: the caching allocator may give it the block of '%s', " \
                  "handed to %s without record_stream and no longer held, while %s on %s may " \
                  "still be %s it" % (made.key.text(), stream_name(made.stream), key.text(),
                                      stream_name(use.stream), use.api, stream_name(use.stream),
                                      ongoing)
        notes = chain_notes(made.site)
        notes.append((location(use.site), describe_access(use) + " here"))
        notes += chain_notes(use.site, shared=made.site.chain)
        notes += chain_notes(site, shared=made.site.chain + use.site.chain)
        notes.append((location(site), "'%s' is handed to %s here: record that use "
                      "(`record_stream`) before handing it over" % (key.text(),
                                                                    stream_name(use.stream))))
        return Finding(self.name, message, location(made.site), notes, [],
                       identity=((self.name, "retaken", made.site.path, made.site.line,
                                  use.site.line),),
                       sides=(access_side(made), access_side(use)))

    def _record_stream_text(self, key, stream, state, frame, source, spelled=None):
        stream_text = stream_spelling(stream, state, frame, source)
        if stream_text is None:
            return None
        tensor_text = spelled if spelled and "," not in spelled and "(" not in spelled \
            else key.text()
        if tensor_text.startswith("*") or "[" in tensor_text:
            return None
        return "%s.record_stream(%s)" % (tensor_text, stream_text)

    def unrecorded_field(self, store, sources):
        """A tensor kept in a field of an object (or in a closure kept there) that the class's
        record_stream does not record."""
        class_name = store.contract.class_info.name
        method = store.contract.method
        made = store.made
        if made.read_node is None:
            kept = "a tensor made on the device"
        else:
            kept = "a closure over '%s', a tensor made on the device," % made.name
        message = "'%s' keeps %s that %s.record_stream does not record; once the object, " \
                  "handed to another stream by record_stream, is dropped, the caching " \
                  "allocator can give the tensor's block to new work on the stream that made " \
                  "it while the other stream may still use it" % (store.holder, kept, class_name)
        notes = [(_node_location(made.path, made.node), "'%s' is made here" % made.name)]
        if made.read_node is not None:
            notes.append((_node_location(made.read_path, made.read_node),
                          "the closure reads '%s' here" % made.name))
        notes.append((_node_location(method.module.path, method.node),
                       "%s.record_stream records the object's tensors here" % class_name))
        fixes = []
        this, stream = method.parameters()[0]
        if made.read_node is None:
            fix_text = "%s.%s.record_stream(%s)" % (this, store.field, stream)
            last = method.node.body[-1]
            inserted = fix_text
            if store.may_be_none:
                inserted = "if %s.%s is not None:\n%s    %s" % (this, store.field,
                                                              " " * last.col_offset, fix_text)
            made_fix = appended_fix(sources.get(method.module.path), last, inserted)
            if made_fix is not None:
                fixes.append(made_fix)
            notes.append((_node_location(method.module.path, method.node.body[-1]),
                          "record it there: `%s`" % fix_text))
        else:
            notes.append((_node_location(method.module.path, method.node.body[-1]),
                          "keep '%s' in a field of %s and record it there: "
                          "`%s.%s.record_stream(%s)`" % (made.name, class_name, this, made.name,
                                                         stream)))
        site = Site(store.path, store.node.lineno, store.node.col_offset + 1,
                    store.function.qualified_name)
        return Finding(self.name, message, location(site), notes, fixes,
                       identity=((self.name, method.module.path, class_name, store.field),),
                       sides=(side(site, "record_stream"),))


def _named_in(key, frame):
    """Whether the function of `frame` names the tensor of `key` as the key spells it: its own
    local or parameter, an attribute of its `self`, or a module's global."""
    kind = key.root[0]
    if kind in ("local", "param"):
        return key.root[1] == frame.ident
    if kind == "self":
        return frame.self_key is not None and frame.self_key.root == key.root
    return kind == "global"


def _making(key, accesses):
    """The access that made the tensor `key` names, when the analysis saw it made."""
    return next((access for access in accesses if access.creation and access.key == key), None)


def _kept_by_the_process_group(access, allocation, key, state):
    """Whether a collective's tensor, its last name dropped (at a return, a rebinding, a `del`),
    is kept by the process group until it is safe to reuse: PyTorch's process group holds the
    tensors of a collective until its work rejoins the stream that called it (Access.issued_on).
    That covers a tensor allocated on that stream, or recorded on it. Freeing the storage itself
    is never covered."""
    if access.issued_on is None:
        return False
    return may_be_same_stream(access.issued_on, allocation) or \
        (key, access.issued_on.key) in state.recorded or \
        (access.key, access.issued_on.key) in state.recorded


def _recorded_after(access, key, ordered, state):
    """Whether `record_stream` put the access's stream on the tensor, or a stream that waited
    for the access (the stream a synchronous collective was called on, which its work rejoined
    before the call returned): the allocator then reuses the block only once that stream's
    work, the wait included, is done. The wait is judged at the release: a record made before
    it counts too, code writing the usual order (wait, record, release) either way."""
    return any((recorded_key, stream_key) in state.recorded
               for recorded_key in (access.key, key)
               for stream_key in itertools.chain((access.stream.key,), ordered))


def _raced_after(access, allocation, state, accesses):
    """Whether the stream that made the tensor touches it after `access`, unordered with it and
    one of the two writing: the cross-stream check reports that pair, and the wait that orders
    it orders the drop as well."""
    for ident in state.pending:
        later = accesses[ident]
        if ident > access.ident and later.stream.key == allocation.key and \
                later.key.overlaps(access.key) and (later.writes() or access.writes()):
            return True
    return False


def _node_location(path, node):
    return Location(path, node.lineno, node.col_offset + 1)


def hand_over(value, site, state):
    """Remembers the tensors of `value` that the stream that made them hands to the current
    stream without record_stream (returned, or read there after a wait), once each: when the
    receiver no longer holds one, the next tensor made on the maker may take its block."""
    items = list(handed_without_record(value, state))
    if not items:
        return   # most reads on the current stream: every access calls this
    known = {handed[0] for handed in state.handed}
    new = {(key, item.alloc_stream.key, state.current.key, site)
           for item in items for key in [_whole(item.key)]
           if key not in known and not recorded_by_hand(key, state)}
    if new:
        state.handed = state.handed | new


def hand_over_order(handed):
    """The hand-overs in the order of their sites, then of their tensors' names: a set of them
    iterates in an order the run's string hashes choose, and a finding names the first met."""
    key, _, _, site = handed
    return site.path, site.line, site.column, key.text()


def _whole(key):
    """The tensor a slice of it is of (`bias[:n]`): its block is the whole tensor's, held as
    long as the whole tensor is."""
    path = key.path
    while path and path[-1].startswith("["):
        path = path[:-1]
    return Key(key.root, path, key.aliases) if path != key.path else key


def handed_without_record(value, state):
    """The tensors of a value returned, or read on the current stream, that the stream that
    made them hands to the current stream (the current stream waited for it) with no
    record_stream for the current stream."""
    items = value.items if isinstance(value, Container) and value.key is None else (value,)
    for item in items:
        if not isinstance(item, Tensor) or item.alloc_stream is None or item.on_host:
            continue   # a host tensor's block is not the device pool's
        allocation = item.alloc_stream
        receiver = state.current
        if allocation.kind not in ("created", "named") or receiver.key == allocation.key:
            continue
        if (receiver.key, allocation.key) not in state.waited:
            continue
        if recorded_by_hand(item.key, state):
            continue
        yield item
