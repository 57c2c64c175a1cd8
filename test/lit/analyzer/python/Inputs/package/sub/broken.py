# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
def incomplete(x:
    return x
