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
#include "itkMBIRMultiAxisParallelGeometry.h"

namespace itk {

mbir::Geometry
MBIRMultiAxisParallelGeometry::GetEngineGeometry() const
{
  return this->ValidatedEngineGeometry(m_Geometry);
}

void
MBIRMultiAxisParallelGeometry::SetEngineGeometry(const EngineGeometryType & geometry)
{
  m_Geometry = geometry;
  this->TakeOverRegionOfReconstructionMask();
  this->Modified();
}

void
MBIRMultiAxisParallelGeometry::SetAngles(const std::vector<double> & azimuths)
{
  const bool resized = m_Geometry.sinogramShape.views != static_cast<int>(azimuths.size());
  if (AssignIfChanged(m_Geometry.angles, azimuths) || resized)
  {
    m_Geometry.sinogramShape.views = static_cast<int>(azimuths.size());
    this->Modified();
  }
}

std::vector<double>
MBIRMultiAxisParallelGeometry::GetAngles() const
{
  return ToDoubles(m_Geometry.angles);
}

void
MBIRMultiAxisParallelGeometry::SetElevations(const std::vector<double> & elevations)
{
  if (AssignIfChanged(m_Geometry.elevations, elevations))
  {
    this->Modified();
  }
}

std::vector<double>
MBIRMultiAxisParallelGeometry::GetElevations() const
{
  return ToDoubles(m_Geometry.elevations);
}

void
MBIRMultiAxisParallelGeometry::SetVolumeSliceOffset(double offset)
{
  if (AssignIfChanged(m_Geometry.reconSliceOffset, offset))
  {
    this->Modified();
  }
}

double
MBIRMultiAxisParallelGeometry::GetVolumeSliceOffset() const
{
  return m_Geometry.reconSliceOffset;
}

double
MBIRMultiAxisParallelGeometry::GetMagnification() const
{
  return m_Geometry.magnification();
}

void
MBIRMultiAxisParallelGeometry::AutoSetEngineVolumeGeometry()
{
  m_Geometry.autoSetReconGeometry();
}

void
MBIRMultiAxisParallelGeometry::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  PrintValues(os, indent, "Angles (rad)", m_Geometry.angles);
  PrintValues(os, indent, "Elevations (rad)", m_Geometry.elevations);
  os << indent << "VolumeSliceOffset (mm): " << m_Geometry.reconSliceOffset << std::endl;
}

} // namespace itk
