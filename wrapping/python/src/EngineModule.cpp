// itk_mbir._engine: the engine's calls for the Python package (itk_mbir/*.py builds the public API on it).
// Parameters travel as dicts with MBIRJAX's snake_case names, geometries as their JSON text (the one
// complete description of a geometry), arrays as DLPack / NumPy views. Long calls release the GIL and
// stop at the next subset on Ctrl-C or when a progress callback says so.

#include "Arrays.h"

#include "mbir/Config.h"
#include "mbir/Denoiser.h"
#include "mbir/Devices.h"
#include "mbir/GeometryJson.h"
#include "mbir/GeometryRegistry.h"
#include "mbir/Metrics.h"
#include "mbir/Phantom.h"
#include "mbir/Preprocessing.h"
#include "mbir/Reconstructor.h"
#include "mbir/Weights.h"

#include <nanobind/stl/array.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <set>

namespace nb = nanobind;
using namespace nb::literals;

// Move-only engine types (they own device memory): nanobind must not try to copy them.
namespace nanobind::detail {
template<>
struct is_copy_constructible<mbir::Reconstructor> : std::false_type
{};
template<>
struct is_copy_constructible<mbir::DeviceSinogram> : std::false_type
{};
template<>
struct is_copy_constructible<mbir::DeviceVolume> : std::false_type
{};
} // namespace nanobind::detail

