#include "Vcd.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <numeric>

namespace mbir::detail {

kernels::QGGMRFParams
makeQGGMRFParams(float sigmaX, float p, float q, float T, const std::array<float, 3> & neighbourWeights)
{
  kernels::QGGMRFParams prior{};
  prior.sigmaX = sigmaX;
  prior.p = p;
  prior.q = q;
  prior.T = T;
  kernels::neighbourWeights(neighbourWeights[0], neighbourWeights[1], neighbourWeights[2], prior.b);
  return prior;
}

std::function<void(const std::string &)>
makeLog(const std::function<void(const std::string &)> & sink, std::string & text)
{
  return [&sink, &text](const std::string & line) {
    text += line + "\n";
    if (sink)
      sink(line);
    else
      std::cout << line << std::endl;
  };
}

double
priorCost(Backend & backend, const ReconShape & shape, const float * volume, const PriorTerm & prior)
{
  if (!prior.proxInput)
  {
    return backend.qggmrfCost(prior.qggmrf, volume, shape, kernels::SliceShard{ 0, shape.slices }, nullptr);
  }
  DeviceArray<float> difference = backend.allocate<float>(shape.size());
  backend.copy(volume, difference.data(), shape.size());
  backend.axpby(-1.0f, prior.proxInput, 1.0f, difference.data(), shape.size());
  const double squared = backend.weightedProducts(difference.data(), difference.data(), nullptr, shape.size()).bb;
  return squared / (2.0 * double(prior.sigmaProx) * prior.sigmaProx);
}

VcdOutcome
runVcd(Backend &                                          backend,
       const ReconShape &                                 shape,
       float *                                            volume,
       DataTerm &                                         data,
       const PriorTerm &                                  prior,
       const std::vector<std::vector<DeviceArray<int>>> & partitions,
       const std::vector<int> &                           schedule,
       const VcdSettings &                                settings,
       std::mt19937_64 &                                  random)
{
  const int   slices = shape.slices;
  std::size_t largest = 0;
  for (const auto & partition : partitions)
  {
    for (const DeviceArray<int> & subset : partition)
    {
      largest = std::max(largest, subset.size());
    }
  }
  const std::size_t  scratch = largest * slices;
  DeviceArray<float> gradient = backend.allocate<float>(scratch);
  DeviceArray<float> dataHessian = backend.allocate<float>(scratch);
  DeviceArray<float> priorGradient = backend.allocate<float>(scratch);
  DeviceArray<float> priorHessian = backend.allocate<float>(scratch);
  DeviceArray<float> delta = backend.allocate<float>(scratch);
  DeviceArray<float> current = backend.allocate<float>(settings.positivity ? scratch : 0);
  const float        proxScale = 1.0f / (prior.sigmaProx * prior.sigmaProx);

  // Progress counts subsets over the whole schedule; an early stop jumps to 1.
  std::size_t totalSubsets = 0, subsetsDone = 0;
  for (const int p : schedule)
  {
    totalSubsets += partitions[p].size();
  }
  auto report = [&settings, &totalSubsets](double done) {
    if (settings.progress && !settings.progress(totalSubsets ? std::min(1.0, done / totalSubsets) : 1.0))
    {
      throw Aborted();
    }
  };

  VcdOutcome outcome;
  for (std::size_t iteration = 0; iteration < schedule.size(); ++iteration)
  {
    const auto                            start = std::chrono::steady_clock::now();
    const std::vector<DeviceArray<int>> & partition = partitions[schedule[iteration]];
    std::vector<int>                      order(partition.size());
    std::iota(order.begin(), order.end(), 0);
    if (settings.shuffleSubsets)
    {
      std::shuffle(order.begin(), order.end(), random);
    }

    double changed = 0.0, alphaSum = 0.0;
    for (const int s : order)
    {
      const CylinderBatch subset{ partition[s].data(), static_cast<int>(partition[s].size()), slices };
      const std::size_t   n = partition[s].size() * slices;

      if (prior.proxInput)
      {
        backend.gatherCylinders(volume, subset, priorGradient.data());
        backend.gatherCylinders(prior.proxInput, subset, priorHessian.data());
        backend.axpby(-proxScale, priorHessian.data(), proxScale, priorGradient.data(), n);
        backend.fill(proxScale, priorHessian.data(), n);
      }
      else
      {
        backend.qggmrfGradientHessian(prior.qggmrf,
                                      volume,
                                      shape,
                                      kernels::SliceShard{ 0, shape.slices },
                                      subset,
                                      nullptr,
                                      nullptr,
                                      priorGradient.data(),
                                      priorHessian.data());
      }

      bool hessianIsOne = false;
      data.gradient(subset, gradient.data(), dataHessian.data(), hessianIsOne);
      const Backend::DirectionSums priorSums = backend.vcdDirection(settings.dataScale,
                                                                    gradient.data(),
                                                                    hessianIsOne ? nullptr : dataHessian.data(),
                                                                    priorGradient.data(),
                                                                    priorHessian.data(),
                                                                    n,
                                                                    delta.data());

      const Backend::WeightedProducts forward = data.predict(subset, delta.data());
      const double                    linear = settings.dataScale * forward.ab - priorSums.priorLinear;
      const double                    quadratic = settings.dataScale * forward.bb + priorSums.priorQuadratic;
      double                          alpha = linear / (quadratic + kernels::kFloatEpsilon);
      alpha = std::clamp(alpha, double(kernels::kFloatEpsilon), double(settings.maxOverrelaxation));
      if (!std::isfinite(alpha))
      {
        alpha = kernels::kFloatEpsilon; // a degenerate subset (no signal, no prior curvature) does not move
      }

      if (settings.positivity)
      {
        backend.gatherCylinders(volume, subset, current.data());
        backend.clipForPositivity(current.data(), static_cast<float>(alpha), n, delta.data());
        data.predict(subset, delta.data());
      }
      changed += backend.scatterAddCylinders(static_cast<float>(alpha), delta.data(), subset, volume);
      data.update(subset, static_cast<float>(alpha));
      alphaSum += alpha;
      report(double(++subsetsDone));
    }

    IterationLog entry;
    entry.iteration = static_cast<int>(iteration);
    entry.numSubsets = static_cast<int>(partition.size());
    const double volumeL1 = backend.sumAbs(volume, shape.size());
    entry.changePct = volumeL1 > 0 ? 100.0 * changed / volumeL1 : 0.0;
    const double errorSquared = data.weightedErrorSquared();
    entry.forwardLoss =
      std::sqrt(settings.dataScale * errorSquared / (data.numData() * std::max(data.meanWeight(), 1e-30)));
    const double prior_ = priorCost(backend, shape, volume, prior);
    entry.priorLoss = prior_ / double(shape.size());
    entry.totalCost = 0.5 * settings.dataScale * errorSquared + prior_;
    entry.alpha = alphaSum / std::max<std::size_t>(partition.size(), 1);
    entry.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    outcome.log.push_back(entry);

    if (settings.verbose >= 1 && settings.log)
    {
      char line[256];
      std::snprintf(line,
                    sizeof line,
                    "Iteration %d/%zu: change %.4f%%, forward loss %.4f, prior loss %.4g, alpha %.3f, %d subsets, "
                    "%.2f s",
                    entry.iteration + 1,
                    schedule.size(),
                    entry.changePct,
                    entry.forwardLoss,
                    entry.priorLoss,
                    entry.alpha,
                    entry.numSubsets,
                    entry.seconds);
      settings.log(line);
    }
    if (entry.changePct < settings.stopThresholdChangePct)
    {
      report(double(totalSubsets));
      outcome.stoppedOnThreshold = true;
      if (settings.verbose >= 1 && settings.log)
      {
        settings.log("Stopping: the change fell below " + std::to_string(settings.stopThresholdChangePct) + "%");
      }
      break;
    }
  }
  return outcome;
}

} // namespace mbir::detail
