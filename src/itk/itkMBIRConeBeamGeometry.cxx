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
#include "itkMBIRConeBeamGeometry.h"

namespace itk {

mbir::Geometry
MBIRConeBeamGeometry::GetEngineGeometry() const
{
  return this->ValidatedEngineGeometry(m_Geometry);
}

void
MBIRConeBeamGeometry::SetEngineGeometry(const EngineGeometryType & geometry)
{
  m_Geometry = geometry;
  this->TakeOverRegionOfReconstructionMask();
  this->Modified();
}

void
MBIRConeBeamGeometry::SetAngles(const std::vector<double> & angles)
{
  const bool resized = m_Geometry.sinogramShape.views != static_cast<int>(angles.size());
  if (AssignIfChanged(m_Geometry.angles, angles) || resized)
  {
    m_Geometry.sinogramShape.views = static_cast<int>(angles.size());
    this->Modified();
  }
}

std::vector<double>
MBIRConeBeamGeometry::GetAngles() const
{
  return ToDoubles(m_Geometry.angles);
}

void
MBIRConeBeamGeometry::SetSourceToDetectorDistance(double distance)
{
  if (AssignIfChanged(m_Geometry.sourceDetectorDist, distance))
  {
    this->Modified();
  }
}

double
MBIRConeBeamGeometry::GetSourceToDetectorDistance() const
{
  return m_Geometry.sourceDetectorDist;
}

void
MBIRConeBeamGeometry::SetSourceToIsocenterDistance(double distance)
{
  if (AssignIfChanged(m_Geometry.sourceIsoDist, distance))
  {
    this->Modified();
  }
}

double
MBIRConeBeamGeometry::GetSourceToIsocenterDistance() const
{
  return m_Geometry.sourceIsoDist;
}

void
MBIRConeBeamGeometry::SetHelicalShifts(const std::vector<double> & shifts)
{
  if (AssignIfChanged(m_Geometry.helicalZShifts, shifts))
  {
    this->Modified();
  }
}

std::vector<double>
MBIRConeBeamGeometry::GetHelicalShifts() const
{
  return ToDoubles(m_Geometry.helicalZShifts);
}

void
MBIRConeBeamGeometry::SetCurvedDetector(bool curved)
{
  if (m_Geometry.curvedDetector != curved)
  {
    m_Geometry.curvedDetector = curved;
    this->Modified();
  }
}

bool
MBIRConeBeamGeometry::GetCurvedDetector() const
{
  return m_Geometry.curvedDetector;
}

void
MBIRConeBeamGeometry::SetVolumeSliceOffset(double offset)
{
  if (AssignIfChanged(m_Geometry.reconSliceOffset, offset))
  {
    this->Modified();
  }
}

double
MBIRConeBeamGeometry::GetVolumeSliceOffset() const
{
  return m_Geometry.reconSliceOffset;
}

double
MBIRConeBeamGeometry::GetMagnification() const
{
  return m_Geometry.magnification();
}

void
MBIRConeBeamGeometry::AutoSetEngineVolumeGeometry()
{
  m_Geometry.autoSetReconGeometry();
}

void
MBIRConeBeamGeometry::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  PrintValues(os, indent, "Angles (rad)", m_Geometry.angles);
  os << indent << "SourceToDetectorDistance (mm): " << m_Geometry.sourceDetectorDist << std::endl;
  os << indent << "SourceToIsocenterDistance (mm): " << m_Geometry.sourceIsoDist << std::endl;
  PrintValues(os, indent, "HelicalShifts (mm)", m_Geometry.helicalZShifts);
  os << indent << "CurvedDetector: " << (m_Geometry.curvedDetector ? "On" : "Off") << std::endl;
  os << indent << "VolumeSliceOffset (mm): " << m_Geometry.reconSliceOffset << std::endl;
}

} // namespace itk
