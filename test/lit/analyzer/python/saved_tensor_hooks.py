# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Activation offloading: autograd calls the pack hook of `saved_tensors_hooks` with each tensor a
# forward operator saves for backward, right after that operator was enqueued on the current
# stream. A hook that copies the activation to the host on a stream of its own must make that
# stream wait for the current one first (torchtune's OffloadActivations does).
# RUN: %check_streamrace %s %t
import torch
from torch.autograd.graph import saved_tensors_hooks


class OffloadActivations(saved_tensors_hooks):
    def __init__(self):
        self.offload_stream = torch.cuda.Stream()
        self.host_copies = {}

        def pack(activation):
            with torch.cuda.stream(self.offload_stream):
                host = torch.empty_like(activation, device="cpu", pin_memory=True)
                host.copy_(activation, non_blocking=True)
                # CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'activation' is read by copy_ on stream 'self.offload_stream' while the forward operator saving it on the current stream may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
                # CHECK-MESSAGES: :[[@LINE+11]]:9: note: the forward operator saving it writes 'activation' on the current stream here
            event = self.offload_stream.record_event()
            key = len(self.host_copies)
            self.host_copies[key] = (host, activation, event)
            return key

        def unpack(key):
            host, activation, event = self.host_copies.pop(key)
            torch.cuda.current_stream().wait_event(event)
            return activation

        super().__init__(pack, unpack)


def offloaded_after_the_forward(model, batch):
    offload_stream = torch.cuda.Stream()
    copies = []

    def pack(activation):
        offload_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(offload_stream):
            host = activation.to("cpu", non_blocking=True)
        copies.append((host, activation))
        return len(copies) - 1

    def unpack(index):
        torch.cuda.current_stream().wait_stream(offload_stream)
        return copies[index][1]

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        return model(batch)
