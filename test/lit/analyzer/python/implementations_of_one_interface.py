# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A method called on an object whose class the analysis does not know, implemented by several
# classes deriving from one class of the package: the object is one of them, so each
# implementation is followed (apex's halo exchangers: `exchanger.left_right_halo_exchange(...)`
# on a parameter, with an all-gather, a send/receive and a no-communication implementation).
# Here the all-gather one writes the halo rows on the stream the exchange runs on.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


class HaloExchanger:
    def __init__(self, group):
        self.group = group
        self.stream1 = torch.cuda.Stream()
        self.stream2 = torch.cuda.Stream()


class HaloExchangerNoComm(HaloExchanger):
    def exchange(self, top_out, bottom_out, top_in, bottom_in):
        top_in.copy_(bottom_out)
        bottom_in.copy_(top_out)


class HaloExchangerAllGather(HaloExchanger):
    def exchange(self, top_out, bottom_out, top_in, bottom_in):
        sent = torch.cat([top_out, bottom_out])
        gathered = torch.empty(2 * sent.numel(), device=sent.device)
        dist.all_gather_into_tensor(gathered, sent, group=self.group)
        top_in.copy_(gathered[:top_in.numel()])
        bottom_in.copy_(gathered[top_in.numel():top_in.numel() + bottom_in.numel()])


def halo_correction_racy(exchanger, out, rows):
    padded = torch.empty(rows + 2, out.shape[1], device="cuda")
    corrected = torch.empty_like(out[:1])
    exchanger.stream1.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(exchanger.stream1):
        top_halo = padded[:1]
        bottom_halo = padded[rows + 1:rows + 2]
        exchanger.exchange(out[:1], out[rows - 1:], top_halo, bottom_halo)
    exchanger.stream2.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(exchanger.stream2):
        corrected.copy_(bottom_halo)
        # CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'padded[*]' is read by copy_ on stream 'exchanger.stream2' while copy_ on stream 'exchanger.stream1' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-16]]:9: note: copy_ writes 'padded' on stream 'exchanger.stream1' here
        # CHECK-MESSAGES: :[[@LINE-6]]:9: note: 'exchange' is called here
    torch.cuda.current_stream().wait_stream(exchanger.stream2)
    torch.cuda.current_stream().wait_stream(exchanger.stream1)
    return corrected


def halo_correction_after_the_exchange(exchanger, out, rows):
    padded = torch.empty(rows + 2, out.shape[1], device="cuda")
    corrected = torch.empty_like(out[:1])
    exchanger.stream1.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(exchanger.stream1):
        top_halo = padded[:1]
        bottom_halo = padded[rows + 1:rows + 2]
        exchanger.exchange(out[:1], out[rows - 1:], top_halo, bottom_halo)
    exchanger.stream2.wait_stream(torch.cuda.current_stream())
    exchanger.stream2.wait_stream(exchanger.stream1)
    with torch.cuda.stream(exchanger.stream2):
        corrected.copy_(bottom_halo)
    torch.cuda.current_stream().wait_stream(exchanger.stream2)
    return corrected