namespace mbir::python {
namespace {

// ---- Parameters ---------------------------------------------------------------------------------------

template<typename T>
T
take(const nb::dict & values, const char * key, T fallback, std::set<std::string> & used)
{
  if (!values.contains(key))
  {
    return fallback;
  }
  used.insert(key);
  try
  {
    return nb::cast<T>(values[key]);
  }
  catch (const nb::cast_error &)
  {
    throw nb::type_error(
      ("parameter '" + std::string(key) + "' has the wrong type (" + nb::type_name(values[key].type()).c_str() + ")")
        .c_str());
  }
}

void
requireAllUsed(const nb::dict & values, const std::set<std::string> & used, const std::string & known)
{
  for (auto [key, value] : values)
  {
    const std::string name = nb::cast<std::string>(key);
    if (!used.count(name))
    {
      throw nb::value_error(("unknown parameter '" + name + "'; known: " + known).c_str());
    }
  }
}

const char * const kReconKeys = "sharpness, snr_db, positivity, p, q, T, qggmrf_nbr_wts, max_iterations, "
                                "stop_threshold_change_pct, granularity, partition_sequence, max_overrelaxation, "
                                "auto_regularize, estimate_noise, sigma_y, sigma_x, sigma_prox, verbose, seed, "
                                "compute_prior_loss, checkpoint_file, checkpoint_every, resume_file";

ReconParams
reconParams(const Geometry & geometry, const nb::dict & values)
{
  ReconParams           p = defaultReconParams(geometry);
  std::set<std::string> used;
  p.sharpness = take(values, "sharpness", p.sharpness, used);
  p.snrDb = take(values, "snr_db", p.snrDb, used);
  // An explicit snr_db sets sigma_y as in MBIRJAX, unless estimate_noise is asked for too.
  p.estimateNoise = take(values, "estimate_noise", values.contains("snr_db") ? false : p.estimateNoise, used);
  p.positivity = take(values, "positivity", p.positivity, used);
  p.p = take(values, "p", p.p, used);
  p.q = take(values, "q", p.q, used);
  p.T = take(values, "T", p.T, used);
  p.qggmrfNeighbourWeights = take(values, "qggmrf_nbr_wts", p.qggmrfNeighbourWeights, used);
  p.maxIterations = take(values, "max_iterations", p.maxIterations, used);
  p.stopThresholdChangePct = take(values, "stop_threshold_change_pct", p.stopThresholdChangePct, used);
  p.granularity = take(values, "granularity", p.granularity, used);
  p.partitionSequence = take(values, "partition_sequence", p.partitionSequence, used);
  p.maxOverrelaxation = take(values, "max_overrelaxation", p.maxOverrelaxation, used);
  p.autoRegularize = take(values, "auto_regularize", p.autoRegularize, used);
  p.sigmaY = take(values, "sigma_y", p.sigmaY, used);
  p.sigmaX = take(values, "sigma_x", p.sigmaX, used);
  p.sigmaProx = take(values, "sigma_prox", p.sigmaProx, used);
  p.verbose = take(values, "verbose", p.verbose, used);
  p.seed = take(values, "seed", p.seed, used);
  p.computePriorLoss = take(values, "compute_prior_loss", p.computePriorLoss, used);
  p.checkpointFile = take(values, "checkpoint_file", p.checkpointFile, used);
  p.checkpointEvery = take(values, "checkpoint_every", p.checkpointEvery, used);
  p.resumeFile = take(values, "resume_file", p.resumeFile, used);
  requireAllUsed(values, used, kReconKeys);
  return p;
}

nb::dict
reconParamsDict(const ReconParams & p)
{
  nb::dict d;
  d["sharpness"] = p.sharpness;
  d["snr_db"] = p.snrDb;
  d["positivity"] = p.positivity;
  d["p"] = p.p;
  d["q"] = p.q;
  d["T"] = p.T;
  d["qggmrf_nbr_wts"] = p.qggmrfNeighbourWeights;
  d["max_iterations"] = p.maxIterations;
  d["stop_threshold_change_pct"] = p.stopThresholdChangePct;
  d["granularity"] = p.granularity;
  d["partition_sequence"] = p.partitionSequence;
  d["max_overrelaxation"] = p.maxOverrelaxation;
  d["auto_regularize"] = p.autoRegularize;
  d["estimate_noise"] = p.estimateNoise;
  d["sigma_y"] = p.sigmaY;
  d["sigma_x"] = p.sigmaX;
  d["sigma_prox"] = p.sigmaProx;
  d["verbose"] = p.verbose;
  d["seed"] = p.seed;
  d["checkpoint_file"] = p.checkpointFile;
  d["checkpoint_every"] = p.checkpointEvery;
  d["resume_file"] = p.resumeFile;
  return d;
}

const char * const kDenoiseKeys = "sigma_noise, sharpness, p, q, T, qggmrf_nbr_wts, num_subsets, max_iterations, "
                                  "stop_threshold_change_pct, max_overrelaxation, verbose, seed";

DenoiseParams
denoiseParams(const nb::dict & values)
{
  DenoiseParams         p;
  std::set<std::string> used;
  p.sigmaNoise = take(values, "sigma_noise", p.sigmaNoise, used);
  p.sharpness = take(values, "sharpness", p.sharpness, used);
  p.p = take(values, "p", p.p, used);
  p.q = take(values, "q", p.q, used);
  p.T = take(values, "T", p.T, used);
  p.qggmrfNeighbourWeights = take(values, "qggmrf_nbr_wts", p.qggmrfNeighbourWeights, used);
  p.numSubsets = take(values, "num_subsets", p.numSubsets, used);
  p.maxIterations = take(values, "max_iterations", p.maxIterations, used);
  p.stopThresholdChangePct = take(values, "stop_threshold_change_pct", p.stopThresholdChangePct, used);
  p.maxOverrelaxation = take(values, "max_overrelaxation", p.maxOverrelaxation, used);
  p.verbose = take(values, "verbose", p.verbose, used);
  p.seed = take(values, "seed", p.seed, used);
  requireAllUsed(values, used, kDenoiseKeys);
  return p;
}

nb::list
logList(const std::vector<IterationLog> & log)
{
  nb::list lines;
  for (const IterationLog & it : log)
  {
    nb::dict line;
    line["iteration"] = it.iteration;
    line["num_subsets"] = it.numSubsets;
    line["change_pct"] = it.changePct;
    line["forward_loss"] = it.forwardLoss;
    line["prior_loss"] = it.priorLoss;
    line["alpha"] = it.alpha;
    line["seconds"] = it.seconds;
    line["total_cost"] = it.totalCost;
    lines.append(line);
  }
  return lines;
}

nb::dict
reportDict(const ReconReport & report)
{
  nb::dict d;
  d["iterations"] = logList(report.log);
  d["sigma_y"] = report.regularization.sigmaY;
  d["sigma_x"] = report.regularization.sigmaX;
  d["sigma_prox"] = report.regularization.sigmaProx;
  d["measured_noise"] = report.regularization.measuredNoise;
  d["sigma_y_note"] = report.regularization.note;
  d["log_text"] = report.logText;
  d["stopped_on_threshold"] = report.stoppedOnThreshold;
  return d;
}

nb::dict
reportDict(const DenoiseReport & report)
{
  nb::dict d;
  d["iterations"] = logList(report.log);
  d["sigma_noise"] = report.sigmaNoise;
  d["sigma_x"] = report.sigmaX;
  d["log_text"] = report.logText;
  return d;
}

// ---- Progress, interruption and log lines, from a call that runs without the GIL ------------------------

// Installed on the params of one call: each subset update takes the GIL briefly to check for Ctrl-C and to
// call the user's callback; the first Python error stops the call and is raised when it returns.
class CallHooks
{
public:
  CallHooks(nb::object progress, nb::object log)
    : m_Progress(std::move(progress))
    , m_Log(std::move(log))
  {}

