# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The orderings of the torch API: events recorded on one stream and waited on by another, the
# one-line `record_event().wait()`, and host waits (Stream/Event.synchronize,
# torch.cuda.synchronize). Each racy function has an ordered twin.
# RUN: %check_streamrace %s %t
from multiprocessing import get_context

import torch


def event_on_the_wrong_stream(x, out):
    side = torch.cuda.Stream()
    other = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out.copy_(x)
    done = other.record_event()
    torch.cuda.current_stream().wait_event(done)
    return out.sum()
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'out' is read by sum on the current stream while copy_ on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-5]]:9: note: copy_ writes 'out' on stream 'side' here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: make the current stream wait for stream 'side' before this: `torch.cuda.current_stream().wait_stream(side)`


def event_recorded_after_the_copy(x, out):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out.copy_(x)
    done = torch.cuda.Event()
    done.record(side)
    done.wait()
    return out.sum()


def one_line_record_and_wait(x, out):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out.copy_(x)
    side.record_event().wait(torch.cuda.current_stream())
    return out.sum()


def event_recorded_before_the_copy(x, out):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    done = torch.cuda.Event()
    done.record(side)
    with torch.cuda.stream(side):
        out.copy_(x)
    torch.cuda.current_stream().wait_event(done)
    return out.sum()
    # CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'out' is read by sum on the current stream while copy_ on stream 'side' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
    # CHECK-MESSAGES: :[[@LINE-4]]:9: note: copy_ writes 'out' on stream 'side' here
    # CHECK-MESSAGES: :[[@LINE-3]]:12: note: make the current stream wait for stream 'side' before this: `torch.cuda.current_stream().wait_stream(side)`


def host_waits_for_the_side_stream(x, out):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out.copy_(x)
    side.synchronize()
    return out.sum()


def host_waits_for_the_event(x, out):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out.copy_(x)
        done = torch.cuda.Event()
        done.record()
    done.synchronize()
    return out.sum()


def host_waits_for_the_device(x, out):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out.copy_(x)
    torch.cuda.synchronize()
    return out.sum()


def wait_on_an_event_recorded_on_one_branch(x, out, ready):
    side = torch.cuda.Stream()
    done = torch.cuda.Event()
    if ready:
        done.record()
    side.wait_event(done)
    # CHECK-MESSAGES: :[[@LINE-1]]:5: warning: stream 'side' waits on event 'done', which is not recorded on every path to here; where it is not, the wait orders nothing [streamrace-wait-unrecorded-event]
    with torch.cuda.stream(side):
        out.copy_(x)
    torch.cuda.current_stream().wait_stream(side)


def wait_on_an_event_recorded_on_every_branch(x, out, ready):
    side = torch.cuda.Stream()
    done = torch.cuda.Event()
    if ready:
        done.record()
    else:
        done.record(torch.cuda.current_stream())
    side.wait_event(done)
    with torch.cuda.stream(side):
        out.copy_(x)
    torch.cuda.current_stream().wait_stream(side)


# An accelerator kept in an attribute makes device events; a multiprocessing context's event is
# the host's, whose wait orders no stream and needs no record on the device.
class Worker:
    def __init__(self, accelerator):
        self.accelerator = accelerator

    def start_helper(self, target, shared):
        context = get_context("spawn")
        ready = context.Event()
        process = context.Process(target=target, args=(ready,))
        process.start()
        if not ready.wait(timeout=600):
            process.terminate()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            shared.mul_(2)
        torch.cuda.current_stream().wait_stream(side)

    def wait_for_nothing(self, x, out):
        side = torch.cuda.Stream()
        done = self.accelerator.Event()
        side.wait_event(done)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: stream 'side' waits on event 'done', which is not recorded on every path to here; where it is not, the wait orders nothing [streamrace-wait-unrecorded-event]
        with torch.cuda.stream(side):
            out.copy_(x)
        torch.cuda.current_stream().wait_stream(side)


# `record_event` of an object that is no stream (a request's own event log) records nothing.
def log_preemption(request, kind, timestamp, x, out):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    request.record_event(kind, timestamp)
    with torch.cuda.stream(side):
        out.copy_(x)
    torch.cuda.current_stream().wait_stream(side)


# Events kept on an object the analysis has not seen made are known by their names, as streams
# kept in attributes are: the fork event recorded on the current stream and waited for under
# the side stream orders the side stream's work after the clone, and the join event brings it
# back. Unrecorded, the fork event orders nothing.
def fork_to_the_side(state, hidden):
    side_input = hidden.clone()
    state.fork_event.record(torch.cuda.current_stream())
    with torch.cuda.stream(state.stream):
        state.fork_event.wait()
        side_input.mul_(2)
        state.join_event.record()
    torch.cuda.current_stream().wait_event(state.join_event)
    return side_input


def fork_to_the_side_unrecorded(state, hidden):
    side_input = hidden.clone()
    with torch.cuda.stream(state.stream):
        state.fork_event.wait()
        side_input.mul_(2)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'side_input' is read and written by mul_ on stream 'state.stream' while hidden.clone on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:18: note: hidden.clone writes 'side_input' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: make stream 'state.stream' wait for the current stream before entering it: `state.stream.wait_stream(torch.cuda.current_stream())`
        state.join_event.record()
    torch.cuda.current_stream().wait_event(state.join_event)
    return side_input
