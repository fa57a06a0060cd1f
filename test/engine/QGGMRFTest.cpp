// The qGGMRF prior against the spec's reference values (spec/solver.md §9.2), its surrogate coefficient
// against its definition, and the full MBIR cost's gradient against finite differences.

#include "MBIRTestSupport.h"
#include "mbir/Projector.h"
#include "mbir/kernels/QGGMRF.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace mbir;

namespace {

kernels::QGGMRFParams
makePrior(float sigmaX, float p, float q, float T)
{
  kernels::QGGMRFParams prior{};
  prior.sigmaX = sigmaX;
  prior.p = p;
  prior.q = q;
  prior.T = T;
  kernels::neighbourWeights(1.0f, 1.0f, 1.0f, prior.b);
  return prior;
}

std::vector<int>
iota(int n)
{
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

} // namespace

TEST(QGGMRF, GradientAndHessianMatchSpecReference)
{
  const kernels::QGGMRFParams prior =
    makePrior(0.6448831829968968f, 1.5488135039273248f, 0.9051430741921472f, 1.102763376071644f);
  const std::vector<float> volume = { 0.4236548f,  0.64589411f, 0.43758721f, 0.891773f,   0.96366276f, 0.38344152f,
                                      0.79172504f, 0.52889492f, 0.56804456f, 0.92559664f, 0.07103606f, 0.0871293f,
                                      0.0202184f,  0.83261985f, 0.77815675f, 0.87001215f, 0.97861834f, 0.79915856f,
                                      0.46147936f, 0.78052918f, 0.11827443f, 0.63992102f, 0.14335329f, 0.94466892f,
                                      0.52184832f, 0.41466194f, 0.26455561f };
  const std::vector<float> expectedGradient = { -0.28758478f, 0.17966035f,  0.06372651f,  0.21930355f, 0.42724127f,
                                                -0.33447355f, -0.03735046f, -0.3333393f,  0.04014717f, 0.4248102f,
                                                -0.4625442f,  -0.21327719f, -0.54877305f, 0.2317356f,  0.04053728f,
                                                0.19778192f,  0.42639467f,  0.14354284f,  -0.2730683f, 0.41404432f,
                                                -0.17601134f, 0.3569668f,   -0.5147747f,  0.40523687f, -0.09706858f,
                                                -0.00686641f, -0.2859974f };
  const std::vector<float> expectedHessian = {
    1530.8113f, 1021.26227f, 1531.6426f,  1021.8176f, 512.0654f,  1021.831f,  1531.7743f,  1021.9556f,  1531.9774f,
    1020.6803f, 512.4941f,   1023.63727f, 510.69043f, 2.4552107f, 513.4677f,  1021.80176f, 511.99084f,  1022.6514f,
    1530.9652f, 1020.7792f,  1531.6259f,  1021.4198f, 510.99796f, 1020.9037f, 1531.5032f,  1021.65314f, 1530.8649f
  };
  const auto             cpu = makeCpuBackend();
  const std::vector<int> pixels = iota(9);
  std::vector<float>     gradient(27), hessian(27);
  cpu->qggmrfGradientHessian(prior,
                             volume.data(),
                             ReconShape{ 3, 3, 3 },
                             kernels::SliceShard{ 0, 3 },
                             CylinderBatch{ pixels.data(), 9, 3 },
                             nullptr,
                             nullptr,
                             gradient.data(),
                             hessian.data());
  for (int i = 0; i < 27; ++i)
  {
    EXPECT_NEAR(gradient[i], expectedGradient[i], 1e-8 + 1e-5 * std::fabs(expectedGradient[i])) << i;
    EXPECT_NEAR(hessian[i], expectedHessian[i], 1e-8 + 1e-5 * std::fabs(expectedHessian[i])) << i;
  }
}

// The CPU backend's cylinder loop (SIMD lanes over the bulk of the slices, slice pairs' coefficients shared between
// their two voxels, p = 2 known at compile time where it holds) against the per-voxel kernel, on scattered cylinders
// at the volume's sides and within it, with p = 2 and p != 2.
TEST(QGGMRF, CpuCylinderLoopMatchesTheVoxelKernel)
{
  const ReconShape         shape{ 5, 6, 37 };
  const std::vector<float> volume = test::uniformRandom(shape.size(), 11, -1.0f, 2.0f);
  const std::vector<int>   pixels = { 0, 29, 7, 14, 23, 5, 18 }; // corners, sides and the middle, out of order
  const auto               cpu = makeCpuBackend();
  for (const kernels::QGGMRFParams & prior : { makePrior(0.3f, 2.0f, 1.2f, 1.0f), makePrior(0.5f, 1.6f, 1.1f, 0.8f) })
  {
    SCOPED_TRACE("p = " + std::to_string(prior.p));
    std::vector<float> gradient(pixels.size() * shape.slices), hessian(gradient.size());
    cpu->qggmrfGradientHessian(prior,
                               volume.data(),
                               shape,
                               kernels::SliceShard{ 0, shape.slices },
                               CylinderBatch{ pixels.data(), int(pixels.size()), shape.slices },
                               nullptr,
                               nullptr,
                               gradient.data(),
                               hessian.data());
    for (std::size_t b = 0; b < pixels.size(); ++b)
    {
      const int row = pixels[b] / shape.cols, col = pixels[b] % shape.cols;
      auto      at = [&](int r, int c, int k) { return volume[(std::size_t(r) * shape.cols + c) * shape.slices + k]; };
      for (int k = 0; k < shape.slices; ++k)
      {
        const float x = at(row, col, k);
        auto        nbr = [&](int r, int c, int kk) {
          const bool inside = r >= 0 && r < shape.rows && c >= 0 && c < shape.cols && kk >= 0 && kk < shape.slices;
          return inside ? at(r, c, kk) : x; // a missing neighbour is the voxel itself
        };
        float g = 0.0f, h = 0.0f;
        kernels::qggmrfGradientHessian(x,
                                       nbr(row + 1, col, k),
                                       nbr(row - 1, col, k),
                                       nbr(row, col + 1, k),
                                       nbr(row, col - 1, k),
                                       nbr(row, col, k + 1),
                                       nbr(row, col, k - 1),
                                       kernels::qggmrfTerms(prior),
                                       g,
                                       h);
        const std::size_t i = b * shape.slices + k;
        EXPECT_NEAR(gradient[i], g, 1e-5f * h) << "pixel " << pixels[b] << ", slice " << k;
        EXPECT_NEAR(hessian[i], h, 1e-5f * h) << "pixel " << pixels[b] << ", slice " << k;
      }
    }
  }
}

TEST(QGGMRF, SurrogateCoefficientMatchesDefinition)
{
  std::mt19937                          engine(7);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int trial = 0; trial < 20; ++trial)
  {
    const float p = 1.0f + u(engine), q = p - 0.9f * u(engine), T = 0.5f + u(engine), sigma = 0.1f + u(engine);
    const kernels::QGGMRFParams prior = makePrior(sigma, p, q, T);
    for (int i = 0; i < 10; ++i)
    {
      const double delta = 0.1 + u(engine);
      // btilde(delta) = rho'(delta) / (2 delta), written out from the potential.
      const double s = delta / (T * sigma);
      const double r = std::pow(s, q - p);
      const double byDefinition =
        std::pow(delta, p - 2.0) / (2.0 * std::pow(sigma, p)) * r * (q / p + r) / ((1.0 + r) * (1.0 + r));
      EXPECT_NEAR(kernels::qggmrfTwoBTilde(float(delta), prior) / 2.0, byDefinition, 1e-5 * byDefinition);
      // ... and equals rho'(delta) / (2 delta) by central differences of the potential.
      const double h = 1e-3 * delta;
      const double derivative =
        (kernels::qggmrfPotential(float(delta + h), prior) - kernels::qggmrfPotential(float(delta - h), prior)) /
        (2 * h);
      EXPECT_NEAR(derivative / (2.0 * delta), byDefinition, 2e-3 * byDefinition);
    }
  }
}

