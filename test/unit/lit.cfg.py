# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs every GoogleTest binary named *Tests in the build's test/unit folder.
import lit.formats

config.name = "streamrace-unit"
config.test_format = lit.formats.GoogleTest(".", "Tests")
config.test_source_root = config.streamrace_unit_dir
config.test_exec_root = config.streamrace_unit_dir
