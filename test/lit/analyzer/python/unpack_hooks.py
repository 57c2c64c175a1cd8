# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The unpack hook of `saved_tensors_hooks` hands the activation back to the backward operator,
# which reads it on the current stream. The hook returns either the activation the forward kept
# on the device or one brought back from the host on a side stream: before returning the one
# brought back, the current stream must wait for that stream (torchtune's OffloadActivations
# does). Its saved entries and its stash are two attributes of one object; the name that holds
# either is neither attribute's object, nor the object itself.
# RUN: %check_streamrace %s %t
import torch
from torch.autograd.graph import saved_tensors_hooks


class OffloadWithoutWait(saved_tensors_hooks):
    def __init__(self):
        self.compute = torch.cuda.current_stream()
        self.transfer = torch.cuda.Stream()
        self.saved = {}
        self.kept_on_device = {}

        def pack(activation):
            key = len(self.saved)
            if activation.numel() > 1024:
                self.transfer.wait_stream(self.compute)
                with self.transfer:
                    host = torch.empty_like(activation, device="cpu", pin_memory=True)
                    host.copy_(activation, non_blocking=True)
                    self.saved[key] = (host, True)
                self.kept_on_device[key] = (activation, self.transfer.record_event())
            else:
                self.saved[key] = (activation, False)
            return key

        def unpack(key):
            activation, offloaded = self.saved[key]
            if offloaded:
                if key in self.kept_on_device:
                    activation = self.kept_on_device[key][0]
                else:
                    with self.transfer:
                        on_device = activation.to("cuda", non_blocking=True)
                        activation = on_device
            return activation
            # CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'on_device' is returned to the caller of 'unpack', which uses it on the current stream, while activation.to on stream 'self.transfer' may still be writing it; nothing makes the current stream wait for that stream before the return [streamrace-unsynchronized-cross-stream]
            # CHECK-MESSAGES: :[[@LINE-4]]:37: note: activation.to writes 'on_device' on stream 'self.transfer' here
            # CHECK-MESSAGES: :[[@LINE-3]]:20: note: make the current stream wait for stream 'self.transfer' before returning: `torch.cuda.current_stream().wait_stream(self.transfer)`

        super().__init__(pack, unpack)


class OffloadWithWait(saved_tensors_hooks):
    def __init__(self):
        self.compute = torch.cuda.current_stream()
        self.transfer = torch.cuda.Stream()
        self.saved = {}
        self.kept_on_device = {}

        def pack(activation):
            key = len(self.saved)
            if activation.numel() > 1024:
                self.transfer.wait_stream(self.compute)
                with self.transfer:
                    host = torch.empty_like(activation, device="cpu", pin_memory=True)
                    host.copy_(activation, non_blocking=True)
                    self.saved[key] = (host, True)
                self.kept_on_device[key] = (activation, self.transfer.record_event())
            else:
                self.saved[key] = (activation, False)
            return key

        def unpack(key):
            activation, moved = self.saved[key]
            if moved:
                if key in self.kept_on_device:
                    activation = self.kept_on_device[key][0]
                else:
                    with self.transfer:
                        on_device = activation.to("cuda", non_blocking=True)
                        activation = on_device
                    self.compute.wait_stream(self.transfer)
            return activation

        super().__init__(pack, unpack)
