# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A hook after which its caller uses the tensors on the current stream (an optimizer step hook,
# a forward pre-hook) must join the work it put on another stream to the current stream before
# it returns. Megatron-LM's offloading optimizer (#3140) copied the parameters back on the
# host-to-device stream and then made the current stream wait for the device-to-host stream:
# the next forward read parameters still being copied.
# RUN: %check_streamrace %s %t
import torch


# Nothing in the program makes the current stream wait for a stream this hook leaves work on
# (a prefetch that the next module's hook waits for is the program's intent, and not reported):
# the racy and the ordered hooks use streams of their own.
class OffloadingOptimizer:
    def __init__(self, optimizer):
        self.gpu_params = {}
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        optimizer.register_step_post_hook(self.copy_back_racy)

    def copy_back_racy(self, optimizer, args, kwargs):
        self.h2d_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.h2d_stream):
            for param in optimizer.param_groups[0]["params"]:
                gpu_param = self.gpu_params[param]
                gpu_param.data.copy_(param.data, non_blocking=True)
        self.d2h_stream.record_event().wait(torch.cuda.current_stream())
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'gpu_param' is written by copy_ on stream 'self.h2d_stream' when 'copy_back_racy' returns, and nothing makes the current stream wait for it: the code that runs after a hook registered with register_step_post_hook uses it on the current stream [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-3]]:17: note: copy_ writes 'gpu_param' on stream 'self.h2d_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: make the current stream wait for stream 'self.h2d_stream' before the hook returns: `torch.cuda.current_stream().wait_stream(self.h2d_stream)`
        # CHECK-FIXES: self.d2h_stream.record_event().wait(torch.cuda.current_stream())
        # CHECK-FIXES-NEXT: torch.cuda.current_stream().wait_stream(self.h2d_stream)



class OrderedOffloadingOptimizer:
    def __init__(self, optimizer):
        self.gpu_params = {}
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        optimizer.register_step_post_hook(self.copy_back_ordered)

    def copy_back_ordered(self, optimizer, args, kwargs):
        self.h2d_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.h2d_stream):
            for param in optimizer.param_groups[0]["params"]:
                gpu_param = self.gpu_params[param]
                gpu_param.data.copy_(param.data, non_blocking=True)
        self.h2d_stream.record_event().wait(torch.cuda.current_stream())


def prefetch_pre_hook_racy(module, inputs):
    module.prefetch_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(module.prefetch_stream):
        module.weight.copy_(module.weight_shard, non_blocking=True)
        # CHECK-MESSAGES: :54:5: warning: 'module.weight' is written by copy_ on stream 'module.prefetch_stream' when 'prefetch_pre_hook_racy' returns, and nothing makes the current stream wait for it: the code that runs after a hook registered with register_forward_pre_hook uses it on the current stream [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-2]]:9: note: copy_ writes 'module.weight' on stream 'module.prefetch_stream' here
        # CHECK-MESSAGES: :54:5: note: make the current stream wait for stream 'module.prefetch_stream' before the hook returns: `torch.cuda.current_stream().wait_stream(module.prefetch_stream)`


def prefetch_pre_hook_ordered(module, inputs):
    module.upload_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(module.upload_stream):
        module.scale.copy_(module.scale_shard, non_blocking=True)
    torch.cuda.current_stream().wait_stream(module.upload_stream)


# A pre-hook that prefetches the next module's weights on a stream the next hook waits for.
def prefetch_next_pre_hook(module, inputs):
    torch.cuda.current_stream().wait_stream(module.next_stream)
    module.next_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(module.next_stream):
        module.next_module.bias.copy_(module.next_module.bias_shard, non_blocking=True)


def make_prefetching(model):
    for module in model.modules():
        module.register_forward_pre_hook(prefetch_pre_hook_racy)
        module.register_forward_pre_hook(prefetch_pre_hook_ordered)
        module.register_forward_pre_hook(prefetch_next_pre_hook)
