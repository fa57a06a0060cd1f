// main() of the test programs that ctest runs under mpirun: every rank runs every test, only rank 0 prints the
// gtest report, and the other ranks report only their failures, after it; any rank's failure fails the run.

#include "mbir/ProcessGroup.h"

#include <gtest/gtest.h>

#include <iostream>

int
main(int argc, char ** argv)
{
  ::testing::InitGoogleTest(&argc, argv);
  const mbir::ProcessGroup & world = mbir::processGroup(); // starts MPI under a launcher
  if (world.rank != 0)
  {
    ::testing::TestEventListeners & listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int status = RUN_ALL_TESTS();
  if (status != 0 && world.rank != 0)
  {
    std::cerr << "rank " << world.rank << " of " << world.size << ": tests failed\n";
  }
  return status;
}
