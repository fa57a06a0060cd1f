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
#include "itkMBIRParallelBeamGeometry.h"

namespace itk {

mbir::Geometry
MBIRParallelBeamGeometry::GetEngineGeometry() const
{
  return this->ValidatedEngineGeometry(m_Geometry);
}

void
MBIRParallelBeamGeometry::SetEngineGeometry(const EngineGeometryType & geometry)
{
  m_Geometry = geometry;
  this->TakeOverRegionOfReconstructionMask();
  this->Modified();
}

void
MBIRParallelBeamGeometry::SetAngles(const std::vector<double> & angles)
{
  const bool resized = m_Geometry.sinogramShape.views != static_cast<int>(angles.size());
  if (AssignIfChanged(m_Geometry.angles, angles) || resized)
  {
    m_Geometry.sinogramShape.views = static_cast<int>(angles.size());
    this->Modified();
  }
}

std::vector<double>
MBIRParallelBeamGeometry::GetAngles() const
{
  return ToDoubles(m_Geometry.angles);
}

void
MBIRParallelBeamGeometry::SetVolumeSpacing(const VolumeSpacingType & spacing)
{
  // Compared at float32 precision, so that the row pitch read back from GetVolumeSpacing() is accepted.
  if (static_cast<float>(spacing[2]) != m_Geometry.deltaDetRow)
  {
    itkExceptionMacro("SetVolumeSpacing: slice k is detector row k, so the z pitch must be the detector row pitch "
                      << m_Geometry.deltaDetRow << ", got " << spacing[2] << "; set the detector spacing first");
  }
  VolumeSpacingType engineSpacing = spacing;
  engineSpacing[2] = spacing[0]; // the engine's voxel_slice_aspect must be 1
  Superclass::SetVolumeSpacing(engineSpacing);
}

MBIRParallelBeamGeometry::VolumeSpacingType
MBIRParallelBeamGeometry::GetVolumeSpacing() const
{
  VolumeSpacingType spacing = Superclass::GetVolumeSpacing();
  spacing[2] = m_Geometry.deltaDetRow;
  return spacing;
}

double
MBIRParallelBeamGeometry::GetMagnification() const
{
  return m_Geometry.magnification();
}

void
MBIRParallelBeamGeometry::AutoSetEngineVolumeGeometry()
{
  m_Geometry.autoSetReconGeometry();
}

void
MBIRParallelBeamGeometry::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  PrintValues(os, indent, "Angles (rad)", m_Geometry.angles);
}

} // namespace itk
