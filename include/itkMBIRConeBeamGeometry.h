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
#ifndef itkMBIRConeBeamGeometry_h
#define itkMBIRConeBeamGeometry_h

#include "itkMBIRGeometry.h"
#include "mbir/ConeBeamGeometry.h"

namespace itk {

/** \class MBIRConeBeamGeometry
 * \brief Cone-beam scan: a point source circling the z axis, a flat or curved detector, optional helix.
 *
 * The source turns at SourceToIsocenterDistance from the z axis; the detector lies SourceToDetectorDistance
 * from the source, flat or (CurvedDetector) a cylinder of that radius centred on the source, whose channel
 * pitch is then an arc length. A source-to-detector distance of +infinity gives parallel rays with the
 * cone's vertical model. HelicalShifts give the scanner's height (mm, +z) in each view; empty means a
 * circular scan. VolumeSliceOffset is the z of the centre of the slice range; AutoSetVolumeGeometry() sets
 * it to the centre of the helical travel. Typical use: New(), the detector, SetAngles(), the distances,
 * then AutoSetVolumeGeometry().
 *
 * \sa MBIRGeometry for units, index order and the physical frame.
 * \ingroup MBIR
 */
class MBIR_EXPORT MBIRConeBeamGeometry : public MBIRGeometry
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MBIRConeBeamGeometry);

  using Self = MBIRConeBeamGeometry;
  using Superclass = MBIRGeometry;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using EngineGeometryType = mbir::ConeBeamGeometry;

  itkNewMacro(Self);
  itkOverrideGetNameOfClassMacro(MBIRConeBeamGeometry);

  mbir::Geometry
  GetEngineGeometry() const override;

  /** Replaces every parameter by those of an engine struct (not validated here). */
  void
  SetEngineGeometry(const EngineGeometryType & geometry);

  /** View angles in radians, one per view; their number is the number of views. */
  void
  SetAngles(const std::vector<double> & angles);
  std::vector<double>
  GetAngles() const;

  /** Source to detector (mm), > 0; +infinity gives parallel rays. */
  void
  SetSourceToDetectorDistance(double distance);
  double
  GetSourceToDetectorDistance() const;

  /** Source to the rotation axis (mm), > 0. */
  void
  SetSourceToIsocenterDistance(double distance);
  double
  GetSourceToIsocenterDistance() const;

  /** Scanner height per view (mm); empty for a circular scan. */
  void
  SetHelicalShifts(const std::vector<double> & shifts);
  std::vector<double>
  GetHelicalShifts() const;

  /** A cylindrical detector centred on the source instead of a flat one. */
  virtual void
  SetCurvedDetector(bool curved);
  bool
  GetCurvedDetector() const;
  itkBooleanMacro(CurvedDetector);

  /** z (mm) of the centre of the slice range. */
  void
  SetVolumeSliceOffset(double offset);
  double
  GetVolumeSliceOffset() const;

  /** SourceToDetectorDistance / SourceToIsocenterDistance, or 1 when the former is infinite. */
  double
  GetMagnification() const override;

protected:
  MBIRConeBeamGeometry() = default;
  ~MBIRConeBeamGeometry() override = default;

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
  double
  GetCentreSliceOffset() const override
  {
    return m_Geometry.reconSliceOffset;
  }

private:
  EngineGeometryType m_Geometry;
};

} // namespace itk

#endif
