// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A value shared by copies of its owner until one of them changes it. The flow analysis copies
// its state for every block it visits and every edge it follows, and most statements change
// nothing: a copy then costs a reference count, and a change copies only the part it touches.
#pragma once

#include <memory>

namespace streamrace::analyzer {

template <class T> class CopyOnWrite {
public:
  const T& operator*() const { return value_ ? *value_ : empty(); }
  const T* operator->() const { return &**this; }

  // The value for changing: this owner's own copy from now on.
  T& edit() {
    if (!value_)
      value_ = std::make_shared<T>();
    else if (value_.use_count() > 1)
      value_ = std::make_shared<T>(*value_);
    return *value_;
  }

  void assign(T value) { value_ = std::make_shared<T>(std::move(value)); }

  // Whether both hold the very same value (not merely equal ones).
  bool shares(const CopyOnWrite& other) const { return value_ == other.value_; }

  bool operator==(const CopyOnWrite& other) const { return shares(other) || **this == *other; }

private:
  static const T& empty() {
    static const T nothing;
    return nothing;
  }

  std::shared_ptr<T> value_;
};

} // namespace streamrace::analyzer