TEST(QGGMRF, FullCostGradientMatchesFiniteDifferences)
{
  // cost(x) = 1/(2 sigma_y^2) ||y - A x||_W^2 + h(x); gradient = -A^T W (y - A x) / sigma_y^2 + grad h.
  ParallelBeamGeometry g(SinogramShape{ 9, 4, 12 }, test::evenAngles(9, M_PI, 0.1));
  g.rorMask = RorMask::none();
  const auto                  cpu = makeCpuBackend();
  const Projector             projector(g, cpu);
  const ReconShape &          shape = projector.reconShape();
  const kernels::QGGMRFParams prior = makePrior(0.3f, 2.0f, 1.2f, 1.0f);
  const float                 sigmaY = 0.7f;
  const std::vector<float>    y = test::uniformRandom(projector.sinogramShape().size(), 1, 0.0f, 5.0f);
  const std::vector<float>    w = test::uniformRandom(y.size(), 2, 0.5f, 1.5f);
  const std::vector<float>    x = test::uniformRandom(shape.size(), 3);
  const std::vector<float>    d = test::uniformRandom(shape.size(), 4, -1.0f, 1.0f);
  const std::vector<int>      all = iota(static_cast<int>(shape.numPixels()));

  auto cost = [&](const std::vector<float> & v) {
    const std::vector<float> ax = projector.sparseForwardProject(v.data(), all);
    double                   data = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i)
    {
      data += w[i] * (double(y[i]) - ax[i]) * (double(y[i]) - ax[i]);
    }
    return data / (2.0 * sigmaY * sigmaY) +
           cpu->qggmrfCost(prior, v.data(), shape, kernels::SliceShard{ 0, shape.slices }, nullptr);
  };
  const std::vector<float> ax = projector.sparseForwardProject(x.data(), all);
  std::vector<float>       weightedError(y.size());
  for (std::size_t i = 0; i < y.size(); ++i)
  {
    weightedError[i] = w[i] * (y[i] - ax[i]);
  }
  const std::vector<float> back = projector.sparseBackProject(weightedError.data(), all);
  std::vector<float>       priorGradient(shape.size()), priorHessian(shape.size());
  cpu->qggmrfGradientHessian(prior,
                             x.data(),
                             shape,
                             kernels::SliceShard{ 0, shape.slices },
                             CylinderBatch{ all.data(), int(all.size()), shape.slices },
                             nullptr,
                             nullptr,
                             priorGradient.data(),
                             priorHessian.data());
  double directional = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i)
  {
    directional += (-back[i] / (sigmaY * sigmaY) + priorGradient[i]) * double(d[i]);
  }

  const float        step = 1e-2f;
  std::vector<float> plus = x, minus = x;
  for (std::size_t i = 0; i < x.size(); ++i)
  {
    plus[i] += step * d[i];
    minus[i] -= step * d[i];
  }
  const double finite = (cost(plus) - cost(minus)) / (2.0 * step);
  EXPECT_NEAR(finite, directional, 1e-3 * std::fabs(directional));
}

