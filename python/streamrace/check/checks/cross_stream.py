# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""streamrace-unsynchronized-cross-stream: a tensor used by work on one stream, then on another,
at least one of them writing, with no event or wait ordering the two."""
from ..findings import Finding
from ..state import Site
from .wording import (access_side, across_firings, appended_fix, chain_notes, describe_access,
                      device_spelling, insertion_fix, left_pending, location, pair_notes, side,
                      stream_name, stream_spelling, verb)


class UnsynchronizedCrossStream:
    name = "streamrace-unsynchronized-cross-stream"

    def finding(self, earlier, later, state, frame, walker, across_calls):
        source = walker.analysis.checks.sources.get(later.site.path)
        ongoing = {"read": "reading", "write": "writing", "read_write": "writing"}[earlier.mode]
        if earlier.api.endswith(" (allocation)"):
            message = "'%s' is %s by %s on %s, which has not waited for %s since '%s' was " \
                      "allocated there (%s): its block may still be in use by earlier work" % (
                          later.key.text(), verb(later.mode, present=False), later.api,
                          stream_name(later.stream), stream_name(earlier.stream),
                          earlier.key.text(), earlier.api[:-len(" (allocation)")])
        else:
            message = "'%s' is %s by %s on %s while %s on %s may still be %s it; no event or " \
                      "synchronization orders the two streams" % (
                          later.key.text(), verb(later.mode, present=False), later.api,
                          stream_name(later.stream), earlier.api, stream_name(earlier.stream),
                          ongoing)
        if across_calls:
            message += left_pending(earlier, "the earlier work")
        message += across_firings(earlier, later, "the earlier work", walker)
        notes = pair_notes(earlier, later)
        fixes = []
        ordered_at_return = walker.analysis.escapes.ordered_at_return(
            earlier, later.key.field_name()) \
            if across_calls else frozenset()
        fix_note = self.fix(earlier, later, state, frame, source, fixes, ordered_at_return)
        if fix_note:
            notes.append((location(later.site), fix_note))
        return Finding(self.name, message, location(later.site), notes, fixes,
                       identity=((self.name, earlier.site.path, earlier.site.line,
                                  earlier.site.column),
                                 (self.name, later.site.path, later.site.line, later.site.column,
                                  earlier.stream.key, earlier.key.field_name())),
                       sides=(access_side(earlier), access_side(later)))

    def left_to_the_caller(self, access, function, registration, state, frame, walker):
        """Work a hook leaves on a side stream that its caller's next use of the tensor, on the
        current stream, is not ordered after: reported at the hook's last statement, where the
        current stream must wait."""
        source = walker.analysis.checks.sources.get(access.site.path)
        last = function.node.body[-1]
        end = Site(access.site.path, last.lineno, last.col_offset + 1, function.qualified_name)
        message = "'%s' is %s by %s on %s when '%s' returns, and nothing makes the current " \
                  "stream wait for it: the code that runs after a hook registered with %s " \
                  "uses it on the current stream" % (
                      access.key.text(), verb(access.mode, present=False), access.api,
                      stream_name(access.stream), function.name, registration)
        notes = chain_notes(access.site) + [(location(access.site), describe_access(access) +
                                             " here")]
        fixes = []
        waited = stream_spelling(access.stream, state, frame, source)
        if waited is not None:
            text = "%s.current_stream().wait_stream(%s)" % (device_spelling(frame), waited)
            made = appended_fix(source, last, text)
            if made is not None:
                fixes.append(made)
            notes.append((location(end), "make the current stream wait for %s before the hook "
                                         "returns: `%s`" % (stream_name(access.stream), text)))
        return Finding(self.name, message, location(end), notes, fixes,
                       identity=((self.name, "handed back", access.site.path, access.site.line,
                                  access.site.column),),
                       sides=(access_side(access), side(end)))

    def returned_unordered(self, writes, key, caller, site, statement, state, frame, walker,
                           across_calls):
        """A tensor returned to code outside the package while side-stream work may still
        write it: the caller uses it on its stream, which has not waited for that work."""
        source = walker.analysis.checks.sources.get(site.path)
        earlier = writes[0]
        message = "'%s' is returned to the caller of '%s', which uses it on %s, while %s on " \
                  "%s may still be writing it; nothing makes %s wait for that stream before " \
                  "the return" % (key.text(), site.function.rsplit(".", 1)[-1],
                                  stream_name(caller), earlier.api, stream_name(earlier.stream),
                                  stream_name(caller))
        if across_calls:
            message += left_pending(earlier, "the write")
        notes = chain_notes(site)
        named = set()
        for write in writes:
            if (write.site.line, write.site.column) in named:
                continue
            named.add((write.site.line, write.site.column))
            notes += chain_notes(write.site, shared=site.chain)
            notes.append((location(write.site), describe_access(write) + " here"))
        fixes = []
        waited = stream_spelling(earlier.stream, state, frame, source)
        if waited is not None and caller.key == state.current.key:
            text = "%s.wait_stream(%s)" % (stream_spelling(caller, state, frame, source), waited)
            made = insertion_fix(source, statement, text)
            if made is not None:
                fixes.append(made)
            notes.append((location(site), "make %s wait for %s before returning: `%s`" % (
                stream_name(caller), stream_name(earlier.stream), text)))
        else:
            notes.append((location(site), "make %s wait for %s before returning (wait_stream, "
                                          "or an event recorded after the write)" % (
                                              stream_name(caller), stream_name(earlier.stream))))
        return Finding(self.name, message, location(site), notes, fixes,
                       identity=((self.name, "returned", site.path, site.line, site.column),),
                       sides=(access_side(earlier), side(site, "return", caller)))

    def fix(self, earlier, later, state, frame, source, fixes, ordered_at_return=frozenset()):
        # A collective runs after the stream current when it is called: that stream must wait.
        waiting = state.current if later.stream.kind == "collective" else later.stream
        waiter = stream_spelling(waiting, state, frame, source)
        # The stream to wait for: the earlier access's own, or one that has waited for it (the
        # stream a synchronous collective was called on, in this call or, for work another
        # call left pending, by the time that call returned).
        seen_by = [earlier.stream] + [stream for key, stream in sorted(state_streams(
            state, earlier).items()) if key != earlier.stream.key]
        if earlier.issued_on is not None and earlier.issued_on.key in ordered_at_return:
            seen_by.append(earlier.issued_on)
        candidates = [s for s in seen_by if s.kind != "collective"]
        if not candidates:
            return "wait for the collective's work handle (`work.wait()`, or pass " \
                   "async_op=False) before this"
        waited_stream = candidates[0]
        waited = None
        for candidate in candidates:
            waited = stream_spelling(candidate, state, frame, source)
            if waited is not None:
                waited_stream = candidate
                break
        statement = later.statement
        if waited is None and waited_stream.kind == "ambient" and state.contexts:
            # Inside `with stream(s):` the stream current before it has no name: the wait goes
            # before the `with`.
            outer_stream, outer_statement = state.contexts[0][:2]
            outside = stream_spelling(outer_stream, _Outside(state), frame, source)
            if outside is not None and outer_stream.key == waiting.key:
                text = "%s.wait_stream(%s.current_stream())" % (outside, device_spelling(frame))
                made = insertion_fix(source, outer_statement, text)
                if made is not None:
                    fixes.append(made)
                    return "make %s wait for the current stream before entering it: `%s`" % (
                        stream_name(waiting), text)
        if waiter is None or waited is None:
            return "make %s wait for %s between the two (wait_stream, or an event recorded " \
                   "after the first and waited on before the second)" % (
                       stream_name(waiting), stream_name(waited_stream))
        text = "%s.wait_stream(%s)" % (waiter, waited)
        made = insertion_fix(source, statement, text)
        if made is not None:
            fixes.append(made)
        return "make %s wait for %s before this: `%s`" % (
            stream_name(waiting), stream_name(waited_stream), text)


def state_streams(state, earlier):
    """The streams the state knows to have waited for the earlier access, by key."""
    ordered = state.pending.get(earlier.ident, frozenset())
    return {key: stream for key, stream in state.streams.items() if key in ordered}


class _Outside:
    """The state as seen before the outermost `with stream(...)`: its current stream is the
    ambient one."""

    def __init__(self, state):
        from ..state import AMBIENT
        self.current = AMBIENT
        self.locals = state.locals
