// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "sub_statements.h"

#include "clang/AST/ParentMap.h"

#include <algorithm>

namespace streamrace::analyzer {

llvm::SmallVector<const clang::Stmt*, 4> subStatements(const clang::Stmt& stmt) {
  llvm::SmallVector<const clang::Stmt*, 4> statements(stmt.children().begin(),
                                                      stmt.children().end());
  if (const auto* region = llvm::dyn_cast<clang::CapturedStmt>(&stmt))
    if (std::find(statements.begin(), statements.end(), region->getCapturedStmt()) ==
        statements.end())
      statements.push_back(region->getCapturedStmt());
  return statements;
}

void addCapturedRegions(clang::ParentMap& parents, const clang::Stmt& body) {
  if (const auto* region = llvm::dyn_cast<clang::CapturedStmt>(&body)) {
    auto* regionBody = const_cast<clang::Stmt*>(region->getCapturedStmt());
    if (!parents.hasParent(regionBody)) {
      parents.addStmt(regionBody);
      parents.setParent(regionBody, region);
    }
  }
  for (const clang::Stmt* child : subStatements(body))
    if (child) addCapturedRegions(parents, *child);
}

} // namespace streamrace::analyzer