// The vectorisable power the prior uses on the CPU against the library's, over the bases and exponents the prior
// meets (s from float epsilon to 1e6, exponents q - p, q - 2, p - 2 and p) and beyond.
TEST(PositivePow, AgreesWithPowOverThePriorsRange)
{
  double worst = 0.0;
  for (const float y : { -1.9f, -1.0f, -0.8f, -0.5f, 0.0f, 0.2f, 1.0f, 1.2f, 2.0f, 3.5f })
  {
    for (double x = 1e-7; x < 1e7; x *= 1.0137)
    {
      const float  xf = static_cast<float>(x);
      const double exact = std::pow(double(xf), double(y));
      const double error = std::fabs(kernels::positivePow(xf, y) - exact) / exact;
      const double bound = 1e-6 * (1.0 + std::fabs(y * std::log2(double(xf))));
      EXPECT_LE(error, bound) << xf << "^" << y;
      worst = std::max(worst, error / bound);
    }
  }
  EXPECT_EQ(kernels::positivePow(1.0f, -0.8f), 1.0f);
  EXPECT_EQ(kernels::positivePow(0.0f, 2.0f), 0.0f); // underflows to 0
  EXPECT_TRUE(std::isinf(kernels::positivePow(0.0f, -0.8f)) || kernels::positivePow(0.0f, -0.8f) > 1e30f);
  RecordProperty("worst_error_over_bound", std::to_string(worst));
}
