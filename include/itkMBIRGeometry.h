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
#ifndef itkMBIRGeometry_h
#define itkMBIRGeometry_h

#include "MBIRExport.h"
#include "itkDataObject.h"
#include "itkMBIRMacro.h"
#include "itkPoint.h"
#include "itkSize.h"
#include "itkVector.h"
#include "mbir/Geometry.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace itk {

/** \class MBIRGeometryEnums
 * \brief Enumerations of the MBIR geometries.
 * \ingroup MBIR
 */
class MBIRGeometryEnums
{
public:
  /** \class RegionOfReconstruction
   * \brief The pixels (voxel columns along z) that a reconstruction updates.
   * \ingroup MBIR
   */
  enum class RegionOfReconstruction : std::uint8_t
  {
    Ellipse, ///< the ellipse inscribed in the x-y grid (the default of rotating geometries)
    All,     ///< every pixel (the default of the translation geometry)
    Custom   ///< a user mask, set with MBIRGeometry::SetRegionOfReconstructionMask()
  };
};

extern MBIR_EXPORT std::ostream &
                   operator<<(std::ostream & out, const MBIRGeometryEnums::RegionOfReconstruction value);

/** \class MBIRGeometry
 * \brief A scan geometry and its reconstruction grid, the common part of the MBIR geometries.
 *
 * Each subclass is a typed, documented wrapper around one engine geometry struct (mbir::ParallelBeamGeometry
 * and so on); GetEngineGeometry() hands a validated copy to the engine. Lengths are in millimetres and
 * angles in radians. The engine calls its length unit "ALU" and leaves its choice to the user; the ITK layer
 * chooses the millimetre, so values pass through unchanged. They are stored at the engine's float32
 * precision, so a getter returns the float32 value nearest to what was set.
 *
 * Physical frame (the README's object frame x~, y~, z~ is exactly this frame): x runs along the recon
 * columns, y along the recon rows and z along the slices, which is the rotation axis of the rotating
 * geometries; the origin is on the rotation axis at z = 0 (for the translation geometry, which does not
 * rotate, at the grid centre, a distance S from the source when a view's translation is zero). A volume image indexed
 * [x = column, y = row, z = slice] with spacing GetVolumeSpacing(), origin GetVolumeOrigin() and identity direction
 * therefore lies where the engine's projectors put the recon.
 *
 * Projections are indexed [channel, row, view]: the sinogram has GetNumberOfViews() views of
 * GetNumberOfRows() x GetNumberOfChannels() detector cells. The number of views is the length of the
 * per-view arrays (angles, translations), set with them; arrays whose lengths disagree are reported by
 * GetEngineGeometry(), with the engine's message naming the field.
 *
 * Setters call Modified() only when the stored value changes, as itkSetMacro does.
 *
 * \ingroup MBIR
 */
