# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What each PyTorch API does to streams, events and tensor bytes: the one model that the static
Python check (streamrace.check) and the run-time side (streamrace.torch) both read.

It follows docs/semantics.md as PyTorch documents its APIs: work is enqueued on the current
stream; `wait_stream`/`wait_event`/`Event.wait` order one stream after another; `synchronize`
makes the host wait; a blocking copy to the host (`item`, `tolist`, `cpu`) makes the host wait for
the current stream; a `non_blocking=True` copy does not. torch.distributed's NCCL process group
runs a collective on its own stream after the current stream's earlier work (ProcessGroupNCCL's
stream synchronization); without `async_op` the current stream waits for it at once, with it only
at `work.wait()`.

Names are attribute names as they are called: `torch.cuda.current_stream()`,
`torch.accelerator.current_stream()`, `get_accelerator().current_stream()` (DeepSpeed) and a
device handle's `current_stream()` (FSDP's `_device_handle`, `torch.get_device_module(d)`) are the
same call on different device modules.
"""
from . import tensor_api as _tensor_api


# Objects whose stream/event/synchronize calls are the device's: `torch.cuda`, the 2.x
# `torch.accelerator` and `torch.xpu`, DeepSpeed's `get_accelerator()`, FSDP's device handle.
DEVICE_MODULES = frozenset({
    "torch.cuda", "torch.accelerator", "torch.xpu", "torch.mtia", "torch.npu", "torch.mps",
    "get_accelerator()", "deepspeed.accelerator.get_accelerator()",
    "torch.get_device_module()", "_device_handle", "device_handle",
})

# Device-module calls (`torch.cuda.NAME(...)`) and what they are.
DEVICE_CALLS = {
    "Stream": "new_stream",
    "ExternalStream": "new_stream",
    "Event": "new_event",
    "current_stream": "current_stream",
    "default_stream": "default_stream",
    "stream": "stream_context",          # with torch.cuda.stream(s):
    "StreamContext": "stream_context",
    "set_stream": "set_stream",
    "synchronize": "device_synchronize",
}

# torch.Stream / torch.Event (2.x, any device): constructors; a torch.Stream is itself a context
# manager that makes it current (`with s:`).
TORCH_CONSTRUCTORS = {"Stream": "new_stream", "Event": "new_event"}

# Stream methods.
STREAM_METHODS = {
    "wait_stream": "wait_stream",        # s.wait_stream(other): s after other's earlier work
    "wait_event": "wait_event",          # s.wait_event(e): s after e's record
    "record_event": "record_event",      # s.record_event(e=None) -> e, recorded on s
    "synchronize": "stream_synchronize", # the host waits for s
    "query": "stream_query",             # orders only when polled to completion
}

# Event methods.
EVENT_METHODS = {
    "record": "event_record",            # e.record(s=None): on s, or the current stream
    "wait": "event_wait",                # e.wait(s=None): s, or the current stream, waits
    "synchronize": "event_synchronize",  # the host waits
    "query": "event_query",
}

# Methods that ask whether a stream's or an event's work is done: the way where one answered yes
# has seen that work done, as a synchronize would have waited for it.
POLLING_METHODS = frozenset(name for methods in (STREAM_METHODS, EVENT_METHODS)
                            for name, kind in methods.items() if kind.endswith("_query"))

# A collective's Work handle: `wait()` makes the current stream wait for the collective.
WORK_METHODS = frozenset({"wait", "is_completed", "get_future", "synchronize", "result"})

# Calls that count, by the least value they return: a rank is one of the group's (from 0; a
# process outside the group gets -1 but runs none of its collectives), a
# world size counts them (at least 1), a length counts elements. A rank's index into a list is
# then known to lie past an earlier span ending where the rank's starts.
COUNTING_CALLS = {
    "get_rank": 0,
    "get_local_rank": 0,
    "get_world_size": 1,
    "get_local_size": 1,
    "len": 0,
}

# Calls whose answer is known for eager CUDA code and decides whether an ordering runs: DeepSpeed's
# accelerator predicates (`if not get_accelerator().resolves_data_dependency(): synchronize()`
# runs on CUDA), and the compile-mode tests (the check reads the eager program).
KNOWN_RESULTS = {
    "resolves_data_dependency": False,
    "handles_memory_backpressure": False,
    "is_synchronized_device": False,
    "use_host_timers": False,
    "is_available": True,
    "is_torchdynamo_compiling": False,
    "is_compiling": False,
    "is_dynamo_compiling": False,
    "is_tracing": False,
    "is_scripting": False,
}

# Tensor methods that read or change metadata only: no device work, no host read of the data.
# The run-time side skips their aten operators too (a metadata query is not an access).
METADATA_METHODS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "element_size", "stride", "storage_offset",
    "is_contiguous", "is_pinned", "is_shared", "data_ptr", "get_device", "is_floating_point",
    "is_complex", "is_signed", "untyped_storage", "storage", "has_names", "is_set_to",
    "requires_grad_", "retain_grad", "register_hook", "register_post_accumulate_grad_hook",
    "__len__", "type", "is_same_size", "nbytes", "itemsize", "dim_order",
})
METADATA_ATTRIBUTES = frozenset({
    "shape", "dtype", "device", "is_cuda", "is_cpu", "requires_grad", "layout", "ndim", "names",
    "is_leaf", "grad_fn", "is_sparse", "is_quantized", "is_meta", "itemsize", "nbytes",
    "ds_numel", "ds_shape", "ds_id", "ds_status",
})
# aten operators of the metadata methods that are operators (the dispatcher sees them).
METADATA_OPERATORS = frozenset({
    "aten::is_pinned", "aten::size", "aten::stride", "aten::numel", "aten::dim",
    "aten::is_contiguous", "aten::storage_offset", "aten::is_same_size", "aten::is_set_to",
    "aten::sym_size", "aten::sym_stride", "aten::sym_numel", "aten::sym_storage_offset",
})

# Methods that return a view of the receiver's bytes (no device work).
VIEW_METHODS = frozenset({
    "view", "view_as", "narrow", "reshape", "flatten", "unflatten", "split", "chunk", "unbind",
    "tensor_split", "t", "T", "transpose", "permute", "squeeze", "unsqueeze", "expand",
    "expand_as", "as_strided", "select", "detach", "movedim", "swapaxes", "unfold", "diagonal",
    "real", "imag", "view_as_real", "contiguous",
})
VIEW_ATTRIBUTES = frozenset({"data", "T", "mT", "H"})
# Views of part of the bytes.
PARTIAL_VIEWS = frozenset({"narrow", "split", "chunk", "unbind", "tensor_split", "select",
                           "as_strided", "diagonal", "unfold"})
# torch functions that return views of their first argument.
VIEW_FUNCTIONS = frozenset({
    "narrow", "split", "chunk", "unbind", "tensor_split", "reshape", "flatten", "squeeze",
    "unsqueeze", "transpose", "permute", "select", "detach", "as_strided", "movedim",
})

# Copies to the host that block it until the current stream has run them.
HOST_BLOCKING_METHODS = frozenset({"item", "tolist", "cpu", "numpy", "__bool__", "__float__",
                                   "__int__"})
# Operators whose result's size depends on their input's values: on a device tensor the host
# waits for the current stream to learn it, as for `.item()` (the operators PyTorch's
# `torch.cuda.set_sync_debug_mode` reports).
DATA_DEPENDENT_SIZES = frozenset({"nonzero", "argwhere", "masked_select", "unique",
                                  "unique_consecutive"})
# Functions that read their tensor arguments on the host (a blocking copy of device tensors).
HOST_READING_FUNCTIONS = frozenset({"print", "float", "int", "bool", "str", "repr", "format"})

# Tensor methods that move a tensor between devices: `non_blocking=True` makes the copy
# asynchronous (host memory must be pinned for it to be).
COPY_METHODS = frozenset({"to", "cuda", "cpu", "copy_", "pin_memory"})

# The dtypes by the names `torch` gives them: `x.to(torch.int32)`, or `x.to(y.dtype)`,
# converts on the tensor's own device (a host tensor on the host, done when it returns) and
# moves nothing.
DTYPE_NAMES = frozenset({
    "float32", "float", "float64", "double", "float16", "half", "bfloat16", "complex64",
    "cfloat", "complex128", "cdouble", "uint8", "uint16", "uint32", "uint64", "int8", "int16",
    "short", "int32", "int", "int64", "long", "bool", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz",
})
# What `to` may be given beside a dtype without naming a device.
DTYPE_CONVERSION_KEYWORDS = frozenset({"dtype", "non_blocking", "copy", "memory_format"})

# The names a tensor answers to (tensor_api.py): a method of another name is no tensor operation.
TENSOR_ATTRIBUTES = _tensor_api.TENSOR_ATTRIBUTES

# A shallow copy of an object holding tensors (a batch): the same tensors, no byte copied.
SHALLOW_COPY_FUNCTIONS = frozenset({"copy.copy"})
# Functions that only tell the type checker what a value is, and return it (the position of the
# value among their arguments): `cast(In, batch.to(device, non_blocking=True))` is that copy.
PASS_THROUGH_FUNCTIONS = {"typing.cast": 1, "typing_extensions.cast": 1, "torch.jit.annotate": 1}

# Methods that move an nn.Module's parameters in place (and return the module): called for their
# effect alone, the result dropped, the receiver is a module, whose parameters they write.
MODULE_MOVES = frozenset({"cuda", "to", "half", "float", "bfloat16", "double"})

# Methods that end the life of a tensor's storage, or hand it to another stream.
RECORD_STREAM = "record_stream"
# `t.resize_(0)` and `t.untyped_storage().resize_(0)` free the storage's block.
STORAGE_RESIZE = "resize_"

# How code asks for a tensor's storage and its size (`t.untyped_storage().size() > 0`): where
# it is zero, the tensor has no block.
STORAGE_ACCESSORS = frozenset({"storage", "untyped_storage", "_typed_storage"})
STORAGE_SIZES = frozenset({"size", "nbytes", "_size"})

# Helpers PyTorch's own distributed code calls on storages: what each does to a tensor's life.
LIFETIME_FUNCTIONS = {
    "_free_storage": "release",                 # torch.distributed.utils: storage resized to 0
    "_alloc_storage": "allocate",               # storage resized back: new bytes, no access
    "_no_dispatch_record_stream": "record_stream",
}

# c10d's registration of a tensor with a work handle (`_register_work(output, work)`, how
# functional collectives hand out their results): whoever receives the tensor waits for the
# handle (`wait_tensor`) before using it.
WORK_REGISTRATIONS = frozenset({"_register_work"})

# In-place tensor methods write their receiver: the name ends with one underscore. These end so
# but do not write the data.
NOT_WRITING_IN_PLACE = frozenset({"requires_grad_", "retain_grad_", "share_memory_",
                                  "record_stream", "resize_", "set_", "pin_memory_"})

# Modules whose functions compute on tensors (`torch.add`, `F.relu`): their tensor arguments are
# read on the current stream and their result is a new tensor.
TENSOR_FUNCTION_MODULES = frozenset({"torch", "torch.nn.functional", "F", "torch.linalg",
                                     "torch.special", "torch.fft", "torch._C._nn",
                                     "torch._foreach", "torch._utils"})

# torch functions that only describe or create without reading tensor data.
NON_ACCESSING_FUNCTIONS = frozenset({
    "is_tensor", "is_storage", "numel", "get_default_dtype", "set_default_dtype", "no_grad",
    "enable_grad", "inference_mode", "device", "dtype", "Size", "is_grad_enabled", "manual_seed",
    "finfo", "iinfo", "result_type", "promote_types", "can_cast", "compile",
})
# Tensor methods that make a new tensor of the receiver's dtype and device: they read none of
# its bytes (`grad.new_zeros(n)`).
NEW_TENSOR_METHODS = frozenset({"new_zeros", "new_ones", "new_empty", "new_full", "new_tensor",
                                "new_empty_strided"})
# torch functions that create a tensor without reading another one.
FACTORY_FUNCTIONS = frozenset({
    "empty", "zeros", "ones", "full", "rand", "randn", "randint", "arange", "linspace",
    "logspace", "eye", "tensor", "as_tensor", "from_numpy", "frombuffer", "empty_strided",
    "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like",
    "randint_like",
})
# The legacy typed-tensor constructors of the torch module (`torch.IntTensor(xs)`) make host
# tensors, not pinned; their device twins live in torch.cuda.
HOST_TENSOR_TYPES = frozenset(kind + "Tensor" for kind in (
    "Float", "Double", "Half", "BFloat16", "Byte", "Char", "Short", "Int", "Long", "Bool"))
# Of the factories, the ones that only take a block from the caching allocator and run nothing
# on the stream: what the block's earlier users did is all that can still touch it.
UNFILLED_ALLOCATIONS = frozenset({"empty", "empty_like", "empty_strided", "new_empty",
                                  "new_empty_strided"})

# Factories whose tensor is on the host unless a device is given (`torch.tensor(xs)`,
# `torch.arange(n)`): PyTorch's default device is the CPU. The `_like` ones take their
# argument's device.
HOST_BY_DEFAULT_FACTORIES = frozenset(name for name in FACTORY_FUNCTIONS
                                      if not name.endswith("_like"))
# Calls that make another device the default for the factories above.
DEFAULT_DEVICE_SETTERS = frozenset({"set_default_device", "set_default_tensor_type"})

# torch.distributed collectives: which arguments are read, written, or both (positions, and the
# keyword names PyTorch gives them). Tensors in lists count one by one. `always_async`: the call
# returns a Work whatever `async_op` says (point-to-point). `blocks_host`: without `async_op` the
# call returns once the current stream's earlier work is done.
COLLECTIVES = {
    "all_reduce": {"read_write": (0, "tensor")},
    "all_reduce_coalesced": {"read_write": (0, "tensors")},
    "broadcast": {"read_write": (0, "tensor")},
    "reduce": {"read_write": (0, "tensor")},
    "all_gather": {"write": (0, "tensor_list"), "read": (1, "tensor")},
    "all_gather_into_tensor": {"write": (0, "output_tensor"), "read": (1, "input_tensor")},
    "_all_gather_base": {"write": (0, "output_tensor"), "read": (1, "input_tensor")},
    "all_gather_coalesced": {"write": (0, "output_tensor_lists"), "read": (1, "input_tensor_list")},
    "reduce_scatter": {"write": (0, "output"), "read": (1, "input_list")},
    "reduce_scatter_tensor": {"write": (0, "output"), "read": (1, "input")},
    "reduce_scatter_single": {"write": (0, "output"), "read": (1, "input")},
    "all_gather_single": {"write": (0, "output_tensor"), "read": (1, "input_tensor")},
    "gather_single": {"read": (0, "tensor"), "write": (1, "gather_tensor")},
    "_reduce_scatter_base": {"write": (0, "output"), "read": (1, "input")},
    "all_to_all": {"write": (0, "output_tensor_list"), "read": (1, "input_tensor_list")},
    "all_to_all_single": {"write": (0, "output"), "read": (1, "input")},
    "gather": {"read": (0, "tensor"), "write": (1, "gather_list")},
    "scatter": {"write": (0, "tensor"), "read": (1, "scatter_list")},
    "send": {"read": (0, "tensor")},
    "recv": {"write": (0, "tensor")},
    "isend": {"read": (0, "tensor"), "always_async": True},
    "irecv": {"write": (0, "tensor"), "always_async": True},
    # NCCL's barrier is an all-reduce of a tensor of its own after the current stream's work,
    # and waiting for it synchronizes the current stream with the host (ProcessGroupNCCL).
    # Gloo's waits for no device stream: taking it for NCCL's can hide a race, never report one.
    "barrier": {"blocks_host": True},
}
# The collectives given tensors (a barrier is given none).
TENSOR_COLLECTIVES = frozenset(name for name, spec in COLLECTIVES.items()
                               if spec.keys() & {"read", "write", "read_write"})
# Modules whose functions of those names are the collectives: torch.distributed, its usual
# aliases, and DeepSpeed's deepspeed.comm.
COLLECTIVE_MODULES = frozenset({"torch.distributed", "dist", "deepspeed.comm", "comm", "c10d",
                                "torch.distributed.distributed_c10d"})
# dist.P2POp(op, tensor, peer) for batch_isend_irecv: the op names its access.
P2P_OPS = {"isend": "read", "irecv": "write"}
BATCH_P2P = "batch_isend_irecv"
COALESCING_MANAGER = "_coalescing_manager"
# The keywords that make a collective (and a coalescing manager's collectives) asynchronous: the
# current stream waits for it only at the work handle's wait().
ASYNC_KEYWORDS = ("async_op", "async_ops")

# Autograd: backward() writes every gradient, on the stream current for the forward operators;
# an optimizer's step() (torch.optim's classes) reads them on the stream current for it.
BACKWARD_FUNCTIONS = frozenset({"torch.autograd.backward", "torch.autograd.grad"})
OPTIMIZER_MODULE = "torch.optim"

# A tensor's gradient: a tensor of its own, whose bytes are none of the tensor's.
GRADIENT_ATTRIBUTE = "grad"

# Registrations whose function runs later, on the stream current when the hook fires (autograd:
# the stream of the backward operator, which is that of its forward operator).
GRADIENT_HOOKS = frozenset({"register_hook", "register_post_accumulate_grad_hook"})
# Library functions that register a gradient hook: the position of the hook among their
# arguments. DeepSpeed's `register_grad_hook(param, hook)` picks register_post_accumulate_grad_hook
# or the gradient accumulator's hook by torch version.
GRADIENT_HOOK_FUNCTIONS = {"register_grad_hook": 1}
# Registration of the hooks autograd calls with each tensor a forward operator saves for
# backward (`saved_tensors_hooks(pack, unpack)`, or a subclass's `super().__init__(pack,
# unpack)`): the pack hook runs right after that operator was enqueued on the current stream, so
# the tensor it is given may still be being written there.
SAVED_TENSORS_HOOKS = "saved_tensors_hooks"
MODULE_HOOKS = frozenset({
    "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_full_backward_pre_hook", "register_backward_hook",
})
OPTIMIZER_HOOKS = frozenset({"register_step_pre_hook", "register_step_post_hook"})
# Hooks whose caller goes on, as soon as they return, to use the module's or the optimizer's
# tensors on the current stream (the step after a step pre-hook, the next forward after a step
# post-hook, the forward after its pre-hook): work they leave on another stream must be joined
# to the current stream before they return.
HANDING_BACK_HOOKS = frozenset({"register_step_pre_hook", "register_step_post_hook",
                                "register_forward_pre_hook", "register_forward_hook"})
