// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Which storage keys outlive a call of an entry point, without an AST: "p@A" is a pointer
// parameter, "g@G" a global the function names, "local@L" one of its locals.
#include "entry_points.h"

#include <gtest/gtest.h>

namespace streamrace::analyzer {
namespace {

PersistentRoots methodRoots() {
  PersistentRoots roots;
  roots.thisKey = "this";
  roots.parameters = {"p@A", "buffer@B"};
  roots.globals = {"g@G"};
  return roots;
}

TEST(PersistentStorage, FieldsOfTheObjectAndOfObjectsPassedInOutliveTheCall) {
  const PersistentRoots roots = methodRoots();
  EXPECT_TRUE(persistentStorage("this.scratch", roots));
  EXPECT_TRUE(persistentStorage("this.layers[*].weights", roots));
  EXPECT_TRUE(persistentStorage("p@A.dev_tmp[0]", roots));
  EXPECT_TRUE(persistentStorage("g@G", roots));
  EXPECT_TRUE(persistentStorage("g@G[3]", roots));
}

TEST(PersistentStorage, WhatAParameterPointsToAndLocalsMayBeOtherStorageNextTime) {
  const PersistentRoots roots = methodRoots();
  EXPECT_FALSE(persistentStorage("buffer@B", roots));
  EXPECT_FALSE(persistentStorage("buffer@B[*]", roots));
  EXPECT_FALSE(persistentStorage("local@L.field", roots));
  EXPECT_FALSE(persistentStorage("this", roots));
}

TEST(PersistentStorage, AFreeFunctionHasNoThis) {
  PersistentRoots roots = methodRoots();
  roots.thisKey.clear();
  EXPECT_FALSE(persistentStorage("this.scratch", roots));
}

} // namespace
} // namespace streamrace::analyzer
