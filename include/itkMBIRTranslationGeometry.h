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
#ifndef itkMBIRTranslationGeometry_h
#define itkMBIRTranslationGeometry_h

#include "itkMBIRGeometry.h"
#include "mbir/TranslationGeometry.h"

namespace itk {

/** \class MBIRTranslationGeometry
 * \brief Translation scan: a fixed point source and flat detector, the object shifted in each view.
 *
 * Nothing rotates: the rays run toward -y, the detector's channels along x and its rows along z. In view v
 * the object is translated by Translations[v] = (t_x, t_y, t_z) in mm: t_x > 0 moves it toward smaller
 * channels, t_y away from the source, t_z toward smaller rows. SourceToIsocenterDistance is the distance from
 * the source to the centre of the grid (the origin of the physical frame) at zero translation, and
 * SourceToDetectorDistance must be finite. Depth (y) comes only from parallax, so the default grid has a few
 * deep rows and reconstructs every pixel (region of reconstruction All). Typical use: New(), the detector,
 * SetTranslations(), the distances, then AutoSetVolumeGeometry().
 *
 * \sa MBIRGeometry for units, index order and the physical frame.
 * \ingroup MBIR
 */
class MBIR_EXPORT MBIRTranslationGeometry : public MBIRGeometry
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MBIRTranslationGeometry);

  using Self = MBIRTranslationGeometry;
  using Superclass = MBIRGeometry;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using EngineGeometryType = mbir::TranslationGeometry;
  using TranslationType = Vector<double, 3>;
  using TranslationsType = std::vector<TranslationType>;

  itkNewMacro(Self);
  itkOverrideGetNameOfClassMacro(MBIRTranslationGeometry);

  mbir::Geometry
  GetEngineGeometry() const override;

  /** Replaces every parameter by those of an engine struct (not validated here). */
  void
  SetEngineGeometry(const EngineGeometryType & geometry);

  /** Object translation (t_x, t_y, t_z) per view in mm; their number is the number of views. */
  void
  SetTranslations(const TranslationsType & translations);
  TranslationsType
  GetTranslations() const;

  /** Source to detector (mm), finite and > 0. */
  void
  SetSourceToDetectorDistance(double distance);
  double
  GetSourceToDetectorDistance() const;

  /** Source to the grid centre at zero translation (mm), > 0. */
  void
  SetSourceToIsocenterDistance(double distance);
  double
  GetSourceToIsocenterDistance() const;

  /** SourceToDetectorDistance / SourceToIsocenterDistance. */
  double
  GetMagnification() const override;

protected:
  MBIRTranslationGeometry() = default;
  ~MBIRTranslationGeometry() override = default;

  void
  PrintSelf(std::ostream & os, Indent indent) const override;

  mbir::DetectorAndGrid &
  GetDetectorAndGrid() override
  {
    return m_Geometry;
  }
  const mbir::DetectorAndGrid &
  GetDetectorAndGrid() const override
  {
    return m_Geometry;
  }
  void
  AutoSetEngineVolumeGeometry() override;

private:
  EngineGeometryType m_Geometry;
};

} // namespace itk

#endif
