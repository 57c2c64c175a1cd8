// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/json_reader.h"

#include <gtest/gtest.h>

namespace streamrace {
namespace {

using Kind = JsonValue::Kind;

TEST(JsonReader, ReadsNestedDocumentsInOrder) {
  std::string error;
  const std::optional<JsonValue> document = parse_json(
      R"( {"a": [1, -2.5e1, "x\"\n\u00e9"], "b": {"t": true, "f": false, "n": null}, "a": 0} )",
      error);
  ASSERT_TRUE(document) << error;
  ASSERT_EQ(document->kind, Kind::Object);
  ASSERT_EQ(document->object.size(), 3u);
  const JsonValue* a = document->member("a"); // the first of two
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->kind, Kind::Array);
  ASSERT_EQ(a->array.size(), 3u);
  EXPECT_EQ(a->array[0].number, 1);
  EXPECT_EQ(a->array[1].number, -25);
  EXPECT_EQ(a->array[2].string, "x\"\n?"); // escapes beyond ASCII are read as '?'
  const JsonValue* b = document->member("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->member("t")->kind, Kind::Bool);
  EXPECT_EQ(b->member("t")->number, 1);
  EXPECT_EQ(b->member("f")->number, 0);
  EXPECT_EQ(b->member("n")->kind, Kind::Null);
  EXPECT_EQ(b->member("missing"), nullptr);
}

TEST(JsonReader, SaysWhatIsWrongAndWhere) {
  const auto error_of = [](std::string_view text) {
    std::string error;
    EXPECT_FALSE(parse_json(text, error)) << text;
    return error;
  };
  EXPECT_EQ(error_of("{\"a\" 1}"), "expected 'name': value at byte 5");
  EXPECT_EQ(error_of("[1, 2"), "expected , or ] at byte 5");
  EXPECT_EQ(error_of("\"open"), "unterminated string at byte 5");
  EXPECT_EQ(error_of("{} x"), "trailing text at byte 3");
  EXPECT_EQ(error_of(""), "unexpected end at byte 0");
  EXPECT_EQ(error_of(std::string(100, '[')), "nesting too deep at byte 65");
}

} // namespace
} // namespace streamrace
