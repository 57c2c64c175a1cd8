# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""streamrace-host-access-before-sync: the host reads or writes a host tensor while a
non-blocking copy to or from it may still be running (`x.to("cpu", non_blocking=True)` read
before a synchronize; a pinned source refilled while its upload runs)."""
from ..findings import Finding
from .wording import (access_side, across_firings, device_spelling, insertion_fix, left_pending, location,
                      pair_notes, stream_name, stream_spelling)


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
        message += across_firings(earlier, later, "the copy")
        notes = pair_notes(earlier, later)
        fixes = []
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
