# A custom kernel (custom_scale.cu, loaded with ctypes) scales a tensor on a side stream; an
# aten operator then sums it on the current stream without waiting (--fixed: with
# wait_stream). A second tensor of the same allocator segment is summed too, untouched by the
# kernel. Argument: the kernel library.
import ctypes
import sys

import torch

kernels = ctypes.PyDLL(sys.argv[1])  # PyDLL: the launch keeps the GIL, as a C++ extension's does
kernels.launch_scale.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_float, ctypes.c_void_p]
fixed = "--fixed" in sys.argv

weights = torch.ones(4096, device="cuda")
bias = torch.ones(1024, device="cuda")
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    status = kernels.launch_scale(weights.data_ptr(), weights.numel(), 2.0, side.cuda_stream)
if fixed:
    torch.cuda.current_stream().wait_stream(side)
total = weights.sum()
offset = bias.sum()
torch.cuda.synchronize()
print("launch status", status)
