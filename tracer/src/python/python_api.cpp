// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "python/python_api.h"

#include <dlfcn.h>

namespace streamrace::tracer {

namespace {

template <typename Function> bool find(Function& function, const char* name) {
  function = reinterpret_cast<Function>(dlsym(RTLD_DEFAULT, name));
  return function != nullptr;
}

} // namespace

const PythonApi* PythonApi::get() {
  static const PythonApi* const api = []() -> const PythonApi* {
    static PythonApi found{};
    const bool complete =
        find(found.is_initialized, "Py_IsInitialized") &&
        find(found.gil_state_check, "PyGILState_Check") &&
        find(found.gil_state_get_this_thread_state, "PyGILState_GetThisThreadState") &&
        find(found.gil_state_ensure, "PyGILState_Ensure") &&
        find(found.gil_state_release, "PyGILState_Release") &&
        find(found.eval_get_frame, "PyEval_GetFrame") &&
        find(found.frame_get_back, "PyFrame_GetBack") &&
        find(found.frame_get_code, "PyFrame_GetCode") &&
        find(found.frame_get_line_number, "PyFrame_GetLineNumber") &&
        find(found.code_addr2line, "PyCode_Addr2Line") && find(found.inc_ref, "Py_IncRef") &&
        find(found.dec_ref, "Py_DecRef") && find(found.get_attr_string, "PyObject_GetAttrString") &&
        find(found.unicode_as_utf8, "PyUnicode_AsUTF8") && find(found.err_clear, "PyErr_Clear") &&
        find(found.err_occurred, "PyErr_Occurred") && find(found.list_size, "PyList_Size") &&
        find(found.list_get_item, "PyList_GetItem") &&
        find(found.long_as_unsigned_long_long, "PyLong_AsUnsignedLongLong");
    // Frames know their last instruction through the API from Python 3.11 on.
    find(found.frame_get_lasti, "PyFrame_GetLasti");
    return complete ? &found : nullptr;
  }();
  return api;
}

} // namespace streamrace::tracer
