#include "budget/admission.h"
#include "budget/money.h"
#include "budget/window.h"

#include <gtest/gtest.h>

namespace {

using namespace modelgw::budget;

constexpr std::int64_t kMs2026Nov24_1030 = 1'795'516'200'000;  // 2026-11-24T10:30:00Z

TEST(BudgetWindow, HourDayAndMonthResetAtTheNextUtcBoundary) {
  EXPECT_EQ(window_start(Window::hour, kMs2026Nov24_1030), 1'795'514'400'000);   // 10:00
  EXPECT_EQ(window_end(Window::hour, kMs2026Nov24_1030), 1'795'518'000'000);     // 11:00
  EXPECT_EQ(window_start(Window::day, kMs2026Nov24_1030), 1'795'478'400'000);    // 2026-11-24T00:00Z
  EXPECT_EQ(window_start(Window::month, kMs2026Nov24_1030), 1'793'491'200'000);  // 2026-11-01
  EXPECT_EQ(window_end(Window::month, kMs2026Nov24_1030), 1'796'083'200'000);    // 2026-12-01
  EXPECT_EQ(window_start(Window::minute, kMs2026Nov24_1030 + 59'999), kMs2026Nov24_1030);
}

TEST(BudgetWindow, MonthsRollOverTheYearAndKnowLeapDays) {
  const std::int64_t dec31 = 1'798'761'600'000 - 1;                // 2026-12-31T23:59:59.999Z
  EXPECT_EQ(window_end(Window::month, dec31), 1'798'761'600'000);  // 2027-01-01
  const std::int64_t feb2028 = 1'832'976'000'000;                  // 2028-02-01
  EXPECT_EQ(window_end(Window::month, feb2028), feb2028 + 29LL * 86'400'000);
  EXPECT_EQ(window_start(Window::none, dec31), 0);
}

TEST(BudgetWindow, NamesParseBothWays) {
  for (const char* name : {"minute", "hour", "day", "month", "none"}) {
    auto w = parse_window(name);
    ASSERT_TRUE(w) << name;
    EXPECT_EQ(window_name(*w), name);
  }
  EXPECT_FALSE(parse_window("week"));
  EXPECT_FALSE(parse_window("Hour"));
}

TEST(Money, ParsesDecimalUsdExactly) {
  EXPECT_EQ(parse_money("25.00"), 25'000'000);
  EXPECT_EQ(parse_money(nlohmann::json(0.1)), 100'000);
  EXPECT_EQ(parse_money(nlohmann::json(3)), 3'000'000);
  EXPECT_EQ(parse_money("0.000001"), 1);
  EXPECT_EQ(parse_money("1.5000000"), 1'500'000);
  EXPECT_EQ(parse_money("1000000000"), kMaxMoneyMicros);
  for (const char* bad : {"-1", "1.0000001", "1e3", "abc", "", ".5", "1.", "1..2", "1000000000.01", "NaN"}) {
    EXPECT_FALSE(parse_money(bad)) << bad;
  }
  EXPECT_FALSE(parse_money(nlohmann::json(-0.5)));
  EXPECT_FALSE(parse_money(nlohmann::json(1e300)));
  EXPECT_FALSE(parse_money(nlohmann::json(true)));
  EXPECT_FALSE(parse_money(nlohmann::json("99999999999999999999999")));
}

TEST(Money, FormatsMicrosWithSixDecimals) {
  EXPECT_EQ(format_micros(0), "0.000000");
  EXPECT_EQ(format_micros(1), "0.000001");
  EXPECT_EQ(format_micros(1'250'000), "1.250000");
  EXPECT_EQ(format_micros(-5), "-0.000005");
  EXPECT_EQ(format_micros(std::numeric_limits<std::int64_t>::min()), "-9223372036854.775808");
}

}  // namespace
