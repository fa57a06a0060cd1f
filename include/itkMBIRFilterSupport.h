/*=========================================================================
 *
 *  Copyright ITKMBIR contributors
 *
 *  Licensed under the Apache License, Version 2.0 (the "License");
 *  you may not use this file except in compliance with the License.
 *  You may obtain a copy of the License at
 *
 *         https://www.apache.org/licenses/LICENSE-2.0.txt
 *
 *  Unless required by applicable law or agreed to in writing, software
 *  distributed under the License is distributed on an "AS IS" BASIS,
 *  WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 *  See the License for the specific language governing permissions and
 *  limitations under the License.
 *
 *=========================================================================*/
#ifndef itkMBIRFilterSupport_h
#define itkMBIRFilterSupport_h

#include "MBIRExport.h"
#include "itkImage.h"
#include "itkMBIRDeviceImage.h"
#include "itkMBIRGeometry.h"
#include "itkProcessObject.h"
#include "mbir/DeviceData.h"
#include "mbir/Devices.h"
#include "mbir/ReconParams.h"

#include <functional>
#include <memory>
#include <string>

namespace itk {

/** \class MBIRFilterSupport
 * \brief What every MBIR filter does the same way: turn its inputs (itk::Image or MBIRDeviceImage) into
 * engine data on the right device, check them against the geometry, place its output in physical space,
 * write engine results into itk::Image or MBIRDeviceImage outputs, and translate engine errors and
 * progress into ITK's.
 *
 * Inputs are accepted as `Image<float,3>` or `MBIRDeviceImage<float,3>`; anything else raises an
 * ExceptionObject naming the input and what it is.
 *
 * \ingroup MBIR
 */
class MBIR_EXPORT MBIRFilterSupport
{
public:
  using ImageType = Image<float, 3>;
  using DeviceImageType = MBIRDeviceImage<float, 3>;
  using ImageBaseType = ImageBase<3>;

  /** The devices a filter computes on: those of its first device-resident input, else the ones
   * `selection` gives for a problem of `views` views and `slices` slices. */
  static std::shared_ptr<const mbir::DeviceGroup>
  DevicesFor(const std::vector<const DataObject *> & inputs,
             const mbir::DeviceSelection &           selection,
             int                                     views,
             int                                     slices);

  /** A projections input, [channel, row, view], as an engine sinogram on `devices`: an itk::Image is
   * uploaded, an MBIRDeviceImage holding projections is shared. */
  static std::shared_ptr<const mbir::DeviceSinogram>
  Projections(const DataObject *                               input,
              const std::shared_ptr<const mbir::DeviceGroup> & devices,
              const std::string &                              name);

  /** The same, checked against the geometry: an itk::Image is uploaded (its size must be
   * [channels, rows, views] of the geometry and its spacing the detector pitch), an MBIRDeviceImage is
   * shared. `name` names the input in errors. An itk::Image may instead hold whole views from its region's index
   * along the views on, as long as they include the views this process's devices need (ProcessViews): how one rank
   * of an MPI job holds only its share. */
  static std::shared_ptr<const mbir::DeviceSinogram>
  Projections(const DataObject *                               input,
              const MBIRGeometry &                             geometry,
              const std::shared_ptr<const mbir::DeviceGroup> & devices,
              const std::string &                              name);

  /** The part of projections `whole` ([channels, rows, views]) that this process's devices need: all of it in one
   * process; under MPI (mbir::ProcessGroup, one device per process) this rank's share of the views, so that a rank
   * reads and holds only those (the filters request it for their "Projections" and "Weights" inputs). */
  static ImageBaseType::RegionType
  ProcessViews(const ImageBaseType::RegionType & whole);

  /** Views [firstView, firstView + buffered views) of a sinogram of `views` views, uploaded from `image`'s buffer. */
  static std::shared_ptr<const mbir::DeviceSinogram>
  UploadViews(const ImageType *                                image,
              int                                              firstView,
              int                                              views,
              const std::shared_ptr<const mbir::DeviceGroup> & devices,
              const std::string &                              name);

  /** A volume input, [x, y, z], as an engine volume (rows = y, cols = x, slices = z) on `devices`. */
  static std::shared_ptr<const mbir::DeviceVolume>
  Volume(const DataObject * input, const std::shared_ptr<const mbir::DeviceGroup> & devices, const std::string & name);

  /** The same, and its size must be the geometry's volume size and its spacing the geometry's voxel
   * pitch. */
  static std::shared_ptr<const mbir::DeviceVolume>
  Volume(const DataObject *                               input,
         const MBIRGeometry &                             geometry,
         const std::shared_ptr<const mbir::DeviceGroup> & devices,
         const std::string &                              name);

  /** Checks the kind of a named input before the pipeline runs, since ProcessObject::SetInput(name, ...)
   * takes any DataObject and the typed getters do not check in release builds: "Geometry" must be an
   * MBIRGeometry, every other input a 3-D float image (Image or MBIRDeviceImage). An unset input passes. */
  static void
  CheckInputKind(const ProcessObject * filter, const std::string & name, const DataObject * input);

  /** The geometry, or an ExceptionObject saying that the filter needs one. */
  static const MBIRGeometry &
  RequireGeometry(const ProcessObject * filter, const MBIRGeometry * geometry);

  /** Output information: the geometry's volume (size, spacing, origin, identity direction), or its
   * projections (size [channels, rows, views], spacing [channel pitch, row pitch, 1], detector centred). */
  static void
  SetVolumeInformation(ImageBaseType * output, const MBIRGeometry & geometry);
  static void
  SetProjectionsInformation(ImageBaseType * output, const MBIRGeometry & geometry);

  /** Writes an engine result into the output: gathered into an itk::Image's buffer, or kept on the device
   * by an MBIRDeviceImage. */
  static void
  WriteVolume(ImageBaseType * output, std::shared_ptr<const mbir::DeviceVolume> volume);
  static void
  WriteProjections(ImageBaseType * output, std::shared_ptr<const mbir::DeviceSinogram> projections);

  /** An engine progress callback that reports to `filter` (ProgressEvent) and asks the engine to stop
   * when the filter's AbortGenerateData is set. */
  static mbir::ProgressCallback
  ProgressReporter(ProcessObject * filter);

  /** An engine iteration callback that keeps the iterations done in `iterationsDone` and invokes IterationEvent on
   * `filter` after each (progress bars and live convergence plots observe it). */
  static mbir::IterationCallback
  IterationReporter(ProcessObject * filter, int & iterationsDone);

  /** Runs engine work, turning std::invalid_argument and std::runtime_error into ExceptionObject (with
   * the filter's name) and mbir::Aborted into ProcessAborted. */
  static void
  RunEngine(const ProcessObject * filter, const std::function<void()> & work);
};

} // end namespace itk

#endif
