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
#ifndef itkMBIRParallelBeamGeometry_h
#define itkMBIRParallelBeamGeometry_h

#include "itkMBIRGeometry.h"
#include "mbir/ParallelBeamGeometry.h"

namespace itk {

/** \class MBIRParallelBeamGeometry
 * \brief Parallel-beam scan: parallel rays, one view angle per view, turning about the z axis.
 *
 * Slice k of the volume is detector row k: the engine requires as many slices as detector rows and a zero
 * row offset (GetEngineGeometry() reports otherwise), and the z voxel pitch is the detector row pitch. So
 * GetVolumeSpacing()[2] is the row pitch (the engine's voxel_slice_aspect stays 1, which it requires), and
 * SetVolumeSpacing() throws when its z differs from the row pitch; set the detector spacing first. Angles are
 * in radians; at angle beta the detector's channel axis is x cos(beta) - y sin(beta). Typical use: New(),
 * SetDetectorSize(), SetDetectorSpacing(), SetAngles(), then AutoSetVolumeGeometry().
 *
 * \sa MBIRGeometry for units, index order and the physical frame.
 * \ingroup MBIR
 */
class MBIR_EXPORT MBIRParallelBeamGeometry : public MBIRGeometry
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MBIRParallelBeamGeometry);

  using Self = MBIRParallelBeamGeometry;
  using Superclass = MBIRGeometry;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using EngineGeometryType = mbir::ParallelBeamGeometry;

  itkNewMacro(Self);
  itkOverrideGetNameOfClassMacro(MBIRParallelBeamGeometry);

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

  /** x and y as for every geometry; z must be the detector row pitch. */
  void
  SetVolumeSpacing(const VolumeSpacingType & spacing) override;
  /** [x, y, detector row pitch]. */
  VolumeSpacingType
  GetVolumeSpacing() const override;

  double
  GetMagnification() const override;

protected:
  MBIRParallelBeamGeometry() = default;
  ~MBIRParallelBeamGeometry() override = default;

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
