// Checkpoint and resume: the file round-trips and refuses damage; a recon stopped (between iterations or in
// the middle of one) and resumed ends as the run never stopped, on any device count; a checkpoint from other
// inputs, geometry or parameters is refused, naming which.

#include "MBIRTestSupport.h"
#include "mbir/Checkpoint.h"
#include "mbir/Metrics.h"
#include "mbir/Phantom.h"
#include "mbir/Reconstructor.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace mbir;
using mbir::test::cpuDevices;
using mbir::test::expectInvalid;

namespace {

namespace fs = std::filesystem;

// A fresh folder per test, removed at its end.
class Checkpoints : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    m_Folder = fs::temp_directory_path() /
               ("mbir-checkpoint-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                "-" + std::to_string(::getpid()));
    fs::create_directories(m_Folder);
  }
  void
  TearDown() override
  {
    fs::remove_all(m_Folder);
  }
  std::string
  path(const std::string & name) const
  {
    return (m_Folder / name).string();
  }

  fs::path m_Folder;
};

ParallelBeamGeometry
smallGeometry()
{
  return ParallelBeamGeometry(SinogramShape{ 30, 6, 64 }, test::evenAngles(30, M_PI));
}

ReconParams
sixIterations()
{
  ReconParams params;
  params.verbose = 0;
  params.maxIterations = 6;
  params.stopThresholdChangePct = 0.0f; // every iteration runs, so the counts compare
  params.seed = 7;
  return params;
}


struct Problem
{
  std::vector<float> sinogram;
  ReconResult        uninterrupted;
};

Problem
makeProblem(const ReconParams & params)
{
  const Reconstructor reconstructor(smallGeometry(), makeCpuBackend(), params);
  Problem             p;
  p.sinogram = reconstructor.forwardProject(sheppLoganLowDynamicRange(reconstructor.projector().reconShape()));
  p.uninterrupted = reconstructor.recon(p.sinogram);
  return p;
}

void
expectSameRun(const ReconResult & resumed, const ReconResult & uninterrupted)
{
  ASSERT_EQ(resumed.log.size(), uninterrupted.log.size());
  for (std::size_t i = 0; i < resumed.log.size(); ++i)
  {
    EXPECT_EQ(resumed.log[i].iteration, int(i));
    EXPECT_EQ(resumed.log[i].numSubsets, uninterrupted.log[i].numSubsets);
  }
  // The resumed run recomputes the error sinogram from the saved volume, so it agrees to float rounding.
  EXPECT_LT(nrmse(resumed.recon, uninterrupted.recon), 1e-4);
  EXPECT_NEAR(
    resumed.log.back().forwardLoss, uninterrupted.log.back().forwardLoss, 1e-4 * uninterrupted.log.back().forwardLoss);
}

} // namespace

TEST_F(Checkpoints, FileRoundTripsEveryField)
{
  ReconCheckpoint c;
  c.inputsKey = 1;
  c.geometryKey = 2;
  c.parametersKey = 3;
  c.shape = ReconShape{ 3, 4, 5 };
  c.state.iteration = 4;
  c.state.subsetsDone = 9;
  c.scheduledIterations = 15;
  c.state.changed = 0.25;
  c.state.alphaSum = 1.5;
  c.state.randomState = "12 34 56";
  c.state.sigmaYFactor = 1.75;
  c.state.fitTested = true;
  c.regularizationNote = "two\nlines";
  c.state.log.resize(2);
  c.state.log[1].iteration = 1;
  c.state.log[1].changePct = 0.5;
  c.state.log[1].totalCost = std::nan("");
  c.volume = test::uniformRandom(c.shape.size(), 3);
  writeCheckpoint(path("a.ckpt"), c);
  const ReconCheckpoint r = readCheckpoint(path("a.ckpt"));
  EXPECT_EQ(r.inputsKey, 1u);
  EXPECT_EQ(r.geometryKey, 2u);
  EXPECT_EQ(r.parametersKey, 3u);
  EXPECT_EQ(r.shape, c.shape);
  EXPECT_EQ(r.state.iteration, 4);
  EXPECT_EQ(r.state.subsetsDone, 9);
  EXPECT_EQ(r.scheduledIterations, 15);
  EXPECT_EQ(r.state.changed, 0.25);
  EXPECT_EQ(r.state.alphaSum, 1.5);
  EXPECT_EQ(r.state.randomState, c.state.randomState);
  EXPECT_EQ(r.state.sigmaYFactor, 1.75);
  EXPECT_TRUE(r.state.fitTested);
  EXPECT_EQ(r.regularizationNote, c.regularizationNote);
  ASSERT_EQ(r.state.log.size(), 2u);
  EXPECT_EQ(r.state.log[1].iteration, 1);
  EXPECT_EQ(r.state.log[1].changePct, 0.5);
  EXPECT_TRUE(std::isnan(r.state.log[1].totalCost));
  EXPECT_EQ(r.volume, c.volume);
  // Nothing but the checkpoint is left in the folder.
  EXPECT_EQ(std::distance(fs::directory_iterator(m_Folder), fs::directory_iterator()), 1);
}

