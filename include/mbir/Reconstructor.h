#pragma once
// MBIR: weighted least squares plus a qGGMRF prior (or a proximal-map prior), solved by multi-granular
// vectorised coordinate descent (spec/solver.md). Inputs are never modified.

#include "mbir/ArrayView.h"
#include "mbir/DeviceData.h"
#include "mbir/MemoryPlan.h"
#include "mbir/Projector.h"
#include "mbir/ReconParams.h"

#include <memory>
#include <vector>

namespace mbir {

// Where the iterations start.
struct InitialImage
{
  enum class Kind
  {
    DirectRecon, // the geometry's direct recon, scaled by the least-squares intensity factor (the default)
    Constant,    // every voxel, inside the ROR or not
    Volume       // a given (rows, cols, slices) volume, on the host or on the device
  };
  Kind                 kind = Kind::DirectRecon;
  float                constant = 0.0f;
  ArrayView3           volume;
  const DeviceVolume * deviceVolume = nullptr;

  static InitialImage
  directRecon()
  {
    return {};
  }
  static InitialImage
  constantValue(float value)
  {
    InitialImage init;
    init.kind = Kind::Constant;
    init.constant = value;
    return init;
  }
  static InitialImage
  fromVolume(ArrayView3 v)
  {
    InitialImage init;
    init.kind = Kind::Volume;
    init.volume = v;
    return init;
  }
  static InitialImage
  fromVolume(const DeviceVolume & v)
  {
    InitialImage init;
    init.kind = Kind::Volume;
    init.deviceVolume = &v;
    return init;
  }
};

// What a recon or proxMap call brings, for its memory plan.
struct SolveCall
{
  bool               inputsOnHost = true; // the call uploads them (else they are on the devices already)
  bool               weights = false;
  bool               proxInput = false;
  InitialImage::Kind init = InitialImage::Kind::DirectRecon;
};

// A reconstruction left on the device.
struct DeviceReconResult : ReconReport
{
  DeviceVolume recon;
};

// MBIRJAX's defaults, with the geometry's own where it has them: translation relaxes less (1.3) and
// weighs the depth neighbours (recon rows) by 0.1, its rows being far deeper than wide.
ReconParams
defaultReconParams(const Geometry & geometry);

class Reconstructor
{
public:
  // On one device, with the geometry's default parameters or the given ones.
  Reconstructor(Geometry geometry, std::shared_ptr<Backend> device);
  Reconstructor(Geometry geometry, std::shared_ptr<Backend> device, ReconParams params);
  // Across the devices of a group, or those a selection gives for this geometry (the default: every
  // device, DeviceSelection's automatic policy).
  Reconstructor(Geometry geometry, std::shared_ptr<const DeviceGroup> devices, ReconParams params);
  Reconstructor(Geometry geometry, const DeviceSelection & selection, ReconParams params);

  // The devices, as the log's first line says, e.g. "2 x CPU (sharded, 8 threads)".
  std::string
  deviceSummary() const
  {
    return m_Projector.deviceSummary() + (m_DeviceNote.empty() ? "" : " (" + m_DeviceNote + ")");
  }

  ReconParams &
  params()
  {
    return m_Params;
  }
  const ReconParams &
  params() const
  {
    return m_Params;
  }
  const Projector &
  projector() const
  {
    return m_Projector;
  }

  // MBIR of a sinogram (views, rows, channels); weights (same shape) are optional.
  ReconResult
  recon(ArrayView3 sinogram, ArrayView3 weights = {}, InitialImage init = {}) const;
  ReconResult
  recon(const std::vector<float> & sinogram) const;
  // The same on data already on this reconstructor's devices (uploaded once, reused); the result stays
  // there. Device data were checked when uploaded; weights must be >= 0 there.
  DeviceReconResult
  recon(const DeviceSinogram & sinogram, const DeviceSinogram * weights = nullptr, InitialImage init = {}) const;

  // The proximal map of `proxInput` (rows, cols, slices): the prior is ||x - v||^2 / (2 sigmaProx^2).
  // sigmaProx > 0 overrides the automatic (or set) value for this call.
  ReconResult
  proxMap(ArrayView3   proxInput,
          ArrayView3   sinogram,
          ArrayView3   weights = {},
          InitialImage init = {},
          float        sigmaProx = 0.0f) const;
  DeviceReconResult
  proxMap(const DeviceVolume &   proxInput,
          const DeviceSinogram & sinogram,
          const DeviceSinogram * weights = nullptr,
          InitialImage           init = {},
          float                  sigmaProx = 0.0f) const;

  // The memory a call needs on each device (of this reconstructor, or numDevices like them), planned from
  // the shapes. Every recon and proxMap checks it against what the devices have free before allocating
  // and throws OutOfDeviceMemory, with what is needed and what would help, when it does not fit.
  MemoryNeed
  memoryNeed(const SolveCall & call = {}, int numDevices = 0) const;

  // The regularisation a recon of this sinogram would use now.
  RegularizationParams
  regularization(ArrayView3 sinogram, ArrayView3 weights = {}) const;

  // The projector pair and the direct recon on host arrays, or on arrays in a GPU's memory when the devices
  // are GPUs; std::invalid_argument names a wrong shape or a non-finite value.
  std::vector<float>
  forwardProject(ArrayView3 recon) const;
  std::vector<float>
  backProject(ArrayView3 sinogram) const;
  std::vector<float>
  directRecon(ArrayView3 sinogram) const;
  // The same on vectors of the geometry's sizes.
  std::vector<float>
  forwardProject(const std::vector<float> & recon) const;
  std::vector<float>
  backProject(const std::vector<float> & sinogram) const;
  std::vector<float>
  directRecon(const std::vector<float> & sinogram) const;

private:
  DeviceReconResult
  solve(const DeviceSinogram & sinogram,
        const DeviceSinogram * weights,
        const InitialImage &   init,
        const DeviceVolume *   proxInput,
        RegularizationParams   reg) const;
  // Host inputs: shapes, values and parameters; device inputs: where they live and their shapes.
  void
  checkInputs(ArrayView3 sinogram, ArrayView3 weights, const InitialImage & init, ArrayView3 proxInput) const;
  void
  checkInputs(const DeviceSinogram & sinogram,
              const DeviceSinogram * weights,
              const InitialImage &   init,
              const DeviceVolume *   proxInput) const;
  void
  checkParams() const;
  // Uploads the host arrays and runs the device path, then brings the volume back.
  ReconResult
  solveFromHost(ArrayView3 sinogram, ArrayView3 weights, InitialImage init, ArrayView3 proxInput, float sigmaProx)
    const;
  RegularizationParams
  regularization(const DeviceSinogram & sinogram, const DeviceSinogram * weights) const;
  // Throws OutOfDeviceMemory when the call does not fit (see memoryNeed()).
  void
  requireMemoryFor(const SolveCall & call) const;
  // The sum of the weights over the real views (weights are >= 0).
  double
  weightSum(const DeviceSinogram & weights) const;

  Projector   m_Projector;
  ReconParams m_Params;
  std::string m_DeviceNote; // why an automatic choice fell back to the CPU
};

} // namespace mbir
