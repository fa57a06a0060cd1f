// Image quality on data no voxel model fits exactly: analytic Shepp-Logan scans (parallel and cone
// beam), and the demo-like parallel scan simulated with our own projector. Prints NRMSE against the
// phantom for the direct recon, default MBIR and MBIR at a range of sharpness values (run by hand).
//   mbir-analytic-study [parallel|cone|demo] [--sweep]

#include "AnalyticProjector.h"
#include "MBIRTestSupport.h"
#include "mbir/Metrics.h"
#include "mbir/Reconstructor.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

using namespace mbir;

namespace {

// Candidate noise statistics of the sinogram: second differences along channels and rows.
void
statistics(const Geometry & geometry, const std::vector<float> & sino)
{
  const SinogramShape s = sinogramShapeOf(geometry);
  std::vector<double> channel, row;
  double              power = 0.0;
  for (int v = 0; v < s.views; v += 6)
    for (int m = 1; m + 1 < s.rows; ++m)
      for (int n = 1; n + 1 < s.channels; ++n)
      {
        auto at = [&](int mm, int nn) { return double(sino[(std::size_t(v) * s.rows + mm) * s.channels + nn]); };
        if (at(m, n) <= 0.05 * 1.0)
          continue;
        channel.push_back(at(m, n - 1) - 2 * at(m, n) + at(m, n + 1));
        row.push_back(at(m - 1, n) - 2 * at(m, n) + at(m + 1, n));
        power += at(m, n) * at(m, n);
      }
  auto report = [&](const char * name, std::vector<double> d) {
    double sq = 0.0;
    for (double x : d)
      sq += x * x;
    for (double & x : d)
      x = std::fabs(x);
    std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
    std::cout << "  " << name << ": robust " << 1.4826 * d[d.size() / 2] / std::sqrt(6.0) << " rms "
              << std::sqrt(sq / d.size() / 6.0);
  };
  std::cout << "support rms " << std::sqrt(power / channel.size());
  report("channels", channel);
  report("rows", row);
  std::cout << "\n";
}

// Cross-validation study: every 5th view held out, sigma_y scaled from the 30 dB rule; prints the held-out
// prediction error and the NRMSE of the full-data recon at each scale.
void
crossValidation(const Geometry & geometry, const std::vector<float> & sino, const std::vector<float> & truth)
{
  ReconParams params;
  params.verbose = 0;
  params.estimateNoise = false;
  Reconstructor              reconstructor(geometry, makeCpuBackend(), params);
  const SinogramShape        s = sinogramShapeOf(geometry);
  const RegularizationParams base = reconstructor.regularization(ArrayView3(sino, s));
  const std::size_t          viewSize = std::size_t(s.rows) * s.channels;
  std::vector<float>         weights(sino.size(), 1.0f);
  for (int v = 2; v < s.views; v += 5)
    std::fill(weights.begin() + v * viewSize, weights.begin() + (v + 1) * viewSize, 0.0f);
  reconstructor.params().autoRegularize = false;
  for (const double f : { 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 16.0 })
  {
    reconstructor.params().sigmaY = static_cast<float>(f * base.sigmaY);
    reconstructor.params().sigmaX = reconstructor.params().sigmaProx = base.sigmaX;
    const std::vector<float> x = reconstructor.recon(ArrayView3(sino, s), ArrayView3(weights, s)).recon;
    const std::vector<float> ax = reconstructor.forwardProject(x);
    double                   held = 0.0, train = 0.0, nh = 0.0, nt = 0.0;
    for (std::size_t i = 0; i < sino.size(); ++i)
    {
      const double e = double(sino[i]) - ax[i];
      (weights[i] == 0.0f ? held : train) += e * e;
      (weights[i] == 0.0f ? nh : nt) += 1.0;
    }
    const double full = nrmse(reconstructor.recon(sino).recon, truth);
    std::cout << "factor " << f << "  held-out rms " << std::sqrt(held / nh) << "  train rms " << std::sqrt(train / nt)
              << "  cv-recon NRMSE " << nrmse(x, truth) << "  full NRMSE " << full << "\n";
  }
}

void
study(const Geometry & geometry, const std::vector<float> & sino, const std::vector<float> & truth, bool sweep)
{
  ReconParams params;
  params.verbose = 0;
  Reconstructor reconstructor(geometry, makeCpuBackend(), params);
  statistics(geometry, sino);
  if (std::getenv("MBIR_STUDY_CV"))
  {
    crossValidation(geometry, sino, truth);
    return;
  }
  if (std::getenv("MBIR_STUDY_STATS_ONLY"))
  {
    std::cout << reconstructor.regularization(ArrayView3(sino, sinogramShapeOf(geometry))).note << "\n";
    // Residual of the direct recon (scaled by least squares, as the solver's initial image)
    std::vector<float> x = reconstructor.directRecon(sino);
    std::vector<float> ax = reconstructor.forwardProject(x);
    double             num = 0, den = 0;
    for (std::size_t i = 0; i < ax.size(); ++i)
    {
      num += double(ax[i]) * sino[i];
      den += double(ax[i]) * ax[i];
    }
    const double scale = num / den;
    double       e2 = 0, cnt = 0, e2all = 0;
    for (std::size_t i = 0; i < ax.size(); ++i)
    {
      const double e = sino[i] - scale * ax[i];
      e2all += e * e;
      if (sino[i] > 0.05 * 10)
      {
        e2 += e * e;
        cnt += 1;
      }
    }
    std::cout << "direct-recon residual rms (shadow) " << std::sqrt(e2 / cnt) << " all " << std::sqrt(e2all / ax.size())
              << " scale " << scale << "\n";
    return;
  }
  std::cout << "direct recon NRMSE " << nrmse(reconstructor.directRecon(sino), truth) << "\n";
  auto run = [&](const std::string & label) {
    const auto        start = std::chrono::steady_clock::now();
    const ReconResult r = reconstructor.recon(sino);
    const double      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << label << " NRMSE " << nrmse(r.recon, truth) << "  sigmaY " << r.regularization.sigmaY << " sigmaX "
              << r.regularization.sigmaX << "  iterations " << r.log.size() << "  " << seconds << " s  forward loss";
    for (const IterationLog & it : r.log)
      std::cout << " " << it.forwardLoss;
    std::cout << "\n";
    if (!r.regularization.note.empty())
      std::cout << "  " << r.regularization.note << "\n";
  };
  run("MBIR default");
  if (sweep)
  {
    // MBIRJAX's rule (sigma_y from snr_db 30 alone) at its default sharpness, then a sharpness sweep with it.
    reconstructor.params().estimateNoise = false;
    run("MBIR assumed 30 dB");
    for (const float sharpness : { -2.0f, -1.5f, -1.0f, -0.5f, 0.0f, 0.5f })
    {
      reconstructor.params().sharpness = sharpness;
      run("MBIR assumed 30 dB, sharpness " + std::to_string(sharpness));
    }
  }
}

} // namespace