class MBIR_EXPORT MBIRGeometry : public DataObject
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MBIRGeometry);

  using Self = MBIRGeometry;
  using Superclass = DataObject;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkOverrideGetNameOfClassMacro(MBIRGeometry);

  /** (channel, row) pairs of the detector, in mm. */
  using DetectorVectorType = Vector<double, 2>;
  /** Volume size in ITK index order [x = column, y = row, z = slice]. */
  using VolumeSizeType = Size<3>;
  /** Voxel pitches [x, y, z] in mm. */
  using VolumeSpacingType = Vector<double, 3>;
  using VolumePointType = Point<double, 3>;
  /** Size [x = columns, y = rows] of a region-of-reconstruction mask. */
  using MaskSizeType = Size<2>;
  using MaskType = std::vector<unsigned char>;
  using RegionOfReconstructionEnum = MBIRGeometryEnums::RegionOfReconstruction;

  /** A validated copy of the engine geometry; throws ExceptionObject with the engine's message, which names
   * the offending field, when the geometry is not usable. */
  virtual mbir::Geometry
  GetEngineGeometry() const = 0;

  /** A new geometry of the subclass that matches the engine geometry's type, holding a copy of it (which is
   * not validated). */
  static Pointer
  FromEngineGeometry(const mbir::Geometry & geometry);

  /** Geometry files, the engine's JSON (mbir/GeometryJson.h). Errors are ExceptionObjects that keep the
   * engine's message, which starts with the path for file errors and names the field for bad content. */
  static Pointer
  ReadJSON(const std::string & path);
  void
  WriteJSON(const std::string & path) const;
  std::string
  ToJSON() const;
  static Pointer
  FromJSON(const std::string & text);

  /** Detector cells per row (channels) and rows. */
  void
  SetDetectorSize(SizeValueType channels, SizeValueType rows);
  SizeValueType
  GetNumberOfChannels() const;
  SizeValueType
  GetNumberOfRows() const;
  /** The length of the per-view arrays, set with them. */
  SizeValueType
  GetNumberOfViews() const;

  /** Channel pitch and row pitch in mm (for a curved detector the channel pitch is an arc length). */
  void
  SetDetectorSpacing(const DetectorVectorType & spacing);
  DetectorVectorType
  GetDetectorSpacing() const;

  /** Channel and row offsets in mm: the central ray hits channel (C-1)/2 + offset[0] / pitch[0] and row
   * (R-1)/2 + offset[1] / pitch[1], so a positive offset moves it toward larger indices. */
  void
  SetDetectorOffset(const DetectorVectorType & offset);
  DetectorVectorType
  GetDetectorOffset() const;

  /** Recon grid size [x = columns, y = rows, z = slices]. */
  void
  SetVolumeSize(const VolumeSizeType & size);
  VolumeSizeType
  GetVolumeSize() const;

  /** Voxel pitches [x, y, z] in mm. The engine keeps the x pitch and the y / x and z / x ratios, so all three
   * must be finite and > 0; anything else throws at once. (Parallel beam: z is the detector row pitch.) */
  virtual void
  SetVolumeSpacing(const VolumeSpacingType & spacing);
  virtual VolumeSpacingType
  GetVolumeSpacing() const;

  /** Physical position (mm) of voxel [0, 0, 0]: the grid is centred on the rotation axis in x and y and on
   * the volume slice offset in z. */
  VolumePointType
  GetVolumeOrigin() const;

  /** Sets the default grid of the engine (autoSetReconGeometry) from the detector and the scan; call it after
   * changing them. It keeps the region of reconstruction. */
  void
  AutoSetVolumeGeometry();

  /** Scales the number of columns (x) and rows (y), truncating, and keeps the pitch and the centre: 0.5 crops
   * to the centre, 1.5 enlarges. */
  void
  ScaleVolumeSize(double xScale, double yScale);

  /** Ellipse or All; a custom mask is set with SetRegionOfReconstructionMask(), and passing Custom here
   * throws. */
  void
  SetRegionOfReconstruction(RegionOfReconstructionEnum region);
  RegionOfReconstructionEnum
  GetRegionOfReconstruction() const;

  /** A custom region of reconstruction: 0/1 entries, row-major over (rows = y, columns = x), of size
   * [x, y] which must match the x-y size of the volume by the time the geometry is used. Entries other
   * than 0 and 1, or a size that disagrees with mask.size(), throw at once. */
  void
  SetRegionOfReconstructionMask(MaskType mask, const MaskSizeType & xySize);
  /** The custom mask and its size; empty and [0, 0] unless the region is Custom. */
  const MaskType &
  GetRegionOfReconstructionMask() const;
  MaskSizeType
  GetRegionOfReconstructionMaskSize() const;

  /** Source-to-detector over source-to-isocentre distance; 1 for parallel rays. */
  virtual double
  GetMagnification() const = 0;

protected:
  MBIRGeometry() = default;
  ~MBIRGeometry() override = default;

  void
  PrintSelf(std::ostream & os, Indent indent) const override;

  /** The engine struct of the subclass, as its shared part. */
  virtual mbir::DetectorAndGrid &
  GetDetectorAndGrid() = 0;
  virtual const mbir::DetectorAndGrid &
  GetDetectorAndGrid() const = 0;

  /** The engine's autoSetReconGeometry() of the subclass's struct. */
  virtual void
  AutoSetEngineVolumeGeometry() = 0;

  /** z of the centre of the slice range (the engine's recon_slice_offset); 0 where the geometry has none. */
  virtual double
  GetCentreSliceOffset() const
  {
    return 0.0;
  }

  /** Validates `geometry` and returns it; the engine's std::invalid_argument becomes an ExceptionObject. */
  mbir::Geometry
  ValidatedEngineGeometry(mbir::Geometry geometry) const;

  /** Call after replacing the engine struct wholesale: reads a custom mask's values back from it, since the
   * engine mask does not expose them otherwise. Throws when such a mask does not match the grid. */
  void
  TakeOverRegionOfReconstructionMask();

  /** Stores `value` at float32 precision; true when the stored value changed. */
  static bool
  AssignIfChanged(float & field, double value);
  static bool
  AssignIfChanged(std::vector<float> & field, const std::vector<double> & values);
  static std::vector<double>
  ToDoubles(const std::vector<float> & values);

  /** Prints `name: n values: v0 v1 ...`, shortened in the middle for long arrays. */
  static void
  PrintValues(std::ostream & os, Indent indent, const char * name, const std::vector<float> & values);

private:
  // The engine's RorMask does not give its values back, so the custom mask is kept here as well.
  MaskType     m_RegionOfReconstructionMask;
  MaskSizeType m_RegionOfReconstructionMaskSize{ { 0, 0 } };
};

} // namespace itk

#endif
