# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# lit configuration for the FileCheck suites: one folder per part of the product.
import os

import lit.formats

config.name = "streamrace"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
config.excludes = ["Inputs", "tools"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.streamrace_obj_root, "test", "lit")

bin_dir = os.path.join(config.streamrace_obj_root, "bin")
config.environment["PATH"] = os.pathsep.join(
    [bin_dir, config.llvm_bin_dir, config.environment.get("PATH", "/usr/bin:/bin")])
config.substitutions.append(("%src_root", config.streamrace_src_root))
config.substitutions.append(("%bin", bin_dir))
config.substitutions.append(("%obj_root", config.streamrace_obj_root))
config.substitutions.append(("%llvm_bin", config.llvm_bin_dir))
config.substitutions.append(("%cuda_root", config.cuda_root))
if os.path.isdir(os.path.join(config.streamrace_obj_root, "emulator", "lib")):
    config.available_features.add("emulator")
if os.path.exists(os.path.join(bin_dir, "streamrace-check")):
    config.available_features.add("analyzer")
config.substitutions.append(
    ("%expect_exit", "python3 " + os.path.join(config.streamrace_src_root, "test", "lit", "tools",
                                               "expect_exit.py")))