  template<typename Params>
  void
  install(Params & params)
  {
    params.progress = [this](double fraction) { return this->progress(fraction); };
    if (!m_Log.is_none())
    {
      params.logSink = [this](const std::string & line) {
        nb::gil_scoped_acquire gil;
        if (!m_Error)
        {
          try
          {
            m_Log(line);
          }
          catch (nb::python_error & e)
          {
            m_Error.emplace(std::move(e));
          }
        }
      };
    }
  }

  // Runs `work` without the GIL; re-raises a Python error (KeyboardInterrupt, the callback's) in place of
  // the engine's Aborted.
  template<typename Work>
  auto
  run(Work && work) -> decltype(work())
  {
    try
    {
      nb::gil_scoped_release release;
      return work();
    }
    catch (const Aborted &)
    {
      if (m_Error)
      {
        m_Error->restore();
        throw nb::python_error();
      }
      throw;
    }
  }

private:
  bool
  progress(double fraction)
  {
    nb::gil_scoped_acquire gil;
    if (m_Error)
    {
      return false;
    }
    try
    {
      if (PyErr_CheckSignals() != 0)
      {
        throw nb::python_error();
      }
      if (!m_Progress.is_none())
      {
        const nb::object answer = m_Progress(fraction);
        return answer.is_none() || nb::cast<bool>(answer);
      }
      return true;
    }
    catch (nb::python_error & e)
    {
      m_Error.emplace(std::move(e));
      return false;
    }
  }

