// MBIR on the CPU: image quality on the spec's Shepp-Logan case, the cost decreasing, positivity, the
// proximal map, FBP scaling, reproducibility, auto-regularisation and clear errors on bad input.

#include "MBIRTestSupport.h"
#include "mbir/DirectRecon.h"
#include "mbir/Metrics.h"
#include "mbir/Phantom.h"
#include "mbir/Reconstructor.h"
#include "mbir/Weights.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mbir;
using mbir::test::expectInvalid;

namespace {

ReconParams
quiet()
{
  ReconParams params;
  params.verbose = 0;
  return params;
}

// The parallel-beam case of spec/solver.md §9.1: 64 views over [-pi/2, pi/2), 40 rows, 128 channels.
ParallelBeamGeometry
specGeometry(int views = 64)
{
  return ParallelBeamGeometry(SinogramShape{ views, 40, 128 }, test::evenAngles(views, M_PI, -M_PI / 2));
}

// The Shepp-Logan phantom's projections with uniform noise of +-0.5: enough that a weakly regularised recon goes
// negative unless clipped.
std::vector<float>
noisySheppLogan(const Reconstructor & reconstructor)
{
  std::vector<float> sino =
    reconstructor.forwardProject(sheppLoganLowDynamicRange(reconstructor.projector().reconShape()));
  const std::vector<float> noise = test::uniformRandom(sino.size(), 5, -1.0f, 1.0f);
  for (std::size_t i = 0; i < sino.size(); ++i)
  {
    sino[i] += 0.5f * noise[i];
  }
  return sino;
}

} // namespace

TEST(Reconstructor, SheppLoganParallelBeamMeetsSpecTolerances)
{
  ReconParams params = quiet();
  params.computePriorLoss = true; // for the total cost below
  const Reconstructor      reconstructor(specGeometry(), makeCpuBackend(), params);
  const ReconShape &       shape = reconstructor.projector().reconShape();
  const std::vector<float> phantom = sheppLoganLowDynamicRange(shape);
  const std::vector<float> sino = reconstructor.forwardProject(phantom);
  const ReconResult        result = reconstructor.recon(sino);

  const double error = nrmse(result.recon, phantom);
  EXPECT_LT(error, 0.11);
  EXPECT_LT(maxAbsDifference(result.recon, phantom), 0.33);
  EXPECT_LT(percentile95AbsDifference(result.recon, phantom), 0.04);
  EXPECT_LT(error, nrmse(reconstructor.directRecon(sino), phantom)); // better than FBP
  ASSERT_FALSE(result.log.empty());
  EXPECT_LE(result.log.size(), 15u);

  // The total cost does not increase from one iteration to the next (float rounding aside).
  for (std::size_t i = 1; i < result.log.size(); ++i)
  {
    EXPECT_LE(result.log[i].totalCost, result.log[i - 1].totalCost * (1.0 + 1e-5)) << "iteration " << i;
  }
  EXPECT_GT(result.regularization.sigmaY, 0.0f);
  EXPECT_GT(result.regularization.sigmaX, 0.0f);
}

TEST(Reconstructor, SameSeedSameResultAndLogAsData)
{
  ReconParams params = quiet();
  params.maxIterations = 3;
  params.seed = 42;
  std::vector<std::string> lines;
  params.verbose = 1;
  params.logSink = [&lines](const std::string & line) { lines.push_back(line); };
  const Reconstructor      reconstructor(specGeometry(24), makeCpuBackend(), params);
  const std::vector<float> phantom = sheppLoganLowDynamicRange(reconstructor.projector().reconShape());
  const std::vector<float> sino = reconstructor.forwardProject(phantom);
  const ReconResult        first = reconstructor.recon(sino);
  const ReconResult        second = reconstructor.recon(sino);
  EXPECT_EQ(first.recon, second.recon);
  ASSERT_EQ(first.log.size(), 3u);
  EXPECT_EQ(first.log[0].numSubsets, 1);
  EXPECT_EQ(first.log[1].numSubsets, 4);
  EXPECT_EQ(first.log[2].numSubsets, 16);
  EXPECT_NE(first.logText.find("Iteration 2/3"), std::string::npos) << first.logText;
  EXPECT_EQ(lines.size(), 2u * 5u); // a header, how sigma_y was set and three iteration lines per recon

  Reconstructor other(specGeometry(24), makeCpuBackend(), params);
  other.params().seed = 43;
  const ReconResult third = other.recon(sino);
  EXPECT_NE(third.recon, first.recon); // another seed, other subsets
}

