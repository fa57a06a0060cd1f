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
#include "itkMBIRTranslationGeometry.h"

namespace itk {

mbir::Geometry
MBIRTranslationGeometry::GetEngineGeometry() const
{
  return this->ValidatedEngineGeometry(m_Geometry);
}

void
MBIRTranslationGeometry::SetEngineGeometry(const EngineGeometryType & geometry)
{
  m_Geometry = geometry;
  this->TakeOverRegionOfReconstructionMask();
  this->Modified();
}

void
MBIRTranslationGeometry::SetTranslations(const TranslationsType & translations)
{
  std::vector<std::array<float, 3>> stored(translations.size());
  for (std::size_t v = 0; v < translations.size(); ++v)
  {
    for (unsigned int d = 0; d < 3; ++d)
    {
      stored[v][d] = static_cast<float>(translations[v][d]);
    }
  }
  const bool resized = m_Geometry.sinogramShape.views != static_cast<int>(stored.size());
  if (stored != m_Geometry.translations || resized)
  {
    m_Geometry.translations = std::move(stored);
    m_Geometry.sinogramShape.views = static_cast<int>(translations.size());
    this->Modified();
  }
}

MBIRTranslationGeometry::TranslationsType
MBIRTranslationGeometry::GetTranslations() const
{
  TranslationsType translations(m_Geometry.translations.size());
  for (std::size_t v = 0; v < translations.size(); ++v)
  {
    for (unsigned int d = 0; d < 3; ++d)
    {
      translations[v][d] = m_Geometry.translations[v][d];
    }
  }
  return translations;
}

void
MBIRTranslationGeometry::SetSourceToDetectorDistance(double distance)
{
  if (AssignIfChanged(m_Geometry.sourceDetectorDist, distance))
  {
    this->Modified();
  }
}

double
MBIRTranslationGeometry::GetSourceToDetectorDistance() const
{
  return m_Geometry.sourceDetectorDist;
}

void
MBIRTranslationGeometry::SetSourceToIsocenterDistance(double distance)
{
  if (AssignIfChanged(m_Geometry.sourceIsoDist, distance))
  {
    this->Modified();
  }
}

double
MBIRTranslationGeometry::GetSourceToIsocenterDistance() const
{
  return m_Geometry.sourceIsoDist;
}

double
MBIRTranslationGeometry::GetMagnification() const
{
  return m_Geometry.magnification();
}

void
MBIRTranslationGeometry::AutoSetEngineVolumeGeometry()
{
  m_Geometry.autoSetReconGeometry();
}

void
MBIRTranslationGeometry::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  const auto & translations = m_Geometry.translations;
  os << indent << "Translations (mm): " << translations.size() << " values:";
  for (std::size_t v = 0; v < translations.size(); ++v)
  {
    // Long scans print their first and last views only, as PrintValues() does.
    if (translations.size() > 8 && v == 4)
    {
      os << " ...";
      v = translations.size() - 2;
    }
    os << " [" << translations[v][0] << ", " << translations[v][1] << ", " << translations[v][2] << ']';
  }
  os << std::endl;
  os << indent << "SourceToDetectorDistance (mm): " << m_Geometry.sourceDetectorDist << std::endl;
  os << indent << "SourceToIsocenterDistance (mm): " << m_Geometry.sourceIsoDist << std::endl;
}

} // namespace itk
