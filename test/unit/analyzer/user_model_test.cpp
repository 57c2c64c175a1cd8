// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// User models of wrapper APIs: the JSON a project writes so its own all_gather(buf, stream) is
// understood. Errors must say what is wrong and where.
#include "streamrace/analyzer/user_model.h"

#include <gtest/gtest.h>

namespace streamrace::analyzer {
namespace {

std::string errorOf(llvm::StringRef json) {
  llvm::Expected<UserModel> model = parseUserModel(json);
  if (model) return "";
  return llvm::toString(model.takeError());
}

TEST(UserModel, ParsesReadsWritesSizeAndStream) {
  llvm::Expected<UserModel> model = parseUserModel(
      R"({"functions": [{"name": "comm::all_gather", "reads": [0], "writes": [1], "size": 2,
                         "stream": 3}]})");
  ASSERT_TRUE(static_cast<bool>(model)) << llvm::toString(model.takeError());
  const WrapperModel* wrapper = model->find("comm::all_gather");
  ASSERT_NE(wrapper, nullptr);
  EXPECT_EQ(wrapper->reads, std::vector<unsigned>{0});
  EXPECT_EQ(wrapper->writes, std::vector<unsigned>{1});
  EXPECT_EQ(wrapper->size, 2u);
  EXPECT_EQ(wrapper->stream, 3u);
}

TEST(UserModel, ShortNamesMatchQualifiedCallees) {
  llvm::Expected<UserModel> model =
      parseUserModel(R"({"functions": [{"name": "all_reduce", "reads": [0], "stream": 1}]})");
  ASSERT_TRUE(static_cast<bool>(model)) << llvm::toString(model.takeError());
  EXPECT_NE(model->find("project::comm::all_reduce"), nullptr);
  EXPECT_NE(model->find("all_reduce"), nullptr);
  EXPECT_EQ(model->find("all_gather"), nullptr);
}

TEST(UserModel, RejectsEntriesWithoutAStream) {
  EXPECT_NE(errorOf(R"({"functions": [{"name": "f", "reads": [0]}]})").find("needs a \"stream\""),
            std::string::npos);
}

TEST(UserModel, RejectsMalformedDocuments) {
  EXPECT_NE(errorOf("{").find("streamrace user model"), std::string::npos);
  EXPECT_NE(errorOf(R"({"wrappers": []})").find("\"functions\" array"), std::string::npos);
  EXPECT_NE(errorOf(R"({"functions": [{"reads": [0], "stream": 1}]})").find("\"name\""),
            std::string::npos);
  EXPECT_NE(
      errorOf(R"({"functions": [{"name": "f", "reads": [-1], "stream": 1}]})").find("non-index"),
      std::string::npos);
  EXPECT_NE(errorOf(R"({"functions": [{"name": "f", "reads": 0, "stream": 1}]})")
                .find("array of indices"),
            std::string::npos);
}

TEST(UserModel, MissingFileNamesThePath) {
  llvm::Expected<UserModel> model = loadUserModel("/nonexistent/streamrace-model.json");
  ASSERT_FALSE(static_cast<bool>(model));
  EXPECT_NE(llvm::toString(model.takeError()).find("/nonexistent/streamrace-model.json"),
            std::string::npos);
}

} // namespace
} // namespace streamrace::analyzer