// MBIRJAX's compute_prior_loss: the prior's cost only when asked (NaN otherwise), and the same recon either way.
TEST(Reconstructor, PriorLossOnlyWhenAskedAndTheSameRecon)
{
  ReconParams params = quiet();
  params.maxIterations = 3;
  params.verbose = 1;
  std::string text;
  params.logSink = [&text](const std::string & line) { text += line + "\n"; };
  Reconstructor            reconstructor(specGeometry(24), makeCpuBackend(), params);
  const std::vector<float> sino =
    reconstructor.forwardProject(sheppLoganLowDynamicRange(reconstructor.projector().reconShape()));
  const ReconResult without = reconstructor.recon(sino);
  for (const IterationLog & entry : without.log)
  {
    EXPECT_TRUE(std::isnan(entry.priorLoss));
    EXPECT_TRUE(std::isnan(entry.totalCost));
    EXPECT_TRUE(std::isfinite(entry.forwardLoss));
  }
  EXPECT_EQ(text.find("prior loss"), std::string::npos) << text;

  reconstructor.params().computePriorLoss = true;
  text.clear();
  const ReconResult with = reconstructor.recon(sino);
  for (const IterationLog & entry : with.log)
  {
    EXPECT_GT(entry.priorLoss, 0.0);
    EXPECT_GT(entry.totalCost, entry.priorLoss);
  }
  EXPECT_NE(text.find("prior loss"), std::string::npos) << text;
  EXPECT_EQ(with.recon, without.recon);
}

TEST(Reconstructor, PositivityHolds)
{
  ReconParams params = quiet();
  params.positivity = true;
  params.maxIterations = 6;
  params.sharpness = 3.0f; // little regularisation: negative values appear unless clipped
  const Reconstructor      reconstructor(specGeometry(32), makeCpuBackend(), params);
  const std::vector<float> sino = noisySheppLogan(reconstructor);
  const ReconResult positive = reconstructor.recon(sino);
  EXPECT_GE(*std::min_element(positive.recon.begin(), positive.recon.end()), -1e-6f);

  Reconstructor free(specGeometry(32), makeCpuBackend(), params);
  free.params().positivity = false;
  const ReconResult unconstrained = free.recon(sino);
  EXPECT_LT(*std::min_element(unconstrained.recon.begin(), unconstrained.recon.end()), -1e-3f);
}

// VCD keeps the error sinogram y - A x by subset updates; with positivity each subset predicts twice (before and
// after the clipping), and the prediction must start clear both times. The last iteration's forward loss, worked
// out from that running error, equals the one from the final volume.
TEST(Reconstructor, RunningErrorMatchesTheFinalVolume)
{
  for (const bool positivity : { false, true })
  {
    SCOPED_TRACE(positivity ? "positivity" : "no positivity");
    ReconParams params = quiet();
    params.positivity = positivity;
    params.maxIterations = 6;
    params.sharpness = 3.0f;      // little regularisation: the clipping acts
    params.estimateNoise = false; // sigma_y fixed, so that the log's loss and the result's sigma_y agree
    const Reconstructor      reconstructor(specGeometry(32), makeCpuBackend(), params);
    const std::vector<float> sino = noisySheppLogan(reconstructor);
    const ReconResult        result = reconstructor.recon(sino);
    const std::vector<float> fit = reconstructor.forwardProject(result.recon);
    double                   squares = 0.0;
    for (std::size_t i = 0; i < sino.size(); ++i)
    {
      squares += (double(sino[i]) - fit[i]) * (double(sino[i]) - fit[i]);
    }
    const double sigmaY = result.regularization.sigmaY;
    const double expected = std::sqrt(squares / (double(sino.size()) * sigmaY * sigmaY));
    ASSERT_FALSE(result.log.empty());
    EXPECT_NEAR(result.log.back().forwardLoss, expected, 1e-4 * expected);
  }
}

