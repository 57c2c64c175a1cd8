// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The few CPython functions the tracer calls to read Python lines, found at run time in the
// interpreter of the process (the tracer links no Python and loads anywhere). All but those that
// ask about the interpreter or take the GIL need the GIL: the Python package's entry points hold
// it (the package calls them through ctypes.PyDLL), and elsewhere the tracer reads lines only on
// a thread that holds it.
#pragma once

#include <cstddef>

namespace streamrace::tracer {

using PyObjectPtr = void*;

struct PythonApi {
  // 0 before the interpreter starts and from the moment it begins to finalize; nothing else here
  // may be called then: PyGILState_Check answers 1 once the interpreter is gone, and a thread
  // that takes the GIL while it finalizes is ended by CPython (unwound, which aborts through
  // noexcept frames).
  int (*is_initialized)();
  int (*gil_state_check)();
  // For a thread that released the GIL inside a call from Python (PyTorch's operator bindings
  // do): take it back to read its frames. The state is PyGILState_STATE, an int enum.
  PyObjectPtr (*gil_state_get_this_thread_state)(); // null for a thread that never ran Python
  int (*gil_state_ensure)();
  void (*gil_state_release)(int);
  PyObjectPtr (*eval_get_frame)();            // borrowed
  PyObjectPtr (*frame_get_back)(PyObjectPtr); // new reference
  PyObjectPtr (*frame_get_code)(PyObjectPtr); // new reference
  int (*frame_get_lasti)(PyObjectPtr);        // Python 3.11 on; null before
  int (*frame_get_line_number)(PyObjectPtr);
  int (*code_addr2line)(PyObjectPtr, int);
  void (*inc_ref)(PyObjectPtr);
  void (*dec_ref)(PyObjectPtr);
  PyObjectPtr (*get_attr_string)(PyObjectPtr, const char*); // new reference
  const char* (*unicode_as_utf8)(PyObjectPtr);
  void (*err_clear)();
  PyObjectPtr (*err_occurred)();
  std::ptrdiff_t (*list_size)(PyObjectPtr);
  PyObjectPtr (*list_get_item)(PyObjectPtr, std::ptrdiff_t); // borrowed
  unsigned long long (*long_as_unsigned_long_long)(PyObjectPtr);

  // The interpreter's functions, or null outside a Python process.
  static const PythonApi* get();
};

} // namespace streamrace::tracer