  nb::object                      m_Progress;
  nb::object                      m_Log;
  std::optional<nb::python_error> m_Error;
};

// ---- Devices ------------------------------------------------------------------------------------------

using BackendPointer = std::shared_ptr<Backend>;

std::string
kindName(const Backend & device)
{
  return device.kind() == Backend::Kind::Gpu ? "gpu" : "cpu";
}

nb::dict
transfersDict(const Backend & device)
{
  const Backend::TransferCounts t = device.transfers();
  nb::dict                      d;
  d["uploads"] = t.uploads;
  d["uploaded_bytes"] = t.uploadedBytes;
  d["downloads"] = t.downloads;
  d["downloaded_bytes"] = t.downloadedBytes;
  return d;
}

// One shard of a device array: (device, address, shape of its real part, strides in elements).
template<typename DeviceData>
nb::list
shardList(const DeviceData & data, const ShardLayout & layout, bool volume)
{
  nb::list shards;
  for (int d = 0; d < data.group().size(); ++d)
  {
    nb::dict s;
    s["device"] = data.group().devicePointer(d);
    s["pointer"] = reinterpret_cast<std::uintptr_t>(data.shard(d));
    s["first"] = layout.first(d);
    s["count"] = layout.valid(d);
    s["per_device"] = layout.perDevice;
    s["layout"] = volume ? "(rows, cols, slices of this device) with slices padded to per_device"
                         : "(views of this device, channels, rows)";
    shards.append(s);
  }
  return shards;
}

// The real part of a volume shard as an array in place (DLPack device of its backend), kept alive by `owner`.
nb::ndarray<float, nb::ndim<3>>
shardArray(const DeviceVolume & volume, int d, nb::handle owner)
{
  const ReconShape & r = volume.shape();
  const Backend &    device = volume.group().device(d);
  const std::size_t  shape[3] = { static_cast<std::size_t>(r.rows),
                                  static_cast<std::size_t>(r.cols),
                                  static_cast<std::size_t>(volume.slices().valid(d)) };
  const std::int64_t per = volume.slices().perDevice;
  const std::int64_t strides[3] = { std::int64_t(r.cols) * per, per, 1 };
  const bool         gpu = device.kind() == Backend::Kind::Gpu;
  return nb::ndarray<float, nb::ndim<3>>(const_cast<float *>(volume.shard(d)),
                                         3,
                                         shape,
                                         owner,
                                         strides,
                                         nb::dtype<float>(),
                                         gpu ? nb::device::cuda::value : nb::device::cpu::value,
                                         gpu ? device.memoryPool() : 0);
}

std::shared_ptr<const DeviceGroup>
groupFor(const Geometry & geometry, const DeviceSelection & selection)
{
  const SinogramShape & s = sinogramShapeOf(geometry);
  return std::make_shared<const DeviceGroup>(selection.resolve(s.views, reconShapeOf(geometry).slices));
}

InitialImage
initialImage(const nb::object & init, std::optional<ArrayView3> & volume, const DeviceVolume *& deviceVolume)
{
  if (init.is_none())
  {
    return InitialImage::directRecon();
  }
  if (nb::isinstance<DeviceVolume>(init))
  {
    deviceVolume = &nb::cast<const DeviceVolume &>(init);
    return InitialImage::fromVolume(*deviceVolume);
  }
  if (nb::isinstance<nb::float_>(init) || nb::isinstance<nb::int_>(init))
  {
    return InitialImage::constantValue(nb::cast<float>(init));
  }
  volume = viewOf(nb::cast<AnyArray>(init), "init_recon");
  return InitialImage::fromVolume(*volume);
}

} // namespace
} // namespace mbir::python

using namespace mbir;
using namespace mbir::python;

