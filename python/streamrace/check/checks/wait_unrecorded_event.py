# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""streamrace-wait-unrecorded-event: a stream waits on an event made in the function that is
not recorded on every path before the wait, so on those paths the wait orders nothing."""
from ..findings import Finding, Location, Side
from .wording import stream_name


class WaitUnrecordedEvent:
    name = "streamrace-wait-unrecorded-event"

    def finding(self, event, waiter, node, state, frame):
        location = Location(frame.module.path, node.lineno, node.col_offset + 1)
        message = "%s waits on event '%s', which is not recorded on every path to here; where " \
                  "it is not, the wait orders nothing" % (stream_name(waiter),
                                                         event.spelling or event.key)
        stack = (frame.function.qualified_name,) + tuple(
            call.function for call, _ in reversed(frame.chain))
        return Finding(self.name, message, location, [], [],
                       identity=((self.name, location.path, location.line),),
                       sides=(Side(stack, location.path, "wait", waiter.spelling or waiter.key),))