TEST_F(Checkpoints, HalfWrittenFilesOfKilledWritersAreRemovedBeforeTheNextRun)
{
  // A writer killed mid-write (SIGKILL) leaves its partial file; the next run's clean-up of the same target removes
  // it, but not one that a live process of this host, or any process of another host, is writing.
  const pid_t gone = ::fork();
  ASSERT_GE(gone, 0);
  if (gone == 0)
    ::_exit(0);
  ASSERT_EQ(::waitpid(gone, nullptr, 0), gone);
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  const std::string prefix = ".a.ckpt.partial-" + std::string(host) + "-";
  const std::string stale = path(prefix + std::to_string(gone)), live = path(prefix + std::to_string(::getppid())),
                    elsewhere = path(".a.ckpt.partial-another-host-" + std::to_string(gone)),
                    otherTarget = path(".b.ckpt.partial-" + std::string(host) + "-" + std::to_string(gone));
  for (const std::string & file : { stale, live, elsewhere, otherTarget })
    std::ofstream(file) << "half";
  removeStalePartialCheckpoints(path("a.ckpt"));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(elsewhere));
  EXPECT_TRUE(fs::exists(otherTarget));
}

TEST_F(Checkpoints, DamagedFilesAreRefusedWithTheReason)
{
  ReconCheckpoint c;
  c.shape = ReconShape{ 8, 8, 2 };
  c.volume.assign(c.shape.size(), 1.0f);
  writeCheckpoint(path("good.ckpt"), c);
  std::string bytes;
  {
    std::ifstream in(path("good.ckpt"), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto writeBytes = [&](const std::string & name, const std::string & content) {
    std::ofstream(path(name), std::ios::binary) << content;
    return path(name);
  };
  auto expectRefused = [](const std::string & file, const std::string & needle) {
    try
    {
      readCheckpoint(file);
      ADD_FAILURE() << file << " was read";
    }
    catch (const std::runtime_error & e)
    {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
    }
  };
  expectRefused(writeBytes("truncated.ckpt", bytes.substr(0, bytes.size() - 100)), "ends early");
  expectRefused(writeBytes("empty.ckpt", ""), "ends early");
  std::string flipped = bytes;
  flipped[bytes.size() - 40] ^= 0x10; // a volume value
  expectRefused(writeBytes("flipped.ckpt", flipped), "checksum");
  expectRefused(writeBytes("other.ckpt", "P5\n8 8\n255\n" + std::string(64, '\0')), "not an MBIR checkpoint");
  expectRefused(writeBytes("longer.ckpt", bytes + "x"), "past the end");
  expectRefused(path("absent.ckpt"), "cannot read");
}

TEST_F(Checkpoints, ResumedBetweenIterationsEndsAsTheUninterruptedRun)
{
  const Problem p = makeProblem(sixIterations());
  ReconParams   params = sixIterations();
  params.checkpointFile = path("run.ckpt");
  params.checkpointEvery = 2;
  // The checkpointing run itself is unchanged by its checkpoints.
  const ReconResult checkpointed = Reconstructor(smallGeometry(), makeCpuBackend(), params).recon(p.sinogram);
  EXPECT_EQ(checkpointed.recon, p.uninterrupted.recon);
  // Its last checkpoint is after iteration 4 (none after the last iteration).
  const ReconCheckpoint saved = readCheckpoint(params.checkpointFile);
  EXPECT_EQ(saved.state.iteration, 4);
  EXPECT_EQ(saved.state.subsetsDone, 0);
  EXPECT_EQ(saved.state.log.size(), 4u);

  ReconParams resume = sixIterations();
  resume.resumeFile = params.checkpointFile;
  expectSameRun(Reconstructor(smallGeometry(), makeCpuBackend(), resume).recon(p.sinogram), p.uninterrupted);
}

TEST_F(Checkpoints, StoppedInTheMiddleOfAnIterationAndResumedOnOtherDevices)
{
  const Problem p = makeProblem(sixIterations());
  ReconParams   params = sixIterations();
  params.checkpointFile = path("stop.ckpt");
  params.checkpointEvery = 100; // only the checkpoint at the stop
  int calls = 0;
  params.progress = [&calls](double) { return ++calls < 12; }; // stops after the 12th subset
  EXPECT_THROW(Reconstructor(smallGeometry(), makeCpuBackend(), params).recon(p.sinogram), Aborted);
  const ReconCheckpoint saved = readCheckpoint(params.checkpointFile);
  EXPECT_GT(saved.state.subsetsDone, 0);
  EXPECT_EQ(saved.state.log.size(), std::size_t(saved.state.iteration));

  // Resumed on two CPU devices: the result does not depend on the device count.
  ReconParams resume = sixIterations();
  resume.resumeFile = params.checkpointFile;
  expectSameRun(Reconstructor(smallGeometry(), cpuDevices(2), resume).recon(p.sinogram), p.uninterrupted);
}

TEST_F(Checkpoints, ResumeRefusesAnotherProblemNamingWhatDiffers)
{
  const Problem p = makeProblem(sixIterations());
  ReconParams   params = sixIterations();
  params.maxIterations = 3;
  params.checkpointFile = path("run.ckpt");
  Reconstructor(smallGeometry(), makeCpuBackend(), params).recon(p.sinogram);

  ReconParams resume = params;
  resume.checkpointFile.clear();
  resume.resumeFile = params.checkpointFile;
  std::vector<float> other = p.sinogram;
  other[100] += 0.5f;
  expectInvalid([&] { Reconstructor(smallGeometry(), makeCpuBackend(), resume).recon(other); }, "other projections");

  ReconParams sharper = resume;
  sharper.sharpness = 2.0f;
  expectInvalid([&] { Reconstructor(smallGeometry(), makeCpuBackend(), sharper).recon(p.sinogram); },
                "other parameters");

  ParallelBeamGeometry shifted = smallGeometry();
  shifted.detChannelOffset = 0.5f;
  expectInvalid([&] { Reconstructor(shifted, makeCpuBackend(), resume).recon(p.sinogram); }, "another geometry");

  ReconParams absent = resume;
  absent.resumeFile = path("absent.ckpt");
  EXPECT_THROW(Reconstructor(smallGeometry(), makeCpuBackend(), absent).recon(p.sinogram), std::runtime_error);
}

TEST_F(Checkpoints, BadSettingsFailBeforeTheRecon)
{
  const Problem p = makeProblem(sixIterations());
  ReconParams   params = sixIterations();
  params.checkpointFile = path("missing-folder/run.ckpt");
  expectInvalid([&] { Reconstructor(smallGeometry(), makeCpuBackend(), params).recon(p.sinogram); },
                "does not exist or is not writable");
  params.checkpointFile = path("run.ckpt");
  params.checkpointEvery = 0;
  expectInvalid([&] { Reconstructor(smallGeometry(), makeCpuBackend(), params).recon(p.sinogram); },
                "checkpoint_every");
}
