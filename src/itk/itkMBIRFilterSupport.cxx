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
#include "itkMBIRFilterSupport.h"

#include "itkMBIRImageConversion.h"
#include "mbir/Backend.h"
#include "mbir/ProcessGroup.h"

#include <cmath>
#include <new>
#include <sstream>
#include <stdexcept>

namespace itk {
namespace {

using ImageType = MBIRFilterSupport::ImageType;
using DeviceImageType = MBIRFilterSupport::DeviceImageType;

// The dimension of an image input (up to VDimension), or 0 for other data.
template<unsigned int VDimension>
unsigned int
DimensionOf(const DataObject * input)
{
  if (dynamic_cast<const ImageBase<VDimension> *>(input) != nullptr)
  {
    return VDimension;
  }
  if constexpr (VDimension > 1)
  {
    return DimensionOf<VDimension - 1>(input);
  }
  return 0;
}

// What an input the engine cannot take is, e.g. "a 2-D Image" or "a 3-D Image whose pixels are not float".
std::string
KindOf(const DataObject * input)
{
  const unsigned int dimension = DimensionOf<6>(input);
  std::ostringstream text;
  text << "a ";
  if (dimension != 0)
  {
    text << dimension << "-D ";
  }
  text << input->GetNameOfClass();
  if (dimension == 3 && dynamic_cast<const ImageType *>(input) == nullptr &&
      dynamic_cast<const DeviceImageType *>(input) == nullptr)
  {
    text << " whose pixels are not float";
  }
  return text.str();
}

// The input as one of the two image kinds the engine takes, or an exception naming what it is. An itk::Image must
// hold its whole image, or for projections (`views`) whole views: a part along the last axis, which
// MBIRFilterSupport::Projections checks against the views the devices need.
void
Classify(const DataObject *       input,
         const std::string &      name,
         const ImageType *&       image,
         const DeviceImageType *& device,
         bool                     views = false)
{
  image = dynamic_cast<const ImageType *>(input);
  device = dynamic_cast<const DeviceImageType *>(input);
  if (input == nullptr)
  {
    itkGenericExceptionMacro("the " << name << " input is not set");
  }
  if (image == nullptr && device == nullptr)
  {
    itkGenericExceptionMacro("the " << name << " input is " << KindOf(input)
                                    << "; MBIR filters take 3-D float images (itk::Image<float, 3> or "
                                       "itk::MBIRDeviceImage<float, 3>): cast or convert it first");
  }
  if (image != nullptr && image->GetBufferedRegion() != image->GetLargestPossibleRegion())
  {
    const ImageBase<3>::RegionType & held = image->GetBufferedRegion();
    const ImageBase<3>::RegionType & whole = image->GetLargestPossibleRegion();
    bool                             wholeViews = views;
    for (unsigned int axis = 0; axis < 2; ++axis)
    {
      wholeViews =
        wholeViews && held.GetIndex(axis) == whole.GetIndex(axis) && held.GetSize(axis) == whole.GetSize(axis);
    }
    if (!wholeViews || !whole.IsInside(held))
    {
      itkGenericExceptionMacro("the " << name << " input holds part of its image only (buffered region " << held
                                      << "); MBIR filters need the whole image"
                                      << (views ? " (of projections, whole views: a part along the view axis)" : ""));
    }
  }
}

bool
Close(double a, double b)
{
  return std::fabs(a - b) <= 1e-4 * std::max(std::fabs(a), std::fabs(b));
}

// Projections and volumes are placed by the geometry, whose axes are the image axes: a direction other than
// the identity (a flipped or permuted axis, a rotation) would be silently ignored, so it is refused.
void
RequireIdentityDirection(const ImageBase<3> * image, const std::string & name, const std::string & axes)
{
  const ImageBase<3>::DirectionType & direction = image->GetDirection();
  for (unsigned int r = 0; r < 3; ++r)
  {
    for (unsigned int c = 0; c < 3; ++c)
    {
      if (std::fabs(direction[r][c] - (r == c ? 1.0 : 0.0)) > 1e-6)
      {
        std::ostringstream found;
        for (unsigned int i = 0; i < 3; ++i)
        {
          found << (i ? ", [" : "[") << direction[i][0] << ", " << direction[i][1] << ", " << direction[i][2] << "]";
        }
        itkGenericExceptionMacro("the " << name << " input has direction [" << found.str()
                                        << "] but MBIR filters need the identity direction (" << axes
                                        << " along the image axes, indices growing as the README's conventions "
                                           "say); resample the image into that order (itk::FlipImageFilter for a "
                                           "reversed axis, itk::PermuteAxesImageFilter for swapped ones), or set "
                                           "the identity with SetDirection() if the direction is only a label");
      }
    }
  }
}

std::string
SizeText(const ImageBase<3>::SizeType & size)
{
  std::ostringstream text;
  text << "[" << size[0] << ", " << size[1] << ", " << size[2] << "]";
  return text.str();
}

} // namespace

std::shared_ptr<const mbir::DeviceGroup>
MBIRFilterSupport::DevicesFor(const std::vector<const DataObject *> & inputs,
                              const mbir::DeviceSelection &           selection,
                              int                                     views,
                              int                                     slices)
{
  for (const DataObject * input : inputs)
  {
    if (const auto * device = dynamic_cast<const DeviceImageType *>(input))
    {
      if (device->GetProjections())
        return device->GetProjections()->groupPointer();
      if (device->GetVolume())
        return device->GetVolume()->groupPointer();
    }
  }
  try
  {
    return std::make_shared<const mbir::DeviceGroup>(selection.resolve(views, slices));
  }
  catch (const std::exception & e)
  {
    itkGenericExceptionMacro(<< e.what());
  }
}

ImageBase<3>::RegionType
MBIRFilterSupport::ProcessViews(const ImageBaseType::RegionType & whole)
{
  const mbir::ProcessGroup & world = mbir::processGroup();
  const int                  views = static_cast<int>(whole.GetSize(2));
  if (world.size == 1 || views == 0)
  {
    return whole;
  }
  const mbir::ShardLayout   layout(views, world.size);
  ImageBaseType::RegionType part = whole;
  part.SetIndex(2, whole.GetIndex(2) + std::min(layout.first(world.rank), views));
  part.SetSize(2, static_cast<SizeValueType>(std::max(0, layout.valid(world.rank))));
  return part;
}

std::shared_ptr<const mbir::DeviceSinogram>
MBIRFilterSupport::Projections(const DataObject *                               input,
                               const MBIRGeometry &                             geometry,
                               const std::shared_ptr<const mbir::DeviceGroup> & devices,
                               const std::string &                              name)
{
  const ImageType *       image;
  const DeviceImageType * device;
  Classify(input, name, image, device, true);
  const ImageBase<3>::SizeType expected = {
    { geometry.GetNumberOfChannels(), geometry.GetNumberOfRows(), geometry.GetNumberOfViews() }
  };
  const int                      views = static_cast<int>(expected[2]);
  const ImageBase<3> *           base = image ? static_cast<const ImageBase<3> *>(image) : device;
  const ImageBase<3>::RegionType whole = base->GetLargestPossibleRegion();
  // Under MPI an itk::Image may hold part of the views (what this rank needs): ITK makes the largest region of an
  // image without a pipeline source its buffered one, so the part's index along the views says which they are.
  // Whether the part holds every view the devices need, DeviceSinogram::uploadViews checks.
  const bool part = image && mbir::processGroup().size > 1 && whole.GetSize(0) == expected[0] &&
                    whole.GetSize(1) == expected[1] && whole.GetIndex(2) >= 0 &&
                    whole.GetIndex(2) + whole.GetSize(2) <= expected[2];
  if (whole.GetSize() != expected && !part)
  {
    itkGenericExceptionMacro("the " << name << " are " << SizeText(whole.GetSize())
                                    << " [channels, rows, views] but the geometry has " << SizeText(expected)
                                    << "; check the detector size and the number of views");
  }
  const MBIRGeometry::DetectorVectorType pitch = geometry.GetDetectorSpacing();
  if (!Close(base->GetSpacing()[0], pitch[0]) || !Close(base->GetSpacing()[1], pitch[1]))
  {
    itkGenericExceptionMacro("the " << name << " have spacing [" << base->GetSpacing()[0] << ", "
                                    << base->GetSpacing()[1] << "] mm but the geometry's detector pitch is ["
                                    << pitch[0] << ", " << pitch[1]
                                    << "] mm; set the image spacing or the geometry's detector spacing");
  }
  // The origin is not read: the geometry's detector offset says where the central ray hits.
  RequireIdentityDirection(base, name, "channel, row and view");
  if (device)
  {
    return Projections(input, devices, name);
  }
  const IndexValueType firstView =
    (part ? whole.GetIndex(2) : 0) + image->GetBufferedRegion().GetIndex(2) - whole.GetIndex(2);
  return UploadViews(image, static_cast<int>(firstView), views, devices, name);
}

std::shared_ptr<const mbir::DeviceSinogram>
MBIRFilterSupport::Projections(const DataObject *                               input,
                               const std::shared_ptr<const mbir::DeviceGroup> & devices,
                               const std::string &                              name)
{
  const ImageType *       image;
  const DeviceImageType * device;
  Classify(input, name, image, device, true);
  if (device)
  {
    if (!device->GetProjections())
    {
      itkGenericExceptionMacro("the " << name << " input is an MBIRDeviceImage that holds "
                                      << (device->GetVolume() ? "a volume" : "no data") << ", not projections");
    }
    return device->GetProjections();
  }
  const ImageBase<3>::RegionType whole = image->GetLargestPossibleRegion();
  return UploadViews(image,
                     static_cast<int>(image->GetBufferedRegion().GetIndex(2) - whole.GetIndex(2)),
                     static_cast<int>(whole.GetSize(2)),
                     devices,
                     name);
}

std::shared_ptr<const mbir::DeviceSinogram>
MBIRFilterSupport::UploadViews(const ImageType *                                image,
                               int                                              firstView,
                               int                                              views,
                               const std::shared_ptr<const mbir::DeviceGroup> & devices,
                               const std::string &                              name)
{
  const ImageBase<3>::SizeType size = image->GetBufferedRegion().GetSize();
  try
  {
    return std::make_shared<const mbir::DeviceSinogram>(mbir::DeviceSinogram::uploadViews(
      devices,
      mbir::ArrayView3(image->GetBufferPointer(),
                       { static_cast<int>(size[2]), static_cast<int>(size[1]), static_cast<int>(size[0]) }),
      firstView,
      views));
  }
  catch (const std::invalid_argument & e)
  {
    itkGenericExceptionMacro("the " << name << ": " << e.what());
  }
}

std::shared_ptr<const mbir::DeviceVolume>
MBIRFilterSupport::Volume(const DataObject *                               input,
                          const MBIRGeometry &                             geometry,
                          const std::shared_ptr<const mbir::DeviceGroup> & devices,
                          const std::string &                              name)
{
  const ImageType *       image;
  const DeviceImageType * device;
  Classify(input, name, image, device);
  const ImageBase<3> *                  base = image ? static_cast<const ImageBase<3> *>(image) : device;
  const ImageBase<3>::SizeType          size = base->GetLargestPossibleRegion().GetSize();
  const MBIRGeometry::VolumeSizeType    expected = geometry.GetVolumeSize();
  const MBIRGeometry::VolumeSpacingType spacing = geometry.GetVolumeSpacing();
  if (size != expected)
  {
    itkGenericExceptionMacro("the " << name << " is " << SizeText(size) << " [x, y, z] but the geometry's volume is "
                                    << SizeText(expected) << "; set the geometry's volume size");
  }
  for (unsigned int d = 0; d < 3; ++d)
  {
    if (!Close(base->GetSpacing()[d], spacing[d]))
    {
      itkGenericExceptionMacro("the " << name << " has spacing " << base->GetSpacing()
                                      << " mm but the geometry's voxel pitch is " << spacing
                                      << " mm; set the image spacing or the geometry's volume spacing");
    }
  }
  RequireIdentityDirection(base, name, "x, y and z");
  return Volume(input, devices, name);
}

std::shared_ptr<const mbir::DeviceVolume>
MBIRFilterSupport::Volume(const DataObject *                               input,
                          const std::shared_ptr<const mbir::DeviceGroup> & devices,
                          const std::string &                              name)
{
  const ImageType *       image;
  const DeviceImageType * device;
  Classify(input, name, image, device);
  if (device)
  {
    if (!device->GetVolume())
    {
      itkGenericExceptionMacro("the " << name << " input is an MBIRDeviceImage that holds "
                                      << (device->GetProjections() ? "projections" : "no data") << ", not a volume");
    }
    return device->GetVolume();
  }
  mbir::ReconShape         shape;
  const std::vector<float> values = MBIRImageConversion::ImageToRecon(image, shape);
  try
  {
    return std::make_shared<const mbir::DeviceVolume>(
      mbir::DeviceVolume::upload(devices, mbir::ArrayView3(values, shape)));
  }
  catch (const std::invalid_argument & e)
  {
    itkGenericExceptionMacro("the " << name << ": " << e.what());
  }
}

void
MBIRFilterSupport::CheckInputKind(const ProcessObject * filter, const std::string & name, const DataObject * input)
{
  if (input == nullptr)
  {
    return;
  }
  if (name == "Geometry")
  {
    if (dynamic_cast<const MBIRGeometry *>(input) == nullptr)
    {
      itkGenericExceptionMacro(<< filter->GetNameOfClass() << ": the Geometry input is " << KindOf(input)
                               << ", not an MBIRGeometry; set one with SetGeometry()");
    }
    return;
  }
  if (dynamic_cast<const ImageType *>(input) == nullptr && dynamic_cast<const DeviceImageType *>(input) == nullptr)
  {
    itkGenericExceptionMacro(<< filter->GetNameOfClass() << ": the " << name << " input is " << KindOf(input)
                             << "; MBIR filters take 3-D float images (itk::Image<float, 3> or "
                                "itk::MBIRDeviceImage<float, 3>): cast or convert it first");
  }
}

const MBIRGeometry &
MBIRFilterSupport::RequireGeometry(const ProcessObject * filter, const MBIRGeometry * geometry)
{
  if (geometry == nullptr)
  {
    itkGenericExceptionMacro(<< filter->GetNameOfClass()
                             << ": no Geometry input; set an MBIRGeometry with SetGeometry()");
  }
  return *geometry;
}

void
MBIRFilterSupport::SetVolumeInformation(ImageBaseType * output, const MBIRGeometry & geometry)
{
  output->SetLargestPossibleRegion(ImageBaseType::RegionType(geometry.GetVolumeSize()));
  ImageBaseType::SpacingType spacing;
  for (unsigned int d = 0; d < 3; ++d)
  {
    spacing[d] = geometry.GetVolumeSpacing()[d];
  }
  output->SetSpacing(spacing);
  output->SetOrigin(geometry.GetVolumeOrigin());
  ImageBaseType::DirectionType direction;
  direction.SetIdentity();
  output->SetDirection(direction);
}

void
MBIRFilterSupport::SetProjectionsInformation(ImageBaseType * output, const MBIRGeometry & geometry)
{
  const ImageBaseType::SizeType size = {
    { geometry.GetNumberOfChannels(), geometry.GetNumberOfRows(), geometry.GetNumberOfViews() }
  };
  output->SetLargestPossibleRegion(ImageBaseType::RegionType(size));
  ImageBaseType::SpacingType spacing;
  spacing[0] = geometry.GetDetectorSpacing()[0];
  spacing[1] = geometry.GetDetectorSpacing()[1];
  spacing[2] = 1.0; // the view axis carries no physical meaning
  output->SetSpacing(spacing);
  ImageBaseType::PointType origin;
  origin[0] = -0.5 * spacing[0] * (static_cast<double>(size[0]) - 1.0); // the detector centre at 0
  origin[1] = -0.5 * spacing[1] * (static_cast<double>(size[1]) - 1.0);
  origin[2] = 0.0;
  output->SetOrigin(origin);
  ImageBaseType::DirectionType direction;
  direction.SetIdentity();
  output->SetDirection(direction);
}

void
MBIRFilterSupport::WriteVolume(ImageBaseType * output, std::shared_ptr<const mbir::DeviceVolume> volume)
{
  if (auto * device = dynamic_cast<DeviceImageType *>(output))
  {
    const ImageBaseType::RegionType region = device->GetLargestPossibleRegion();
    device->SetVolume(std::move(volume));
    device->SetRegions(region);
    return;
  }
  auto * image = dynamic_cast<ImageType *>(output);
  if (image == nullptr)
  {
    itkGenericExceptionMacro("MBIR filters write itk::Image<float, 3> or MBIRDeviceImage<float, 3>, not "
                             << output->GetNameOfClass());
  }
  const mbir::ReconShape & shape = volume->shape();
  if (const auto [first, count] = mbir::DeviceVolume::localSlices(volume->group(), shape.slices); count < shape.slices)
  {
    // MPI: gathered once, into process 0's output; each other rank's output holds its own slices (its buffered
    // region, from the first of them on), as a reader there holds the rank's views.
    const std::vector<float> slices = volume->downloadLocalSlices();
    ImageType::RegionType    region = image->GetLargestPossibleRegion();
    const bool               whole = mbir::processGroup().rank == 0;
    if (!whole)
    {
      region.SetIndex(2, first);
      region.SetSize(2, static_cast<SizeValueType>(count));
    }
    image->SetBufferedRegion(region);
    image->Allocate();
    if (!whole)
      std::copy(slices.begin(), slices.end(), image->GetBufferPointer());
    volume->group().communicator().gatherOnHost(
      slices.data(), slices.size(), whole ? image->GetBufferPointer() : nullptr);
    return;
  }
  // Transposed once into a new buffer, which the output then owns.
  const ImageType::Pointer values =
    MBIRImageConversion::ReconToImage(volume->download(), volume->shape(), image->GetSpacing());
  image->SetBufferedRegion(image->GetLargestPossibleRegion());
  image->SetPixelContainer(values->GetPixelContainer());
}

void
MBIRFilterSupport::WriteProjections(ImageBaseType * output, std::shared_ptr<const mbir::DeviceSinogram> projections)
{
  if (auto * device = dynamic_cast<DeviceImageType *>(output))
  {
    const ImageBaseType::RegionType region = device->GetLargestPossibleRegion();
    device->SetProjections(std::move(projections));
    device->SetRegions(region);
    return;
  }
  auto * image = dynamic_cast<ImageType *>(output);
  if (image == nullptr)
  {
    itkGenericExceptionMacro("MBIR filters write itk::Image<float, 3> or MBIRDeviceImage<float, 3>, not "
                             << output->GetNameOfClass());
  }
  const std::vector<float> values = projections->download(); // (views, rows, channels) = the image's memory order
  image->SetBufferedRegion(image->GetLargestPossibleRegion());
  image->Allocate();
  std::copy(values.begin(), values.end(), image->GetBufferPointer());
}

mbir::ProgressCallback
MBIRFilterSupport::ProgressReporter(ProcessObject * filter)
{
  return [filter](double fraction) {
    filter->UpdateProgress(static_cast<float>(fraction));
    return !filter->GetAbortGenerateData();
  };
}

mbir::IterationCallback
MBIRFilterSupport::IterationReporter(ProcessObject * filter, int & iterationsDone)
{
  return [filter, &iterationsDone](const mbir::IterationLog & entry) {
    iterationsDone = entry.iteration + 1;
    filter->InvokeEvent(IterationEvent());
  };
}

void
MBIRFilterSupport::RunEngine(const ProcessObject * filter, const std::function<void()> & work)
{
  try
  {
    work();
  }
  catch (const mbir::Aborted &)
  {
    ProcessAborted aborted(__FILE__, __LINE__);
    aborted.SetDescription(std::string(filter->GetNameOfClass()) + ": stopped by AbortGenerateData");
    throw aborted;
  }
  catch (const ExceptionObject &)
  {
    throw;
  }
  catch (const std::bad_alloc &)
  {
    itkGenericExceptionMacro(<< filter->GetNameOfClass()
                             << ": out of host memory: the data do not fit in this machine's memory");
  }
  catch (const std::exception & e)
  {
    itkGenericExceptionMacro(<< filter->GetNameOfClass() << ": " << e.what());
  }
}

} // end namespace itk