TEST(Reconstructor, ProximalMapFollowsSigmaProx)
{
  // spec/solver.md §9.4: 32 views over [0, pi), a very weak prior for the reference recon.
  ReconParams params = quiet();
  params.sharpness = 6.0f;
  params.snrDb = 60.0f;
  params.estimateNoise = false; // sigma_y from the 60 dB alone
  params.maxIterations = 20;
  params.stopThresholdChangePct = 0.01f;
  Reconstructor reconstructor(
    ParallelBeamGeometry(SinogramShape{ 32, 40, 128 }, test::evenAngles(32, M_PI)), makeCpuBackend(), params);
  const ReconShape &       shape = reconstructor.projector().reconShape();
  const std::vector<float> phantom = sheppLoganLowDynamicRange(shape);
  const std::vector<float> sino = reconstructor.forwardProject(phantom);
  std::vector<float>       proxInput = phantom;
  for (float & v : proxInput)
  {
    v += v > 0.0f ? 0.1f : 0.0f;
  }
  const ReconResult recon = reconstructor.recon(sino);
  reconstructor.params().stopThresholdChangePct = 0.2f;
  const ArrayView3 v(proxInput, shape), y(sino, reconstructor.projector().sinogramShape());

  const ReconResult tight = reconstructor.proxMap(v, y, {}, InitialImage::fromVolume(v), 1e-6f);
  EXPECT_LT(test::relativeError(tight.recon, proxInput), 2e-5);
  const ReconResult loose =
    reconstructor.proxMap(v, y, {}, InitialImage::fromVolume(ArrayView3(recon.recon, shape)), 1e6f);
  EXPECT_LT(test::relativeError(loose.recon, recon.recon), 3e-4);

  // In between, the output moves toward the input as sigma_prox shrinks.
  double previous = 1e30;
  for (const float sigma : { 1.0f, 0.1f, 0.01f, 0.001f })
  {
    const double distance = test::relativeError(reconstructor.proxMap(v, y, {}, {}, sigma).recon, proxInput);
    EXPECT_LT(distance, previous) << "sigma_prox " << sigma;
    previous = distance;
  }
}

TEST(DirectRecon, UniformDiskReconstructsToItsValue)
{
  for (const float aspect : { 1.0f, 1.9f })
  {
    ParallelBeamGeometry g(SinogramShape{ 90, 1, 64 }, test::evenAngles(90, M_PI));
    g.voxelRowAspect = aspect;
    g.autoSetReconGeometry();
    // The sinogram of a disk of radius 20 and value 1, exactly: chord lengths 2 sqrt(r^2 - u^2) averaged
    // over each channel.
    std::vector<float> sino(g.sinogramShape.size());
    for (int v = 0; v < 90; ++v)
    {
      for (int n = 0; n < 64; ++n)
      {
        double sum = 0.0;
        for (int s = 0; s < 64; ++s)
        {
          const double u = n - 31.5 + (s + 0.5) / 64.0 - 0.5;
          sum += u * u < 400.0 ? 2.0 * std::sqrt(400.0 - u * u) : 0.0;
        }
        sino[v * 64 + n] = static_cast<float>(sum / 64.0);
      }
    }
    const Projector          projector(g, makeCpuBackend());
    const std::vector<float> recon = directRecon(projector, sino);
    const ReconShape &       r = g.reconShape;
    double                   sum = 0.0;
    int                      count = 0;
    for (int i = 0; i < r.rows; ++i)
    {
      for (int j = 0; j < r.cols; ++j)
      {
        const double y = (i - 0.5 * (r.rows - 1)) * aspect, x = j - 0.5 * (r.cols - 1);
        if (x * x + y * y < 15.0 * 15.0)
        {
          sum += recon[i * r.cols + j];
          ++count;
        }
      }
    }
    EXPECT_NEAR(sum / count, 1.0, 0.01) << "row aspect " << aspect;
  }
}

