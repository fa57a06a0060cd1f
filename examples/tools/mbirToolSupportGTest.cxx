// What the tools' progress says of the time left (ProgressRate), from given reports: no clock is read.

#include "mbirToolSupport.h"

#include <gtest/gtest.h>

using mbirtool::ProgressRate;

// A recon of six equal iterations after a set-up as long as one: reports at 1/6 after 3 s (set-up and the first
// iteration), then every 1.5 s. The rate since the first report leaves the set-up out.
TEST(ProgressRate, LeavesOutTheWorkBeforeProgressFirstMoved)
{
  ProgressRate rate;
  rate.Observe(0.0, 0.0); // ITK's report at the start of an update
  EXPECT_EQ(rate.Left(0.0, 0.0), "");
  rate.Observe(1.0 / 6, 3.0);
  EXPECT_EQ(rate.Left(1.0 / 6, 3.0), "") << "no rate yet from one report";
  rate.Observe(2.0 / 6, 4.5);
  EXPECT_EQ(rate.Left(2.0 / 6, 4.5), "0:06"); // 4 iterations of 1.5 s; from the start it would say 0:09
  rate.Observe(4.0 / 6, 7.5);
  EXPECT_EQ(rate.Left(4.0 / 6, 7.5), "0:03"); // from the start it would say 0:04
}

TEST(ProgressRate, UnknownUntilProgressMovedOnePercentOverASecond)
{
  ProgressRate rate;
  rate.Observe(0.2, 10.0);
  EXPECT_EQ(rate.Left(0.205, 20.0), "") << "half a percent moved";
  EXPECT_EQ(rate.Left(0.5, 10.5), "") << "half a second passed";
  EXPECT_EQ(rate.Left(0.3, 20.0), "1:10");                                // 10 s per tenth, 7 tenths left
  EXPECT_EQ(rate.Left(0.3, 3610.0), "7:00:00") << "h:mm:ss past an hour"; // an hour per tenth
}

// A resumed recon starts past 0: its first report is the origin, so the jump from 0 is not taken as speed.
TEST(ProgressRate, AResumedUpdateTakesItsFirstReportAsTheOrigin)
{
  ProgressRate rate;
  rate.Observe(0.0, 0.0);
  rate.Observe(0.75, 2.0); // the checkpoint's three quarters, and one subset, after the set-up
  EXPECT_EQ(rate.Left(0.75, 2.0), "");
  rate.Observe(0.875, 4.0);
  EXPECT_EQ(rate.Left(0.875, 4.0), "0:02");
}
