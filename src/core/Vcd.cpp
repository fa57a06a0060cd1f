#include "Vcd.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <sstream>

namespace mbir::detail {
namespace {

// Per-device scratch of n floats each.
PerDevice<DeviceArray<float>>
allocateEach(const DeviceGroup & group, std::size_t n)
{
  PerDevice<DeviceArray<float>> arrays;
  for (int d = 0; d < group.size(); ++d)
  {
    arrays.push_back(group.device(d).allocate<float>(n));
  }
  return arrays;
}

template<typename T>
PerDevice<T *>
pointers(PerDevice<DeviceArray<T>> & arrays)
{
  PerDevice<T *> p;
  for (auto & a : arrays)
    p.push_back(a.data());
  return p;
}

template<typename T>
PerDevice<const T *>
constPointers(PerDevice<DeviceArray<T>> & arrays)
{
  PerDevice<const T *> p;
  for (auto & a : arrays)
    p.push_back(a.data());
  return p;
}

// The slices just outside each device's shard at the subset's cylinders: below[d] holds the last slice of
// device d-1, above[d] the first slice of device d+1 (unused where the volume ends or only padding
// follows). Exchanged before every subset, so the prior sees exactly the values of one device.
struct Halos
{
  PerDevice<DeviceArray<float>> below, above, staging;

  Halos(const DeviceGroup & group, std::size_t pixels)
    : below(allocateEach(group, group.size() > 1 ? pixels : 0))
    , above(allocateEach(group, group.size() > 1 ? pixels : 0))
    , staging(allocateEach(group, group.size() > 1 ? pixels : 0))
  {}

  void
  exchange(const VcdVolume & volume, const PerDevice<CylinderBatch> & subset)
  {
    Communicator &      comm = volume.group->communicator();
    const std::size_t   count = static_cast<std::size_t>(subset[0].numPixels);
    const ShardLayout & s = volume.slices;
    for (int d = 0; d + 1 < volume.size(); ++d)
    {
      if (s.valid(d + 1) == 0)
      {
        break; // only padding from here on
      }
      volume.group->device(d).gatherSlice(volume.shards[d], subset[d], s.perDevice - 1, staging[d].data());
      comm.copy(d, staging[d].data(), d + 1, below[d + 1].data(), count);
      volume.group->device(d + 1).gatherSlice(volume.shards[d + 1], subset[d + 1], 0, staging[d + 1].data());
      comm.copy(d + 1, staging[d + 1].data(), d, above[d].data(), count);
    }
  }

