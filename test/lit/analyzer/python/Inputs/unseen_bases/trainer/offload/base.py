# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
class LocalOptimizer:
    def zero_grad(self):
        pass
