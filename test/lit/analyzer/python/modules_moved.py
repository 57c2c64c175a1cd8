# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# `model.cuda()` called for its effect moves a module's parameters in place, on the current
# stream (Megatron-LM #2652): a wrapper built under a new side stream, given the module, reads
# them there before the copies land unless the side stream waits first. A module moved so holds
# device memory: a call the analysis cannot see into, given it, reads it (a call given a module
# nothing moved reads nothing known).
# RUN: %check_streamrace %s %t
import torch


def wrap_on_a_setup_stream_racy(models, Wrapper):
    for model in models:
        model.cuda(torch.cuda.current_device())
    with torch.cuda.stream(torch.cuda.Stream()):
        wrapped = [Wrapper(module=model) for model in models]
        # CHECK-MESSAGES: :[[@LINE-1]]:35: warning: 'models[*]' is read by Wrapper on stream 'torch.cuda.Stream()' while cuda on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: cuda writes 'models[*]' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-3]]:35: note: make stream 'torch.cuda.Stream()' wait for the current stream between the two (wait_stream, or an event recorded after the first and waited on before the second)
    return wrapped


def wrap_on_a_setup_stream_after_waiting(models, Wrapper):
    for model in models:
        model.cuda(torch.cuda.current_device())
    setup_stream = torch.cuda.Stream()
    setup_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(setup_stream):
        wrapped = [Wrapper(module=model) for model in models]
    torch.cuda.current_stream().wait_stream(setup_stream)
    return wrapped


def wrap_on_the_current_stream(models, Wrapper):
    for model in models:
        model.cuda(torch.cuda.current_device())
    return [Wrapper(module=model) for model in models]

