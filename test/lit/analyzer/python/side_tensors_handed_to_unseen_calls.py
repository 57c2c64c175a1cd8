# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A tensor a side stream made, handed to a call the check cannot see into (a model's forward) on
# the current stream: whether or not the callee keeps it, whatever holds it last uses it on the
# current stream, and dropping it without record_stream gives its block back to the side
# stream's pool while that use may be pending (apex's imagenet prefetcher). Each racy method has
# twins that record the use, keep the tensor, or use it on the stream that made it.
# RUN: %check_streamrace %s %t
import torch


class Uploader:
    def __init__(self, model):
        self.model = model
        self.copy_stream = torch.cuda.Stream()
        self.last_batch = None

    def forward_unrecorded_racy(self, host):
        with torch.cuda.stream(self.copy_stream):
            batch = host.to("cuda", non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        return self.model(batch)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'batch' is dropped when 'forward_unrecorded_racy' returns while model reads 'batch' on the current stream may still use it; the caching allocator can give its block to new work on stream 'self.copy_stream' at once [streamrace-free-while-pending]
        # CHECK-MESSAGES: :[[@LINE-2]]:27: note: model reads 'batch' on the current stream here
        # CHECK-MESSAGES: :[[@LINE-5]]:21: note: 'batch' is made here, on stream 'self.copy_stream'
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: tell the allocator about that use before it returns: `batch.record_stream(torch.cuda.current_stream())`
        # CHECK-FIXES: {{^}}        batch.record_stream(torch.cuda.current_stream()){{$}}
        # CHECK-FIXES-NEXT: {{^}}        return self.model(batch){{$}}

    def forward_recorded(self, host):
        with torch.cuda.stream(self.copy_stream):
            batch = host.to("cuda", non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        batch.record_stream(torch.cuda.current_stream())
        return self.model(batch)

    def forward_kept(self, host):
        with torch.cuda.stream(self.copy_stream):
            batch = host.to("cuda", non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        self.last_batch = batch
        return self.model(batch)

    def forward_on_the_copy_stream(self, host):
        with torch.cuda.stream(self.copy_stream):
            batch = host.to("cuda", non_blocking=True)
            out = self.model(batch)
        torch.cuda.current_stream().wait_stream(self.copy_stream)
        return out

    def forward_made_here(self, host):
        batch = host.to("cuda", non_blocking=True)
        return self.model(batch)
