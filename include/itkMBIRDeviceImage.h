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
#ifndef itkMBIRDeviceImage_h
#define itkMBIRDeviceImage_h

#include "itkImage.h"
#include "itkImageBase.h"
#include "itkMBIRMacro.h"
#include "mbir/DeviceData.h"

#include <memory>
#include <type_traits>
#include <vector>

namespace itk {

/** \class MBIRDeviceImage
 * \brief A projection stack or volume kept where the MBIR engine computes (host memory for the CPU
 * engine, GPU memory for CUDA), so that data used many times cross to the device once and results feed
 * the next filter without a round trip.
 *
 * It is an ImageBase: regions, spacing, origin and direction are those of the itk::Image it stands for
 * (projections indexed [channel, row, view], volumes [x = column, y = row, z = slice]). The values are an
 * engine mbir::DeviceSinogram or mbir::DeviceVolume, shared (never modified) between grafted images.
 * Every MBIR filter takes it as input and can produce it as output; ToImage() gathers it back.
 *
 * \ingroup MBIR
 */
template<typename TPixel = float, unsigned int VImageDimension = 3>
class ITK_TEMPLATE_EXPORT MBIRDeviceImage : public ImageBase<VImageDimension>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MBIRDeviceImage);

  static_assert(std::is_same<TPixel, float>::value && VImageDimension == 3, "the MBIR engine holds float 3-D data");

  using Self = MBIRDeviceImage;
  using Superclass = ImageBase<VImageDimension>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using PixelType = TPixel;
  using ValueType = TPixel;
  using InternalPixelType = TPixel;
  using RegionType = typename Superclass::RegionType;
  using SizeType = typename Superclass::SizeType;
  using HostImageType = Image<TPixel, VImageDimension>;
  static constexpr unsigned int ImageDimension = VImageDimension;

  itkNewMacro(Self);
  itkOverrideGetNameOfClassMacro(MBIRDeviceImage);

  /** What the engine array holds. */
  enum class ContentEnum
  {
    Empty,
    Projections,
    Volume
  };

  ContentEnum
  GetContent() const;

  /** Holds a sinogram; the regions become [channels, rows, views] (spacing, origin and direction are
   * left to the caller). */
  void
  SetProjections(std::shared_ptr<const mbir::DeviceSinogram> projections);
  std::shared_ptr<const mbir::DeviceSinogram>
  GetProjections() const
  {
    return m_Projections;
  }

  /** Holds a volume; the regions become [cols, rows, slices]. */
  void
  SetVolume(std::shared_ptr<const mbir::DeviceVolume> volume);
  std::shared_ptr<const mbir::DeviceVolume>
  GetVolume() const
  {
    return m_Volume;
  }

  /** Where the values live, one entry per device: its backend, the device pointer, the number of floats
   * (padding included), and the global views or slices [first, first + valid) it holds. Layouts as in
   * mbir/DeviceData.h: projections [view][channel][row], volumes [pixel][slice]. For handing the data to
   * other device code without a copy. */
  struct Shard
  {
    const mbir::Backend * device;
    const float *         values;
    std::size_t           count;
    int                   first;
    int                   valid;
  };
  std::vector<Shard>
  GetShards() const;

  /** Gathers the values into an itk::Image with this image's regions, spacing, origin and direction. */
  typename HostImageType::Pointer
  ToImage() const;

  /** Releases the engine array. */
  void
  Initialize() override;

  /** Shares the other image's engine array and copies its information. */
  void
  Graft(const DataObject * data) override;

  /** The engine allocates when it computes; nothing to do here. */
  void
  Allocate(bool) override
  {}

protected:
  MBIRDeviceImage() = default;
  ~MBIRDeviceImage() override = default;

  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  std::shared_ptr<const mbir::DeviceSinogram> m_Projections;
  std::shared_ptr<const mbir::DeviceVolume>   m_Volume;
};

} // end namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkMBIRDeviceImage.hxx"
#endif

#endif
