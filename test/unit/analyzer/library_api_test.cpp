// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Consistency of the library tables (library_api.h): every call that works names where its
// stream comes from, every create and SetStream names its handle, and the names code writes
// (cublas_v2.h's `_v2`, the `_64` forms, CUB's overloads) find the right row.
#include "streamrace/api_model/library_api.h"

#include <gtest/gtest.h>

namespace streamrace::api_model {
namespace {

static_assert(findLibraryFunction("cublasSgemm_v2")->argIndex(ArgMeaning::ReadWrittenBuffer) == 12);
static_assert(findLibraryFunction("cublasSgemm_v2_64") == findLibraryFunction("cublasSgemm"));
static_assert(findLibraryFunction("cublasLtMatmul")->argIndex(ArgMeaning::Stream) == 15);
static_assert(findLibraryFunction("cudaMemcpy") == nullptr);
static_assert(findCubAlgorithm("DeviceRadixSort", "SortKeys", 8) != nullptr);
static_assert(findCubAlgorithm("DeviceRadixSort", "SortKeys", 7) == nullptr); // DoubleBuffer form
static_assert(findThrustAlgorithm("transform", 6)->args.size() == 6);
static_assert(findThrustAlgorithm("transform", 5)->args.size() == 5);
static_assert(findThrustAlgorithm("sort", 4)->args.size() == 3); // with a comparator

TEST(LibraryApi, WorkNamesWhereItsStreamComesFrom) {
  for (const ApiFunction& function : libraryFunctions())
    if (function.role == ApiRole::LibraryWork) {
      const bool transfer =
          function.name.starts_with("cublasSet") || function.name.starts_with("cublasGet");
      EXPECT_TRUE(function.has(ArgMeaning::Stream) || function.has(ArgMeaning::LibraryHandle) ||
                  (transfer && function.hostSync == HostSync::Blocking))
          << function.name;
    }
  for (const ApiFunction& function : parallelAlgorithms()) {
    EXPECT_TRUE(function.has(ArgMeaning::Stream) || function.has(ArgMeaning::ExecutionPolicy))
        << function.name;
  }
}

TEST(LibraryApi, HandlesAndDescriptorsAreNamed) {
  for (const ApiFunction& function : libraryFunctions()) {
    if (function.role == ApiRole::LibraryCreate) {
      EXPECT_TRUE(function.has(ArgMeaning::LibraryHandleOut)) << function.name;
    }
    if (function.role == ApiRole::LibrarySetStream) {
      EXPECT_TRUE(function.has(ArgMeaning::LibraryHandle)) << function.name;
      EXPECT_TRUE(function.has(ArgMeaning::Stream)) << function.name;
    }
    if (function.role == ApiRole::DescriptorCreate) {
      EXPECT_TRUE(function.has(ArgMeaning::DescriptorOut)) << function.name;
      EXPECT_TRUE(function.has(ArgMeaning::DescribedValues)) << function.name;
    }
  }
}

TEST(LibraryApi, NamesAreUnique) {
  for (const ApiFunction& function : libraryFunctions()) {
    EXPECT_EQ(findLibraryFunction(function.name), &function) << function.name;
  }
}

} // namespace
} // namespace streamrace::api_model