  const float *
  belowOf(const VcdVolume & volume, int d) const
  {
    return d > 0 && volume.slices.valid(d) > 0 ? below[d].data() : nullptr;
  }
  const float *
  aboveOf(const VcdVolume & volume, int d) const
  {
    return d + 1 < volume.size() && volume.slices.valid(d + 1) > 0 ? above[d].data() : nullptr;
  }
};

} // namespace

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
priorCost(const VcdVolume & volume, const PriorTerm & prior)
{
  const int           n = volume.size();
  const ShardLayout & s = volume.slices;
  std::vector<double> costs(n, 0.0);
  for (int d = 0; d < n; ++d)
  {
    Backend &         device = volume.group->device(d);
    const std::size_t size = volume.shardShape().size();
    if (prior.proxInput.empty())
    {
      // The pairs across the shard's upper end need the next device's first slice.
      DeviceArray<float> abovePlane;
      if (d + 1 < n && s.valid(d + 1) > 0)
      {
        Backend & next = volume.group->device(d + 1);
        abovePlane = device.allocate<float>(volume.shape.numPixels());
        DeviceArray<float> staging = next.allocate<float>(volume.shape.numPixels());
        next.gatherSlice(volume.shards[d + 1], volume.all[d + 1], 0, staging.data());
        volume.group->communicator().copy(d + 1, staging.data(), d, abovePlane.data(), abovePlane.size());
      }
      costs[d] = device.qggmrfCost(prior.qggmrf,
                                   volume.shards[d],
                                   volume.shardShape(),
                                   kernels::SliceShard{ s.first(d), s.real },
                                   abovePlane.empty() ? nullptr : abovePlane.data());
      continue;
    }
    DeviceArray<float> difference = device.allocate<float>(size);
    device.copy(volume.shards[d], difference.data(), size);
    device.axpby(-1.0f, prior.proxInput[d], 1.0f, difference.data(), size);
    costs[d] = device.weightedProducts(difference.data(), difference.data(), nullptr, size).bb /
               (2.0 * double(prior.sigmaProx) * prior.sigmaProx);
  }
  return volume.group->communicator().allReduceSum(costs);
}

VcdOutcome
runVcd(VcdVolume &              volume,
       DataTerm &               data,
       const PriorTerm &        prior,
       const Partitions &       partitions,
       const std::vector<int> & schedule,
       const VcdSettings &      settings,
       std::mt19937_64 &        random)
{
  const int           n = volume.size();
  const DeviceGroup & group = *volume.group;
  Communicator &      comm = group.communicator();
  const int           perDevice = volume.slices.perDevice;
  std::size_t         largest = 0;
  for (const auto & partition : partitions)
  {
    for (const auto & subset : partition)
    {
      largest = std::max(largest, subset[0].size());
    }
  }
  const std::size_t             scratch = largest * perDevice;
  PerDevice<DeviceArray<float>> gradient = allocateEach(group, scratch);
  PerDevice<DeviceArray<float>> dataHessian = allocateEach(group, scratch);
  PerDevice<DeviceArray<float>> priorGradient = allocateEach(group, scratch);
  PerDevice<DeviceArray<float>> priorHessian = allocateEach(group, scratch);
  PerDevice<DeviceArray<float>> delta = allocateEach(group, scratch);
  PerDevice<DeviceArray<float>> current = allocateEach(group, settings.positivity ? scratch : 0);
  Halos                         halos(group, prior.proxInput.empty() ? largest : 0);
  const float                   proxScale = 1.0f / (prior.sigmaProx * prior.sigmaProx);

  const SolverState & start = settings.start;
  const auto          startIteration = static_cast<std::size_t>(start.iteration);
  if (!start.randomState.empty())
  {
    std::istringstream(start.randomState) >> random;
  }

  VcdOutcome outcome;
  outcome.log = start.log;
  outcome.sigmaYFactor = start.sigmaYFactor;
  float dataScale = static_cast<float>(settings.dataScale / (start.sigmaYFactor * start.sigmaYFactor));
  bool  fitTested = start.fitTested || !settings.fitTest;
  // What a checkpoint saves: the generator as it was before the running iteration's shuffle.
  std::string randomBefore;
  auto        stateAt = [&](std::size_t iteration, std::size_t done, double changed, double alphaSum) {
    SolverState now;
    now.iteration = static_cast<int>(iteration);
    now.subsetsDone = static_cast<int>(done);
    now.changed = changed;
    now.alphaSum = alphaSum;
    now.randomState = randomBefore;
    now.log = outcome.log;
    now.sigmaYFactor = outcome.sigmaYFactor;
    now.fitTested = fitTested;
    return now;
  };
  // Progress: every iteration an equal share, since each visits every voxel once (a whole-volume forward and back
  // projection) whether in 1 subset or 128, and within it the subsets done; an early stop jumps to 1. (Counted by
  // subsets, the first half of the time showed as a tenth, and the time left was overstated tenfold.)
  auto report = [&](std::size_t iteration, std::size_t done, std::size_t subsets) {
    const double fraction = (double(iteration) + double(done) / double(subsets)) / double(schedule.size());
    return !settings.progress || settings.progress(std::min(1.0, fraction));
  };
  auto keepRandom = [&] {
    if (settings.checkpoint)
    {
      std::ostringstream text;
      text << random;
      randomBefore = text.str();
    }
  };

  for (std::size_t iteration = startIteration; iteration < schedule.size(); ++iteration)
  {
    const auto                                       begin = std::chrono::steady_clock::now();
    const std::vector<PerDevice<DeviceArray<int>>> & partition = partitions[schedule[iteration]];
    std::vector<int>                                 order(partition.size());
    std::iota(order.begin(), order.end(), 0);
    keepRandom();
    if (settings.shuffleSubsets)
    {
      std::shuffle(order.begin(), order.end(), random);
    }
    const bool resuming = iteration == startIteration;
    double     changed = resuming ? start.changed : 0.0, alphaSum = resuming ? start.alphaSum : 0.0;
    for (std::size_t position = resuming ? static_cast<std::size_t>(start.subsetsDone) : 0; position < order.size(); ++position)
    {
      const int                s = order[position];
      PerDevice<CylinderBatch> subset;
      for (int d = 0; d < n; ++d)
      {
        subset.push_back(CylinderBatch{
          partition[s][d].data(), static_cast<int>(partition[s][d].size()), perDevice, volume.slices.first(d) });
      }
      const std::size_t count = partition[s][0].size() * perDevice;

      if (prior.proxInput.empty())
      {
        if (n > 1)
        {
          halos.exchange(volume, subset);
        }
        for (int d = 0; d < n; ++d)
        {
          group.device(d).qggmrfGradientHessian(prior.qggmrf,
                                                volume.shards[d],
                                                volume.shardShape(),
                                                kernels::SliceShard{ volume.slices.first(d), volume.slices.real },
                                                subset[d],
                                                halos.belowOf(volume, d),
                                                halos.aboveOf(volume, d),
                                                priorGradient[d].data(),
                                                priorHessian[d].data());
        }
      }
      else
      {
        for (int d = 0; d < n; ++d)
        {
          Backend & device = group.device(d);
          device.gatherCylinders(volume.shards[d], subset[d], priorGradient[d].data());
          device.gatherCylinders(prior.proxInput[d], subset[d], priorHessian[d].data());
          device.axpby(-proxScale, priorHessian[d].data(), proxScale, priorGradient[d].data(), count);
          device.fill(proxScale, priorHessian[d].data(), count);
        }
      }

      bool hessianIsOne = false;
      data.gradient(subset, pointers(gradient), pointers(dataHessian), hessianIsOne);
      std::vector<double> linearTerms(n), priorQuadraticTerms(n);
      for (int d = 0; d < n; ++d)
      {
        const Backend::DirectionSums sums = group.device(d).vcdDirection(dataScale,
                                                                         gradient[d].data(),
                                                                         hessianIsOne ? nullptr : dataHessian[d].data(),
                                                                         priorGradient[d].data(),
                                                                         priorHessian[d].data(),
                                                                         count,
                                                                         delta[d].data());
        linearTerms[d] = sums.linear;
        priorQuadraticTerms[d] = sums.priorQuadratic;
      }
      const double linear = comm.allReduceSum(linearTerms);
      const double priorQuadratic = comm.allReduceSum(priorQuadraticTerms);

      data.predict(subset, constPointers(delta));
      const double quadratic = dataScale * data.predictedNorm() + priorQuadratic;
      double       alpha = linear / (quadratic + kernels::kFloatEpsilon);
      alpha = std::clamp(alpha, double(kernels::kFloatEpsilon), double(settings.maxOverrelaxation));
      if (!std::isfinite(alpha))
      {
        alpha = kernels::kFloatEpsilon; // a degenerate subset (no signal, no prior curvature) does not move
      }

      if (settings.positivity)
      {
        for (int d = 0; d < n; ++d)
        {
          group.device(d).gatherCylinders(volume.shards[d], subset[d], current[d].data());
          group.device(d).clipForPositivity(current[d].data(), static_cast<float>(alpha), count, delta[d].data());
        }
        data.predict(subset, constPointers(delta));
      }
      std::vector<double> steps(n);
      for (int d = 0; d < n; ++d)
      {
        steps[d] =
          group.device(d).scatterAddCylinders(static_cast<float>(alpha), delta[d].data(), subset[d], volume.shards[d]);
      }
      changed += comm.allReduceSum(steps);
      data.update(subset, static_cast<float>(alpha));
      alphaSum += alpha;
      if (!report(iteration, position + 1, order.size()))
      {
        if (settings.checkpoint)
          settings.checkpoint(stateAt(iteration, position + 1, changed, alphaSum));
        data.settle(); // the error as the volume left it
        throw Aborted();
      }
    }

    IterationLog entry;
    entry.iteration = static_cast<int>(iteration);
    entry.numSubsets = static_cast<int>(partition.size());
    std::vector<double> norms(n);
    for (int d = 0; d < n; ++d)
    {
      norms[d] = group.device(d).sumAbs(volume.shards[d], volume.shardShape().size());
    }
    const double volumeL1 = comm.allReduceSum(norms);
    entry.changePct = volumeL1 > 0 ? 100.0 * changed / volumeL1 : 0.0;
    const double errorSquared = data.weightedErrorSquared();
    entry.forwardLoss =
      std::sqrt(dataScale * errorSquared / (data.numData() * std::max(data.meanWeight(), 1e-30)));
    const double prior_ = settings.computePriorLoss ? priorCost(volume, prior) : std::nan("");
    entry.priorLoss = prior_ / double(volume.shape.size());
    entry.totalCost = 0.5 * dataScale * errorSquared + prior_;
    entry.alpha = alphaSum / std::max<std::size_t>(partition.size(), 1);
    entry.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    outcome.log.push_back(entry);
    if (settings.iterationDone)
      settings.iterationDone(entry);

    if (settings.verbose >= 1 && settings.log)
    {
      char priorLoss[48] = "";
      if (settings.computePriorLoss)
      {
        std::snprintf(priorLoss, sizeof priorLoss, ", prior loss %.4g", entry.priorLoss);
      }
      char line[256];
      std::snprintf(line,
                    sizeof line,
                    "Iteration %d/%zu: change %.4f%%, forward loss %.4f%s, alpha %.3f, %d subsets, %.2f s",
                    entry.iteration + 1,
                    schedule.size(),
                    entry.changePct,
                    entry.forwardLoss,
                    priorLoss,
                    entry.alpha,
                    entry.numSubsets,
                    entry.seconds);
      settings.log(line);
    }
    bool stop = entry.changePct < settings.stopThresholdChangePct;
    if (!fitTested && (stop || int(iteration) >= settings.fitTestIteration) && iteration + 1 < schedule.size())
    {
      fitTested = true;
      outcome.sigmaYFactor = settings.fitTest(entry);
      if (outcome.sigmaYFactor != 1.0)
      {
        dataScale = static_cast<float>(settings.dataScale / (outcome.sigmaYFactor * outcome.sigmaYFactor));
        stop = false; // the problem changed: not converged
      }
    }
    if (stop)
    {
      report(schedule.size(), 0, 1);
      outcome.stoppedOnThreshold = true;
      if (settings.verbose >= 1 && settings.log)
      {
        settings.log("Stopping: the change fell below " + std::to_string(settings.stopThresholdChangePct) + "%");
      }
      break;
    }
    if (settings.checkpoint && (iteration + 1) % std::max(settings.checkpointEvery, 1) == 0 &&
        iteration + 1 < schedule.size())
    {
      keepRandom();
      settings.checkpoint(stateAt(iteration + 1, 0, 0.0, 0.0));
    }
  }
  return outcome;
}

} // namespace mbir::detail
