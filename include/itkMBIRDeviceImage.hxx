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
#ifndef itkMBIRDeviceImage_hxx
#define itkMBIRDeviceImage_hxx

#include "itkMBIRImageConversion.h"

namespace itk {

template<typename TPixel, unsigned int VImageDimension>
auto
MBIRDeviceImage<TPixel, VImageDimension>::GetContent() const -> ContentEnum
{
  return m_Projections ? ContentEnum::Projections : (m_Volume ? ContentEnum::Volume : ContentEnum::Empty);
}

template<typename TPixel, unsigned int VImageDimension>
void
MBIRDeviceImage<TPixel, VImageDimension>::SetProjections(std::shared_ptr<const mbir::DeviceSinogram> projections)
{
  m_Volume.reset();
  m_Projections = std::move(projections);
  SizeType size;
  size.Fill(0);
  if (m_Projections)
  {
    const mbir::SinogramShape & s = m_Projections->shape();
    size = { { static_cast<SizeValueType>(s.channels),
               static_cast<SizeValueType>(s.rows),
               static_cast<SizeValueType>(s.views) } };
  }
  this->SetRegions(RegionType(size));
  this->Modified();
}

template<typename TPixel, unsigned int VImageDimension>
void
MBIRDeviceImage<TPixel, VImageDimension>::SetVolume(std::shared_ptr<const mbir::DeviceVolume> volume)
{
  m_Projections.reset();
  m_Volume = std::move(volume);
  SizeType size;
  size.Fill(0);
  if (m_Volume)
  {
    const mbir::ReconShape & r = m_Volume->shape();
    size = {
      { static_cast<SizeValueType>(r.cols), static_cast<SizeValueType>(r.rows), static_cast<SizeValueType>(r.slices) }
    };
  }
  this->SetRegions(RegionType(size));
  this->Modified();
}

template<typename TPixel, unsigned int VImageDimension>
auto
MBIRDeviceImage<TPixel, VImageDimension>::GetShards() const -> std::vector<Shard>
{
  std::vector<Shard> shards;
  const auto         collect = [&shards](const auto & data, const mbir::ShardLayout & layout, std::size_t perEntry) {
    for (int d = 0; d < layout.devices; ++d)
    {
      shards.push_back(Shard{ &data.group().device(d),
                              data.shard(d),
                              perEntry * static_cast<std::size_t>(layout.perDevice),
                              layout.first(d),
                              layout.valid(d) });
    }
  };
  if (m_Projections)
  {
    const mbir::SinogramShape & s = m_Projections->shape();
    collect(*m_Projections, m_Projections->views(), static_cast<std::size_t>(s.rows) * s.channels);
  }
  else if (m_Volume)
  {
    const mbir::ReconShape & r = m_Volume->shape();
    collect(*m_Volume, m_Volume->slices(), static_cast<std::size_t>(r.rows) * r.cols);
  }
  return shards;
}

template<typename TPixel, unsigned int VImageDimension>
auto
MBIRDeviceImage<TPixel, VImageDimension>::ToImage() const -> typename HostImageType::Pointer
{
  typename HostImageType::Pointer image;
  if (m_Projections)
  {
    image = MBIRImageConversion::SinogramToImage(m_Projections->download(), m_Projections->shape(), 1.0, 1.0);
  }
  else if (m_Volume)
  {
    typename HostImageType::SpacingType unit;
    unit.Fill(1.0);
    image = MBIRImageConversion::ReconToImage(m_Volume->download(), m_Volume->shape(), unit);
  }
  else
  {
    itkExceptionMacro("ToImage: this MBIRDeviceImage holds no data; run the filter that produces it first");
  }
  image->SetSpacing(this->GetSpacing());
  image->SetOrigin(this->GetOrigin());
  image->SetDirection(this->GetDirection());
  return image;
}

template<typename TPixel, unsigned int VImageDimension>
void
MBIRDeviceImage<TPixel, VImageDimension>::Initialize()
{
  Superclass::Initialize();
  m_Projections.reset();
  m_Volume.reset();
}

template<typename TPixel, unsigned int VImageDimension>
void
MBIRDeviceImage<TPixel, VImageDimension>::Graft(const DataObject * data)
{
  if (data == nullptr)
  {
    return;
  }
  const auto * other = dynamic_cast<const Self *>(data);
  if (other == nullptr)
  {
    itkExceptionMacro("Graft: cannot graft a " << data->GetNameOfClass() << " onto an MBIRDeviceImage");
  }
  this->CopyInformation(other);
  this->SetBufferedRegion(other->GetBufferedRegion());
  this->SetRequestedRegion(other->GetRequestedRegion());
  m_Projections = other->m_Projections;
  m_Volume = other->m_Volume;
}

template<typename TPixel, unsigned int VImageDimension>
void
MBIRDeviceImage<TPixel, VImageDimension>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Content: "
     << (m_Projections ? "projections " + m_Projections->shape().str() + " (views, rows, channels)"
                       : (m_Volume ? "volume " + m_Volume->shape().str() + " (rows, cols, slices)" : "none"));
  if (m_Projections || m_Volume)
  {
    os << " on " << (m_Projections ? m_Projections->group() : m_Volume->group()).summary();
  }
  os << std::endl;
}

} // end namespace itk

#endif