TEST(Reconstructor, AutoRegularizationScales)
{
  const Reconstructor   reconstructor(specGeometry(32), makeCpuBackend(), quiet());
  const SinogramShape & s = reconstructor.projector().sinogramShape();
  std::vector<float>    sino =
    reconstructor.forwardProject(sheppLoganLowDynamicRange(reconstructor.projector().reconShape()));
  const RegularizationParams base = reconstructor.regularization(ArrayView3(sino, s));
  std::vector<float>         doubled = sino;
  for (float & v : doubled)
  {
    v *= 2.0f;
  }
  const RegularizationParams twice = reconstructor.regularization(ArrayView3(doubled, s));
  EXPECT_NEAR(twice.sigmaY, 2.0f * base.sigmaY, 1e-4f * base.sigmaY);
  EXPECT_NEAR(twice.sigmaX, 2.0f * base.sigmaX, 1e-4f * base.sigmaX);
  EXPECT_FLOAT_EQ(base.sigmaProx, base.sigmaX);

  Reconstructor other(specGeometry(32), makeCpuBackend(), quiet());
  other.params().sharpness = 2.0f;
  other.params().estimateNoise = false; // sigma_y from snr_db alone (MBIRJAX's rule)
  const RegularizationParams assumed30 = other.regularization(ArrayView3(sino, s));
  EXPECT_NEAR(assumed30.sigmaX, 2.0f * base.sigmaX, 1e-5f * base.sigmaX);
  EXPECT_GE(base.sigmaY, assumed30.sigmaY); // the measured level only ever raises sigma_y above snr_db's
  EXPECT_GT(base.measuredNoise, 0.0f);
  EXPECT_EQ(assumed30.measuredNoise, 0.0f);
  other.params().snrDb = 50.0f;
  const RegularizationParams changed = other.regularization(ArrayView3(sino, s));
  EXPECT_NEAR(changed.sigmaY, 0.1f * assumed30.sigmaY, 1e-5f * assumed30.sigmaY);

  other.params().autoRegularize = false;
  other.params().sigmaY = 3.0f;
  EXPECT_FLOAT_EQ(other.regularization(ArrayView3(sino, s)).sigmaY, 3.0f);
}

TEST(Reconstructor, WeightsAndInitialImages)
{
  // Attenuation of a realistic size (line integrals up to about 2), so that transmission weights are sane.
  const Reconstructor   reconstructor(specGeometry(32), makeCpuBackend(), quiet());
  const ReconShape &    shape = reconstructor.projector().reconShape();
  const SinogramShape & s = reconstructor.projector().sinogramShape();
  std::vector<float>    phantom = sheppLoganLowDynamicRange(shape);
  for (float & v : phantom)
  {
    v *= 0.05f;
  }
  const std::vector<float> sino = reconstructor.forwardProject(phantom);
  const double             unweighted = nrmse(reconstructor.recon(sino).recon, phantom);
  for (const char * type : { "transmission", "transmission_root", "emission" })
  {
    const std::vector<float> w = generateWeights(sino.data(), sino.size(), parseWeightType(type));
    const ReconResult        r = reconstructor.recon(ArrayView3(sino, s), ArrayView3(w, s));
    EXPECT_LT(nrmse(r.recon, phantom), 1.5 * unweighted) << type << " vs unweighted " << unweighted;
  }

  // A constant start fills every voxel; outside the ROR it is never touched.
  const ReconResult  fromConstant = reconstructor.recon(ArrayView3(sino, s), {}, InitialImage::constantValue(0.02f));
  std::vector<float> insideRecon, insidePhantom;
  const std::vector<int> & ror = reconstructor.projector().rorPixels();
  std::vector<char>        inRor(shape.numPixels(), 0);
  for (const int p : ror)
    inRor[p] = 1;
  for (std::size_t i = 0; i < shape.size(); ++i)
  {
    if (inRor[i / shape.slices])
    {
      insideRecon.push_back(fromConstant.recon[i]);
      insidePhantom.push_back(phantom[i]);
    }
    else
    {
      EXPECT_EQ(fromConstant.recon[i], 0.02f);
    }
  }
  EXPECT_LT(nrmse(insideRecon, insidePhantom), 1.5 * unweighted);

  // Starting at the truth stays close to it.
  const ReconResult fromPhantom =
    reconstructor.recon(ArrayView3(sino, s), {}, InitialImage::fromVolume(ArrayView3(phantom, shape)));
  EXPECT_LT(nrmse(fromPhantom.recon, phantom), 1.1 * unweighted);
}