int
main(int argc, char ** argv)
{
  const std::string which = argc > 1 ? argv[1] : "cone";
  const bool        sweep = argc > 2 && std::strcmp(argv[2], "--sweep") == 0;
  if (which == "demo" || which == "spec" || which == "small")
  {
    // spec: the noiseless case of spec/solver.md 9.1
    ParallelBeamGeometry g =
      which == "demo"    ? ParallelBeamGeometry(SinogramShape{ 128, 64, 128 }, test::evenAngles(128, M_PI))
      : which == "small" ? ParallelBeamGeometry(SinogramShape{ 64, 16, 64 }, test::evenAngles(64, M_PI))
                         : ParallelBeamGeometry(SinogramShape{ 64, 40, 128 }, test::evenAngles(64, M_PI, -M_PI / 2));
    ReconParams quiet;
    quiet.verbose = 0;
    const Reconstructor      projector(g, makeCpuBackend(), quiet);
    const std::vector<float> phantom = sheppLoganLowDynamicRange(g.reconShape);
    std::vector<float>       sino = projector.forwardProject(phantom);
    const char *             snr = std::getenv("MBIR_STUDY_SNR_DB");
    if (which != "spec")
      test::addGaussianNoise(sino, snr ? std::atof(snr) : 30.0, 1);
    study(g, sino, phantom, sweep);
    return 0;
  }
  const int          views = 120, n = 64;
  std::vector<float> sino, truth;
  Geometry           geometry;
  if (which == "parallel")
  {
    ParallelBeamGeometry        g(SinogramShape{ views, n, n }, test::evenAngles(views, M_PI));
    const test::AnalyticPhantom phantom(g);
    sino = test::analyticProjection(g, phantom);
    truth = phantom.sampled();
    geometry = g;
  }
  else
  {
    ConeBeamGeometry            g(SinogramShape{ views, n, n }, test::evenAngles(views, 2 * M_PI), 4.0f * n, 2.0f * n);
    const test::AnalyticPhantom phantom(g, g.reconSliceOffset);
    sino = test::analyticProjection(g, phantom);
    truth = phantom.sampled();
    geometry = g;
  }
  {
    ReconParams quiet;
    quiet.verbose = 0;
    const Reconstructor projector(geometry, makeCpuBackend(), quiet);
    std::cout << which << ": analytic vs voxel-model projection of the engine phantom, NRMSE "
              << nrmse(projector.forwardProject(sheppLoganLowDynamicRange(reconShapeOf(geometry))), sino)
              << "; of the sub-voxel phantom " << nrmse(projector.forwardProject(truth), sino) << "\n";
  }
  if (std::getenv("MBIR_STUDY_MODEL_DATA")) // the same object projected by our own voxel model instead
  {
    ReconParams quiet;
    quiet.verbose = 0;
    sino = Reconstructor(geometry, makeCpuBackend(), quiet).forwardProject(truth);
  }
  const double snrDb = std::getenv("MBIR_STUDY_SNR_DB") ? std::atof(std::getenv("MBIR_STUDY_SNR_DB")) : 29.0;
  if (snrDb > 0)
    test::addPoissonLikeNoise(sino, snrDb, 1);
  study(geometry, sino, truth, sweep);
  return 0;
}
