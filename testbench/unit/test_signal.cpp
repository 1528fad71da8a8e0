// Observer points with several subscribers (model/core/signal.h): every
// subscriber runs, in the order connected; none replaces another; an empty one
// is false and calls nothing. A block's observer (the register map's write
// callback) keeps both of two listeners.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/core/signal.h"
#include "model/ornic/register_map.h"

namespace oonic {
namespace {

TEST(Signal, EverySubscriberRunsInOrder) {
  Signal<int, const std::string&> s;
  EXPECT_FALSE(s);
  s(1, "nobody listens");  // no subscriber: nothing happens
  std::vector<std::string> seen;
  s.connect([&](int x, const std::string& t) { seen.push_back("a" + std::to_string(x) + t); });
  s.connect(nullptr);  // ignored
  s.connect([&](int x, const std::string& t) { seen.push_back("b" + std::to_string(x) + t); });
  EXPECT_TRUE(s);
  EXPECT_EQ(s.size(), 2u);
  s(7, "!");
  EXPECT_EQ(seen, (std::vector<std::string>{"a7!", "b7!"}));
}

TEST(Signal, ASecondObserverOfABlockDoesNotReplaceTheFirst) {
  ornic::RegisterFile f(2);
  int first = 0, second = 0;
  f.on_write([&](uint32_t, uint32_t) { ++first; });
  f.on_write([&](uint32_t, uint32_t) { ++second; });
  ASSERT_EQ(f.write(ornic::RegisterFile::qp_reg(1, 0x34), 0x10005), ornic::RegStatus::kOk);
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 1);
}

}  // namespace
}  // namespace oonic