TEST(Weights, Formulas)
{
  const std::vector<float> y = { 0.0f, 1.0f, -2.0f };
  EXPECT_EQ(generateWeights(y.data(), 3, WeightType::Unweighted), (std::vector<float>{ 1, 1, 1 }));
  EXPECT_FLOAT_EQ(generateWeights(y.data(), 3, WeightType::Transmission)[1], std::exp(-1.0f));
  EXPECT_FLOAT_EQ(generateWeights(y.data(), 3, WeightType::TransmissionRoot)[1], std::exp(-0.5f));
  EXPECT_FLOAT_EQ(generateWeights(y.data(), 3, WeightType::Emission)[2], 1.0f / 2.1f);
  expectInvalid([] { parseWeightType("poisson"); }, "unknown weight type 'poisson'");
}

TEST(Reconstructor, RejectsBadInputAndLeavesInputsAlone)
{
  ReconParams params = quiet();
  params.maxIterations = 1;
  const Reconstructor   reconstructor(specGeometry(8), makeCpuBackend(), params);
  const SinogramShape & s = reconstructor.projector().sinogramShape();
  const ReconShape &    r = reconstructor.projector().reconShape();
  std::vector<float>    sino = reconstructor.forwardProject(sheppLoganLowDynamicRange(r));
  std::vector<float>    weights(sino.size(), 1.0f);

  const std::vector<float> sinoCopy = sino, weightsCopy = weights;
  reconstructor.recon(ArrayView3(sino, s), ArrayView3(weights, s));
  EXPECT_EQ(sino, sinoCopy);
  EXPECT_EQ(weights, weightsCopy);

  std::vector<float> bad = sino;
  bad[(3 * 40 + 7) * 128 + 9] = std::nanf("");
  expectInvalid([&] { reconstructor.recon(ArrayView3(bad, s)); }, "NaN at (view 3, row 7, channel 9)");
  bad[(3 * 40 + 7) * 128 + 9] = INFINITY;
  expectInvalid([&] { reconstructor.recon(ArrayView3(bad, s)); }, "Inf at (view 3, row 7, channel 9)");

  std::vector<float> w = weights;
  w[5] = -0.1f;
  expectInvalid([&] { reconstructor.recon(ArrayView3(sino, s), ArrayView3(w, s)); }, "negative");
  w[5] = std::nanf("");
  expectInvalid([&] { reconstructor.recon(ArrayView3(sino, s), ArrayView3(w, s)); }, "the weights contain NaN");
  std::fill(w.begin(), w.end(), 0.0f);
  expectInvalid([&] { reconstructor.recon(ArrayView3(sino, s), ArrayView3(w, s)); }, "all zero");
  expectInvalid([&] { reconstructor.recon(ArrayView3(sino, s), ArrayView3(weights.data(), { 8, 40, 127 })); },
                "the weights has shape (8, 40, 127)");
  expectInvalid([&] { reconstructor.recon(ArrayView3(sino.data(), { 8, 41, 128 })); }, "the sinogram has shape");
  const std::vector<float> init(r.size() - 1, 0.0f);
  expectInvalid(
    [&] {
      reconstructor.recon(ArrayView3(sino, s), {}, InitialImage::fromVolume(ArrayView3(init.data(), { 127, 128, 40 })));
    },
    "the initial volume has shape (127, 128, 40)");
  expectInvalid([&] { reconstructor.recon(std::vector<float>(10, 0.0f)); }, "does not have shape");

  Reconstructor broken(specGeometry(8), makeCpuBackend(), params);
  broken.params().partitionSequence = { 0, 12 };
  expectInvalid([&] { broken.recon(sino); }, "partition_sequence entry 12");
}
