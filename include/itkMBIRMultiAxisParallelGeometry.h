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
#ifndef itkMBIRMultiAxisParallelGeometry_h
#define itkMBIRMultiAxisParallelGeometry_h

#include "itkMBIRGeometry.h"
#include "mbir/MultiAxisParallelGeometry.h"

namespace itk {

/** \class MBIRMultiAxisParallelGeometry
 * \brief Multi-axis parallel-beam scan: parallel rays with a per-view azimuth and elevation.
 *
 * The azimuth (Angles, radians) turns the scanner about the z axis as the parallel-beam angle does; the
 * elevation (radians, |elevation| < pi/2) tilts the rays out of the x-y plane toward +z as they travel to the
 * detector. A constant elevation is laminography. VolumeSliceOffset is the z of the centre of the slice
 * range. Typical use: New(), the detector, SetAngles(), SetElevations(), then AutoSetVolumeGeometry().
 *
 * \sa MBIRGeometry for units, index order and the physical frame.
 * \ingroup MBIR
 */
class MBIR_EXPORT MBIRMultiAxisParallelGeometry : public MBIRGeometry
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MBIRMultiAxisParallelGeometry);

  using Self = MBIRMultiAxisParallelGeometry;
  using Superclass = MBIRGeometry;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using EngineGeometryType = mbir::MultiAxisParallelGeometry;

  itkNewMacro(Self);
  itkOverrideGetNameOfClassMacro(MBIRMultiAxisParallelGeometry);

  mbir::Geometry
  GetEngineGeometry() const override;

  /** Replaces every parameter by those of an engine struct (not validated here). */
  void
  SetEngineGeometry(const EngineGeometryType & geometry);

  /** Azimuths in radians, one per view; their number is the number of views. */
  void
  SetAngles(const std::vector<double> & azimuths);
  std::vector<double>
  GetAngles() const;

  /** Elevations in radians, one per view. */
  void
  SetElevations(const std::vector<double> & elevations);
  std::vector<double>
  GetElevations() const;

  /** z (mm) of the centre of the slice range. */
  void
  SetVolumeSliceOffset(double offset);
  double
  GetVolumeSliceOffset() const;

  double
  GetMagnification() const override;

protected:
  MBIRMultiAxisParallelGeometry() = default;
  ~MBIRMultiAxisParallelGeometry() override = default;

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
