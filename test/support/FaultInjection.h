#pragma once
// Fault injection for tests: a backend and a communicator that pass every call on to the ones they wrap and count
// them, and make the k-th call fail as a device would: an allocation with OutOfDeviceMemory, any other operation
// (a copy, a kernel, a collective) with DeviceFailure, as a lost device or a failed launch does.

#include "ForwardingCommunicator.h"
#include "mbir/Backend.h"
#include "mbir/Devices.h"

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mbir::test {

class DeviceFailure : public std::runtime_error
{
public:
  using std::runtime_error::runtime_error;
};

// Shared by the wrappers of one device group: call `failAt` (1-based) fails, and every call is counted.
struct FaultPlan
{
  long              failAt = 0; // 0: none
  std::atomic<long> calls{ 0 };

  void
  step(const char * operation, bool allocation = false)
  {
    const long call = ++calls;
    if (call != failAt)
      return;
    const std::string what = "injected fault at call " + std::to_string(call) + " (" + operation + ")";
    if (allocation)
      throw OutOfDeviceMemory(what + ": out of device memory");
    throw DeviceFailure(what + ": device lost");
  }
};

class FaultyBackend : public Backend
{
public:
  FaultyBackend(std::shared_ptr<Backend> inner, std::shared_ptr<FaultPlan> plan)
    : m_Inner(std::move(inner))
    , m_Plan(std::move(plan))
  {}

  Backend &
  inner() const
  {
    return *m_Inner;
  }

  std::string
  description() const override
  {
    return m_Inner->description();
  }
  Kind
  kind() const override
  {
    return m_Inner->kind();
  }
  int
  threadCount() const override
  {
    return m_Inner->threadCount();
  }
  std::size_t
  freeBytes() const override
  {
    return m_Inner->freeBytes();
  }
  int
  memoryPool() const override
  {
    return m_Inner->memoryPool();
  }
  std::size_t
  workspaceBytes(const SinogramShape & shape) const override
  {
    return m_Inner->workspaceBytes(shape);
  }
  void
  fillZero(void * device, std::size_t bytes) override
  {
    step("fillZero");
    m_Inner->fillZero(device, bytes);
  }
  void
  synchronize() override
  {
    step("synchronize");
    m_Inner->synchronize();
  }
  void
  forwardProject(const DeviceModel &   model,
                 const CylinderBatch & cylinders,
                 const float *         values,
                 const ViewRange &     views,
                 float *               sinogram) override
  {
    step("forwardProject");
    m_Inner->forwardProject(model, cylinders, values, views, sinogram);
  }
  void
  backProject(const DeviceModel &   model,
              const CylinderBatch & cylinders,
              const float *         sinogram,
              const float *         weights,
              const ViewRange &     views,
              int                   power,
              float *               values) override
  {
    step("backProject");
    m_Inner->backProject(model, cylinders, sinogram, weights, views, power, values);
  }
  void
  rampFilter(const float *                      in,
             const SinogramShape &              shape,
             const std::vector<RampDirection> & directions,
             float *                            out) override
  {
    step("rampFilter");
    m_Inner->rampFilter(in, shape, directions, out);
  }
  void
  multiplyPeriodic(const float * factors, std::size_t period, float * x, std::size_t n) override
  {
    step("multiplyPeriodic");
    m_Inner->multiplyPeriodic(factors, period, x, n);
  }
  void
  divideWherePositive(const float * numerator, const float * denominator, float * out, std::size_t n) override
  {
    step("divideWherePositive");
    m_Inner->divideWherePositive(numerator, denominator, out, n);
  }
  void
  copy(const float * source, float * destination, std::size_t n) override
  {
    step("copy");
    m_Inner->copy(source, destination, n);
  }
  void
  copyRows(const float * source,
           std::size_t   sourcePitch,
           float *       destination,
           std::size_t   destinationPitch,
           std::size_t   width,
           std::size_t   rows) override
  {
    step("copyRows");
    m_Inner->copyRows(source, sourcePitch, destination, destinationPitch, width, rows);
  }
  void
  fill(float value, float * x, std::size_t n) override
  {
    step("fill");
    m_Inner->fill(value, x, n);
  }
  void
  axpby(float a, const float * x, float b, float * y, std::size_t n) override
  {
    step("axpby");
    m_Inner->axpby(a, x, b, y, n);
  }
  double
  sumAbs(const float * x, std::size_t n) override
  {
    step("sumAbs");
    return m_Inner->sumAbs(x, n);
  }
  WeightedProducts
  weightedProducts(const float * a, const float * b, const float * w, std::size_t n) override
  {
    step("weightedProducts");
    return m_Inner->weightedProducts(a, b, w, n);
  }
  void
  fillSlices(float value, float * volume, std::size_t numPixels, int slices, int firstSlice, int lastSlice) override
  {
    step("fillSlices");
    m_Inner->fillSlices(value, volume, numPixels, slices, firstSlice, lastSlice);
  }
  void
  gatherCylinders(const float * volume, const CylinderBatch & cylinders, float * out) override
  {
    step("gatherCylinders");
    m_Inner->gatherCylinders(volume, cylinders, out);
  }
  void
  gatherSlice(const float * volume, const CylinderBatch & cylinders, int localSlice, float * out) override
  {
    step("gatherSlice");
    m_Inner->gatherSlice(volume, cylinders, localSlice, out);
  }
  double
  scatterAddCylinders(float alpha, const float * values, const CylinderBatch & cylinders, float * volume) override
  {
    step("scatterAddCylinders");
    return m_Inner->scatterAddCylinders(alpha, values, cylinders, volume);
  }
  void
  qggmrfGradientHessian(const kernels::QGGMRFParams & prior,
                        const float *                 volume,
                        const ReconShape &            shape,
                        const kernels::SliceShard &   shard,
                        const CylinderBatch &         cylinders,
                        const float *                 below,
                        const float *                 above,
                        float *                       gradient,
                        float *                       hessian) override
  {
    step("qggmrfGradientHessian");
    m_Inner->qggmrfGradientHessian(prior, volume, shape, shard, cylinders, below, above, gradient, hessian);
  }
  double
  qggmrfCost(const kernels::QGGMRFParams & prior,
             const float *                 volume,
             const ReconShape &            shape,
             const kernels::SliceShard &   shard,
             const float *                 abovePlane) override
  {
    step("qggmrfCost");
    return m_Inner->qggmrfCost(prior, volume, shape, shard, abovePlane);
  }
  WeightedProducts
  localDeviationSums(const float *      volume,
                     const ReconShape & shape,
                     int                validSlices,
                     const float *      previousSlice,
                     double             threshold) override
  {
    step("localDeviationSums");
    return m_Inner->localDeviationSums(volume, shape, validSlices, previousSlice, threshold);
  }
  DirectionSums
  vcdDirection(float         dataScale,
               const float * backProjection,
               const float * dataHessian,
               const float * priorGradient,
               const float * priorHessian,
               std::size_t   n,
               float *       delta) override
  {
    step("vcdDirection");
    return m_Inner->vcdDirection(dataScale, backProjection, dataHessian, priorGradient, priorHessian, n, delta);
  }
  void
  clipForPositivity(const float * x, float alpha, std::size_t n, float * delta) override
  {
    step("clipForPositivity");
    m_Inner->clipForPositivity(x, alpha, n, delta);
  }

protected:
  DeviceAllocation
  allocateOnDevice(std::size_t bytes) override
  {
    m_Plan->step("allocate", true);
    return m_Inner->allocateBytes(bytes);
  }
  void
  writeDevice(const void * host, void * device, std::size_t bytes) override
  {
    step("copyToDevice");
    m_Inner->copyToDevice(host, device, bytes);
  }
  void
  readDevice(const void * device, void * host, std::size_t bytes) override
  {
    step("copyToHost");
    m_Inner->copyToHost(device, host, bytes);
  }
  void
  writeSinogram(const float * host, const SinogramShape & shape, float * device) override
  {
    step("uploadSinogram");
    m_Inner->uploadSinogram(host, shape, device);
  }
  void
  readSinogram(const float * device, const SinogramShape & shape, float * host) override
  {
    step("downloadSinogram");
    m_Inner->downloadSinogram(device, shape, host);
  }
  void
  writeDeviceRows(const void * source,
                  std::size_t  sourcePitch,
                  void *       device,
                  std::size_t  devicePitch,
                  std::size_t  rowBytes,
                  std::size_t  rows) override
  {
    step("copyRowsToDevice");
    m_Inner->copyRowsToDevice(source, sourcePitch, device, devicePitch, rowBytes, rows);
  }

private:
  void
  step(const char * operation)
  {
    m_Plan->step(operation);
  }

  std::shared_ptr<Backend>   m_Inner;
  std::shared_ptr<FaultPlan> m_Plan;
};

class FaultyCommunicator final : public ForwardingCommunicator
{
public:
  FaultyCommunicator(std::unique_ptr<Communicator> inner, int devices, std::shared_ptr<FaultPlan> plan)
    : ForwardingCommunicator(std::move(inner), devices)
    , m_Plan(std::move(plan))
  {}

private:
  void
  before(Collective collective, double) override
  {
    m_Plan->step(collectiveName(collective));
  }

  std::shared_ptr<FaultPlan> m_Plan;
};

// `count` CPU devices whose every allocation, operation and collective goes through `plan`.
inline std::shared_ptr<const DeviceGroup>
faultyCpuDevices(int count, const std::shared_ptr<FaultPlan> & plan, std::vector<std::shared_ptr<Backend>> & inner)
{
  std::vector<std::shared_ptr<Backend>> devices;
  inner.clear();
  for (int d = 0; d < count; ++d)
  {
    inner.push_back(makeCpuBackend());
    devices.push_back(std::make_shared<FaultyBackend>(inner.back(), plan));
  }
  return std::make_shared<const DeviceGroup>(devices, [plan](std::vector<Backend *> raw) {
    const int devices = static_cast<int>(raw.size());
    return std::make_unique<FaultyCommunicator>(makeCommunicator(std::move(raw)), devices, plan);
  });
}

} // namespace mbir::test
