#include "support/text_hash_table.h"

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

namespace reshardctl {

TEST_CASE("text hash: every byte and the length count, at every length") {
  std::string text(40, 'a');
  for (size_t length = 0; length <= text.size(); ++length) {
    const std::string_view base(text.data(), length);
    CHECK(hashText(base) == hashText(std::string(base)));  // the bytes, not where they are
    if (length < text.size()) CHECK(hashText(base) != hashText(std::string_view(text.data(), length + 1)));
    for (size_t at = 0; at < length; ++at) {
      std::string changed(base);
      changed[at] = 'b';
      CHECK(hashText(changed) != hashText(base));
    }
  }
}

TEST_CASE("text hash table: finds what was inserted, keeps the first value, grows") {
  std::vector<std::string> keys;
  for (int i = 0; i < 5000; ++i) keys.push_back("key" + std::to_string(i * 7919));
  keys.push_back("");
  TextHashTable<int> table;
  CHECK(table.find("key0") == nullptr);  // an empty table
  for (size_t i = 0; i < keys.size(); ++i) {
    auto entry = table.insert(keys[i], static_cast<int>(i));
    CHECK(entry.added);
    CHECK(entry.key.data() == keys[i].data());  // the view given is the one stored
  }
  CHECK(table.size() == keys.size());
  const std::string again = keys[17];  // equal text elsewhere: found, not added
  auto entry = table.insert(again, -1);
  CHECK_FALSE(entry.added);
  CHECK(entry.value == 17);
  CHECK(entry.key.data() == keys[17].data());
  for (size_t i = 0; i < keys.size(); ++i) {
    const int* value = table.find(keys[i]);
    REQUIRE(value != nullptr);
    CHECK(*value == static_cast<int>(i));
  }
  CHECK(table.find("key1") == nullptr);
  CHECK(table.findSlot("key7919", hashText("key7919"))->key.data() == keys[1].data());
  std::set<std::string> visited;
  table.forEach([&](std::string_view key, int) { visited.insert(std::string(key)); });
  CHECK(visited.size() == keys.size());
}

}  // namespace reshardctl
