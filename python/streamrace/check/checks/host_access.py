# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""streamrace-host-access-before-sync: the host reads or writes a host tensor while a
non-blocking copy to or from it may still be running (`x.to("cpu", non_blocking=True)` read
before a synchronize; a pinned source refilled while its upload runs)."""
from ..findings import Finding
from .wording import (access_side, across_firings, chain_notes, describe_access, device_spelling,
                      insertion_fix, left_pending, location, pair_notes, side, stream_name,
                      stream_spelling)


class HostAccessBeforeSync:
    name = "streamrace-host-access-before-sync"

    def finding(self, earlier, later, state, frame, walker, across_calls):
        source = walker.analysis.checks.sources.get(later.site.path)
        message = "the host %s '%s' (%s) while %s on %s may still be %s it; nothing makes " \
                  "the host wait for that stream" % (
                      "reads" if later.mode == "read" else "writes", later.key.text(),
                      later.api, earlier.api, stream_name(earlier.stream),
                      "writing" if earlier.writes() else "reading")
        if across_calls:
            message += left_pending(earlier, "the copy")
        message += across_firings(earlier, later, "the copy", walker)
        notes = pair_notes(earlier, later)
        fixes = []
        if earlier.stream.kind == "collective":
            # A collective of host tensors: no device synchronize waits for the process group.
            notes.append((location(later.site), "wait for the collective's work handle "
                                                "(`work.wait()`) before this"))
        else:
            stream = stream_spelling(earlier.stream, state, frame, source)
            text = "%s.synchronize()" % (stream or device_spelling(frame))
            made = insertion_fix(source, later.statement, text)
            if made is not None:
                fixes.append(made)
            notes.append((location(later.site), "make the host wait for %s before this: `%s`"
                          % (stream_name(earlier.stream), text)))
        return Finding(self.name, message, location(later.site), notes, fixes,
                       identity=((self.name, earlier.site.path, earlier.site.line,
                                  earlier.site.column, later.site.line),),
                       sides=(access_side(earlier), access_side(later)))

    def handed_out(self, fill, key, target, site, statement, state, frame, walker, returning,
                   device_choice):
        """A host tensor a non-blocking copy may still be filling, handed to code outside the
        package (returned, or stored into an object the function was given: `target`) with
        nothing making the host wait for the copy before the function returns."""
        source = walker.analysis.checks.sources.get(site.path)
        function = returning.name
        if device_choice is not None:
            return self._handed_out_to_callers_device(fill, key, site, function, device_choice)
        if target is None:
            message = "the host tensor '%s' is returned to the caller of '%s' while %s on %s " \
                      "may still be writing it; nothing makes the host wait for that stream, " \
                      "and the caller reads it on the host" % (
                          key.text(), function, fill.api, stream_name(fill.stream))
        else:
            message = "the host tensor '%s' is handed on to '%s' while %s on %s may still be " \
                      "writing it; nothing makes the host wait for that stream before '%s' " \
                      "returns, and code outside reads it there on the host" % (
                          key.text(), target, fill.api, stream_name(fill.stream), function)
        notes = chain_notes(site)
        notes.append((location(fill.site), describe_access(fill) + " here"))
        notes += chain_notes(fill.site, shared=site.chain)
        fixes = []
        stream = stream_spelling(fill.stream, state, frame, source)
        text = "%s.synchronize()" % (stream or device_spelling(frame))
        made = insertion_fix(source, statement, text)
        if made is not None:
            fixes.append(made)
        notes.append((location(site), "make the host wait for %s before this: `%s` (or copy "
                                      "with non_blocking=False)" % (stream_name(fill.stream),
                                                                    text)))
        return Finding(self.name, message, location(site), notes, fixes,
                       identity=((self.name, "handed out", fill.site.path, fill.site.line,
                                  fill.site.column, site.line),),
                       sides=(access_side(fill), side(site, "return" if target is None else
                                                      "store", fill.stream)))

    def _handed_out_to_callers_device(self, fill, key, site, function, device_choice):
        """A non-blocking copy to the device the caller names, returned: when the caller names
        the host, it reads the result before the copy is done (callers_device.py)."""
        device, flag_site = device_choice
        message = "'%s' is returned to the caller of '%s' while %s on %s may still be " \
                  "writing it: the copy is non-blocking and goes to '%s', which the caller " \
                  "names; when that is the host, the caller reads the result on the host " \
                  "before the copy is done" % (key.text(), function, fill.api,
                                               stream_name(fill.stream), device)
        notes = chain_notes(site)
        notes.append((location(fill.site), describe_access(fill) + " here"))
        notes += chain_notes(fill.site, shared=site.chain)
        notes.append((location(flag_site), "non_blocking is set here, whatever '%s' is" % device))
        notes.append((location(site), "copy with non_blocking only to a device that is not the "
                                      "host (`non_blocking=torch.device(%s).type != \"cpu\"`), "
                                      "or make the host wait for %s before returning" % (
                                          device, stream_name(fill.stream))))
        return Finding(self.name, message, location(site), notes, [],
                       identity=((self.name, "handed out", fill.site.path, fill.site.line,
                                  fill.site.column, site.line),),
                       sides=(access_side(fill), side(site, "return", fill.stream)))