NB_MODULE(_engine, m)
{
  m.doc() = "The ITKMBIR engine for itk_mbir; use the itk_mbir package, not this module.";
  m.attr("__version__") = MBIR_VERSION;
  m.attr("cuda_built") = bool(MBIR_USE_CUDA);

  nb::exception<OutOfDeviceMemory>(m, "OutOfDeviceMemory", PyExc_MemoryError);
  nb::exception<Aborted>(m, "Aborted", PyExc_RuntimeError);

  // ---- Devices
  nb::class_<Backend>(m, "Device", "One compute device: a GPU, or the host's cores as a CPU device.")
    .def_prop_ro("description", &Backend::description)
    .def_prop_ro("kind", &kindName, "'gpu' or 'cpu'")
    .def_prop_ro("memory_pool", &Backend::memoryPool, "the CUDA device index of a GPU, -1 for the host")
    .def_prop_ro("bytes_in_use", &Backend::bytesInUse)
    .def_prop_ro("available_bytes", &Backend::availableBytes)
    .def("transfers", &transfersDict, "host/device transfers made through this device so far")
    .def("__repr__", [](const Backend & b) { return "<itk_mbir.Device " + b.description() + ">"; });

  m.def(
    "available_devices",
    [](const std::string & useGpu) { return availableDevices(parseUseGpu(useGpu)); },
    "use_gpu"_a = "automatic");
  m.def("cpu_device_count", &cpuDeviceCount);
  m.def("gpu_count", &cudaDeviceCount);
  m.def("gpu_unavailable_reason", &cudaUnavailableReason);

  nb::class_<DeviceSelection>(m, "DeviceSelection")
    .def(nb::init<>())
    .def_static("first", &DeviceSelection::firstDevices, "n"_a)
    .def_static("indices", &DeviceSelection::atIndices, "indices"_a)
    .def_static("handles", &DeviceSelection::of, "devices"_a)
    .def(
      "with_use_gpu",
      [](DeviceSelection s, const std::string & policy) { return s.useGpu(parseUseGpu(policy)); },
      "use_gpu"_a)
    .def_prop_ro("pinned", &DeviceSelection::pinned)
    .def("resolve", &DeviceSelection::resolve, "views"_a = 0, "slices"_a = 0)
    .def("describe", &DeviceSelection::describe)
    .def("fallback_note", &DeviceSelection::fallbackNote)
    .def("__eq__", [](const DeviceSelection & a, const DeviceSelection & b) { return a == b; });

  m.def("device_summary", [](const std::vector<BackendPointer> & devices) { return DeviceGroup(devices).summary(); });

  // ---- Geometry
  nb::class_<Geometry>(m, "Geometry", "An engine geometry; made from and written to its JSON text.")
    .def_static(
      "from_json", [](const std::string & text) { return geometryFromJson(text); }, "text"_a)
    .def("to_json", [](const Geometry & g) { return geometryToJson(g); })
    .def_prop_ro("type_name", [](const Geometry & g) { return std::string(geometryTypeName(g)); })
    .def_prop_ro("sinogram_shape", [](const Geometry & g) { return dims(sinogramShapeOf(g)); })
    .def_prop_ro("recon_shape", [](const Geometry & g) { return dims(reconShapeOf(g)); })
    .def_prop_ro("magnification", &magnificationOf)
    .def("scaled_recon_shape",
         [](Geometry g, float rowScale, float colScale) {
           detectorAndGridOf(g).scaleReconShape(rowScale, colScale);
           return g;
         })
    .def("default_params", [](const Geometry & g) { return reconParamsDict(defaultReconParams(g)); });

  m.def("geometry_types", []() {
    nb::list           types;
    const char * const kinds[] = { "integer3", "number", "boolean", "number_per_view", "vector3_per_view", "ror_mask" };
    for (const GeometryType & type : geometryTypes())
    {
      nb::list parameters;
      for (const GeometryParameter & p : type.parameters)
      {
        nb::dict parameter;
        parameter["name"] = p.name;
        parameter["kind"] = kinds[static_cast<int>(p.kind)];
        parameter["required"] = p.required;
        parameter["unit"] = p.unit;
        parameter["default"] = p.defaultText;
        parameter["doc"] = p.doc;
        parameters.append(parameter);
      }
      nb::dict t;
      t["name"] = type.name;
      t["class_name"] = type.className;
      t["doc"] = type.doc;
      t["parameters"] = parameters;
      types.append(t);
    }
    return types;
  });

  // ---- Data kept on the devices
  nb::class_<DeviceSinogram>(m, "DeviceSinogram", "A sinogram split by view over the devices of one run.")
    .def_prop_ro("shape", [](const DeviceSinogram & s) { return dims(s.shape()); })
    .def_prop_ro("devices", [](const DeviceSinogram & s) { return s.group().devices(); })
    .def_prop_ro("summary", [](const DeviceSinogram & s) { return s.group().summary(); })
    .def("shards", [](const DeviceSinogram & s) { return shardList(s, s.views(), false); })
    .def("download", [](const DeviceSinogram & s) {
      std::vector<float> host;
      {
        nb::gil_scoped_release release;
        host = s.download();
      }
      return toNumpy(std::move(host), dims(s.shape()));
    });

  nb::class_<DeviceVolume>(m, "DeviceVolume", "A volume split by slice over the devices of one run.")
    .def_prop_ro("shape", [](const DeviceVolume & v) { return dims(v.shape()); })
    .def_prop_ro("devices", [](const DeviceVolume & v) { return v.group().devices(); })
    .def_prop_ro("summary", [](const DeviceVolume & v) { return v.group().summary(); })
    .def("shards", [](const DeviceVolume & v) { return shardList(v, v.slices(), true); })
    .def(
      "shard_array",
      [](nb::handle self, int d) {
        const DeviceVolume & v = nb::cast<const DeviceVolume &>(self);
        if (d < 0 || d >= v.group().size())
        {
          throw nb::index_error(("shard " + std::to_string(d) + " of " + std::to_string(v.group().size())).c_str());
        }
        v.group().device(d).synchronize(); // the consumer may read on any stream: the values must be final

        return shardArray(v, d, self);
      },
      "shard"_a,
      "A DLPack capsule of the real slices of one shard, in place (CPU memory, or CUDA on a GPU).")
    .def(
      "shard_dlpack_device",
      [](const DeviceVolume & v, int d) {
        const Backend & device = v.group().device(d);
        return device.kind() == Backend::Kind::Gpu ? std::make_pair(int(nb::device::cuda::value), device.memoryPool())
                                                   : std::make_pair(int(nb::device::cpu::value), 0);
      },
      "shard"_a)
    .def("download", [](const DeviceVolume & v) {
      std::vector<float> host;
      {
        nb::gil_scoped_release release;
        host = v.download();
      }
      return toNumpy(std::move(host), dims(v.shape()));
    });

  // ---- Reconstruction
  nb::class_<Reconstructor>(m, "Reconstructor")
    .def(
      "__init__",
      [](Reconstructor * self, const Geometry & geometry, const DeviceSelection & selection, const nb::dict & params) {
        new (self) Reconstructor(geometry, selection, reconParams(geometry, params));
      },
      "geometry"_a,
      "selection"_a,
      "params"_a)
    .def_prop_ro("device_summary", &Reconstructor::deviceSummary)
    .def_prop_ro("devices", [](const Reconstructor & r) { return r.projector().group().devices(); })
    .def("params", [](const Reconstructor & r) { return reconParamsDict(r.params()); })
    .def(
      "set_params",
      [](Reconstructor & r, const nb::dict & values) { r.params() = reconParams(r.projector().geometry(), values); },
      "params"_a)
    .def(
      "prepare_sinogram",
      [](const Reconstructor & r, const AnyArray & sinogram, const char * what) {
        const ArrayView3      view = viewOf(sinogram, what);
        const SinogramShape & s = r.projector().sinogramShape();
        if (view.shape != dims(s))
        {
          throw nb::value_error(
            (std::string(what) + " has shape " + view.str() + " but the geometry needs " + s.str()).c_str());
        }
        nb::gil_scoped_release release;
        return DeviceSinogram::upload(r.projector().groupPointer(), view);
      },
      "sinogram"_a,
      "what"_a = "sinogram")
    .def(
      "prepare_volume",
      [](const Reconstructor & r, const AnyArray & volume, const char * what) {
        const ArrayView3   view = viewOf(volume, what);
        const ReconShape & s = r.projector().reconShape();
        if (view.shape != dims(s))
        {
          throw nb::value_error(
            (std::string(what) + " has shape " + view.str() + " but the geometry needs " + s.str()).c_str());
        }
        nb::gil_scoped_release release;
        return DeviceVolume::upload(r.projector().groupPointer(), view);
      },
      "volume"_a,
      "what"_a = "volume")
    .def(
      "recon",
      [](Reconstructor &        r,
         const DeviceSinogram & sinogram,
         const DeviceSinogram * weights,
         const nb::object &     init,
         const DeviceVolume *   proxInput,
         float                  sigmaProx,
         nb::object             progress,
         nb::object             log) {
        std::optional<ArrayView3>   initView;
        const DeviceVolume *        initDevice = nullptr;
        InitialImage                start = initialImage(init, initView, initDevice);
        std::optional<DeviceVolume> uploadedInit;
        if (initView)
        {
          uploadedInit = DeviceVolume::upload(r.projector().groupPointer(), *initView);
          start = InitialImage::fromVolume(*uploadedInit);
        }
        CallHooks         hooks(std::move(progress), std::move(log));
        const ReconParams saved = r.params(); // the hooks belong to this call only
        hooks.install(r.params());
        struct Restore
        {
          Reconstructor &     r;
          const ReconParams & saved;
          ~Restore() { r.params() = saved; }
        } restore{ r, saved };
        DeviceReconResult result = hooks.run([&] {
          return proxInput ? r.proxMap(*proxInput, sinogram, weights, start, sigmaProx)
                           : r.recon(sinogram, weights, start);
        });
        nb::dict          report = reportDict(result);
        return std::make_pair(std::move(result.recon), report);
      },
      "sinogram"_a,
      "weights"_a = nb::none(),
      "init"_a = nb::none(),
      "prox_input"_a = nb::none(),
      "sigma_prox"_a = 0.0f,
      "progress"_a = nb::none(),
      "log"_a = nb::none())
    .def(
      "regularization",
      [](const Reconstructor & r, const AnyArray & sinogram, std::optional<AnyArray> weights) {
        const ArrayView3 s = viewOf(sinogram, "sinogram");
        const ArrayView3 w = weights ? viewOf(*weights, "weights") : ArrayView3{};
        if (!s.onHost() || !w.onHost())
        {
          throw nb::value_error("regularization reads host arrays; a recon of GPU arrays reports its sigma_y, "
                                "sigma_x and sigma_prox in its log");
        }
        const RegularizationParams reg = r.regularization(s, w);
        return std::make_tuple(reg.sigmaY, reg.sigmaX, reg.sigmaProx);
      },
      "sinogram"_a,
      "weights"_a = nb::none())
    .def(
      "forward_project",
      [](const Reconstructor & r, const AnyArray & volume) {
        const ArrayView3   view = viewOf(volume, "volume");
        std::vector<float> out;
        {
          nb::gil_scoped_release release;
          out = r.forwardProject(view);
        }
        return toNumpy(std::move(out), dims(r.projector().sinogramShape()));
      },
      "volume"_a)
    .def(
      "back_project",
      [](const Reconstructor & r, const AnyArray & sinogram) {
        const ArrayView3   view = viewOf(sinogram, "sinogram");
        std::vector<float> out;
        {
          nb::gil_scoped_release release;
          out = r.backProject(view);
        }
        return toNumpy(std::move(out), dims(r.projector().reconShape()));
      },
      "sinogram"_a)
    .def(
      "direct_recon",
      [](const Reconstructor & r, const AnyArray & sinogram) {
        const ArrayView3   view = viewOf(sinogram, "sinogram");
        std::vector<float> out;
        {
          nb::gil_scoped_release release;
          out = r.directRecon(view);
        }
        return toNumpy(std::move(out), dims(r.projector().reconShape()));
      },
      "sinogram"_a)
    .def(
      "memory_need",
      [](const Reconstructor & r, bool weights, int numDevices) {
        SolveCall call;
        call.weights = weights;
        const MemoryNeed need = r.memoryNeed(call, numDevices);
        return std::make_pair(need.perDevice, need.host);
      },
      "weights"_a = false,
      "num_devices"_a = 0);

  // ---- Denoising
  m.def(
    "denoise",
    [](const AnyArray &        image,
       const nb::dict &        params,
       const DeviceSelection & selection,
       nb::object              progress,
       nb::object              log) {
      const ArrayView3 view = viewOf(image, "image");
      DenoiseParams    p = denoiseParams(params);
      CallHooks        hooks(std::move(progress), std::move(log));
      hooks.install(p);
      DeviceDenoiseResult result = hooks.run([&] {
        const auto group = std::make_shared<const DeviceGroup>(selection.resolve(0, view.shape[2]));
        return qggmrfDenoise(DeviceVolume::upload(group, view), p);
      });
      nb::dict            report = reportDict(result);
      return std::make_pair(std::move(result.image), report);
    },
    "image"_a,
    "params"_a,
    "selection"_a,
    "progress"_a = nb::none(),
    "log"_a = nb::none());

  // ---- Real scanner data
  m.def(
    "preprocess_transmission",
    [](const AnyArray &        counts,
       std::optional<AnyArray> dark,
       std::optional<AnyArray> bright,
       std::optional<AnyArray> brightAfter,
       const nb::dict &        values) {
      const ArrayView3 view = viewOf(counts, "counts");
      FieldImages      fields;
      if (dark)
        fields.dark = viewOf(*dark, "dark");
      if (bright)
        fields.bright = viewOf(*bright, "bright");
      if (brightAfter)
        fields.brightAfter = viewOf(*brightAfter, "bright_after");
      for (const ArrayView3 * a :
           std::initializer_list<const ArrayView3 *>{ &view, &fields.dark, &fields.bright, &fields.brightAfter })
      {
        if (!a->onHost())
        {
          throw nb::value_error("preprocessing reads host (NumPy) arrays");
        }
      }
      PreprocessParams      p;
      std::set<std::string> used;
      p.minTransmission = take(values, "min_transmission", p.minTransmission, used);
      p.saturationLevel = take(values, "saturation_level", p.saturationLevel, used);
      p.detectBadPixels = take(values, "detect_bad_pixels", p.detectBadPixels, used);
      p.badPixelThreshold = take(values, "bad_pixel_threshold", p.badPixelThreshold, used);
      p.minBadPixelDeviation = take(values, "min_bad_pixel_deviation", p.minBadPixelDeviation, used);
      p.removeOffset = take(values, "remove_offset", p.removeOffset, used);
      p.offsetPerView = take(values, "offset_per_view", p.offsetPerView, used);
      p.edgeWidth = take(values, "edge_width", p.edgeWidth, used);
      p.suppressRings = take(values, "suppress_rings", p.suppressRings, used);
      p.ringWidth = take(values, "ring_width", p.ringWidth, used);
      p.weightType = parseWeightType(take(values, "weight_type", std::string("transmission"), used));
      requireAllUsed(values,
                     used,
                     "min_transmission, saturation_level, detect_bad_pixels, bad_pixel_threshold, "
                     "min_bad_pixel_deviation, remove_offset, offset_per_view, edge_width, suppress_rings, "
                     "ring_width, weight_type");
      PreprocessResult result;
      {
        nb::gil_scoped_release release;
        result = preprocessTransmission(view, fields, p);
      }
      nb::dict report;
      report["offset"] = result.offset;
      report["view_offsets"] = result.viewOffsets;
      report["bad_cells"] = result.numBadCells();
      report["dead"] = result.numDead;
      report["hot"] = result.numHot;
      report["non_finite"] = result.numNonFinite;
      report["flat"] = result.numFlat;
      report["bad_entries"] = result.numBadEntries;
      report["saturated"] = result.numSaturated;
      report["clamped"] = result.numClamped;
      report["notes"] = result.notes;
      const SinogramShape shape = result.shape;
      std::vector<float>  cells(result.badCells.begin(), result.badCells.end());
      report["bad_cell_mask"] = toNumpy(std::move(cells), { 1, shape.rows, shape.channels });
      return std::make_tuple(
        toNumpy(std::move(result.sinogram), dims(shape)), toNumpy(std::move(result.weights), dims(shape)), report);
    },
    "counts"_a,
    "dark"_a = nb::none(),
    "bright"_a = nb::none(),
    "bright_after"_a = nb::none(),
    "params"_a = nb::dict());
  m.def(
    "estimate_rotation_center",
    [](const Geometry & geometry, const AnyArray & sinogram, std::optional<AnyArray> weights) {
      const ArrayView3 s = viewOf(sinogram, "sinogram");
      const ArrayView3 w = weights ? viewOf(*weights, "weights") : ArrayView3{};
      if (!s.onHost() || !w.onHost())
      {
        throw nb::value_error("the centre estimate reads host (NumPy) arrays");
      }
      CenterEstimate estimate;
      {
        nb::gil_scoped_release release;
        estimate = estimateRotationCenter(geometry, s, w);
      }
      nb::dict d;
      d["channels"] = estimate.channels;
      d["det_channel_offset"] = estimate.detChannelOffset;
      d["method"] = estimate.method;
      d["tilt_degrees"] = estimate.tiltMeasured ? nb::cast(estimate.tiltDegrees) : nb::none();
      d["notes"] = estimate.notes;
      return d;
    },
    "geometry"_a,
    "sinogram"_a,
    "weights"_a = nb::none());

  // ---- Utilities
  m.def(
    "shepp_logan_phantom",
    [](const std::array<int, 3> & shape) {
      const ReconShape r{ shape[0], shape[1], shape[2] };
      return toNumpy(sheppLoganLowDynamicRange(r), shape);
    },
    "recon_shape"_a);
  m.def(
    "generate_weights",
    [](const AnyArray & sinogram, const std::string & type) {
      const ArrayView3 view = viewOf(sinogram, "sinogram");
      if (!view.onHost())
      {
        throw nb::value_error("generate_weights takes a host (NumPy) sinogram");
      }
      return toNumpy(generateWeights(view.data, view.size(), parseWeightType(type)), view.shape);
    },
    "sinogram"_a,
    "weight_type"_a = "transmission_root");
}
