# A CUDA tensor of a native thread's, dropped after the job's last exit handler
# (release_at_finalize.cpp says how).
#   release_at_finalize.py --build HELPER   compiles the helper against this PyTorch
#   release_at_finalize.py HELPER           runs the job
import atexit
import ctypes
import os
import subprocess
import sys


def build(output):
    import torch

    torch_dir = os.path.dirname(torch.__file__)
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "release_at_finalize.cpp")
    subprocess.run([os.environ.get("CXX") or "c++", "-O1", "-std=c++20", "-fPIC", "-shared",
                    "-D_GLIBCXX_USE_CXX11_ABI=%d" % int(torch._C._GLIBCXX_USE_CXX11_ABI),
                    "-isystem", os.path.join(torch_dir, "include"), source,
                    "-L" + os.path.join(torch_dir, "lib"), "-lc10", "-ltorch_cpu",
                    "-Wl,-rpath," + os.path.join(torch_dir, "lib"), "-o", output], check=True)


def release_last():
    print("releasing at exit", flush=True)
    # The thread, waiting for the GIL, would make this thread let it go within 5 ms, before the
    # interpreter finalizes; now it waits longer than the rest of the exit takes.
    sys.setswitchinterval(100)
    helper.release_it_holding_the_gil(200)


if sys.argv[1] == "--build":
    build(sys.argv[2])
    sys.exit(0)

# Registered before anything imports torch, so it runs after every exit handler that torch and
# streamrace.torch register.
atexit.register(release_last)

import torch  # noqa: E402

torch.ones(1, device="cuda")  # CUDA, and streamrace.torch's hooks, are set up
helper = ctypes.PyDLL(sys.argv[1])  # PyDLL: calls keep the GIL
if helper.hold_tensor_on_a_thread() != 0:
    sys.exit("cannot start the thread")
