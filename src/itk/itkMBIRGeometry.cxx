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
#include "itkMBIRGeometry.h"

#include "itkMBIRConeBeamGeometry.h"
#include "itkMBIRMultiAxisParallelGeometry.h"
#include "itkMBIRParallelBeamGeometry.h"
#include "itkMBIRTranslationGeometry.h"
#include "mbir/GeometryJson.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

namespace itk {
namespace {

// The engine counts in int; larger ITK sizes cannot be represented.
int
ToEngineCount(SizeValueType value, const char * what)
{
  if (value > static_cast<SizeValueType>(std::numeric_limits<int>::max()))
  {
    itkGenericExceptionMacro("MBIRGeometry: " << what << " " << value << " is too large");
  }
  return static_cast<int>(value);
}

SizeValueType
ToSize(int value)
{
  return static_cast<SizeValueType>(value > 0 ? value : 0);
}

// The ITK class of each engine geometry (as its Pointer), in the order of the mbir::Geometry variant, which
// the static_assert checks: the one place of the ITK layer that lists the geometries.
using GeometryClasses = std::tuple<MBIRParallelBeamGeometry::Pointer,
                                   MBIRConeBeamGeometry::Pointer,
                                   MBIRTranslationGeometry::Pointer,
                                   MBIRMultiAxisParallelGeometry::Pointer>;
template<std::size_t I>
using GeometryClass = typename std::tuple_element_t<I, GeometryClasses>::ObjectType;

template<std::size_t... I>
constexpr bool
MatchesEngineGeometries(std::index_sequence<I...>)
{
  return std::tuple_size_v<GeometryClasses> == std::variant_size_v<mbir::Geometry> &&
         (std::is_same_v<typename GeometryClass<I>::EngineGeometryType,
                         std::variant_alternative_t<I, mbir::Geometry>> &&
          ...);
}
static_assert(MatchesEngineGeometries(std::make_index_sequence<std::tuple_size_v<GeometryClasses>>()),
              "GeometryClasses must list one ITK geometry class per mbir::Geometry alternative, in its order");

template<std::size_t I = 0>
MBIRGeometry::Pointer
MakeGeometry(const mbir::Geometry & geometry)
{
  if constexpr (I + 1 < std::tuple_size_v<GeometryClasses>)
  {
    if (geometry.index() != I)
    {
      return MakeGeometry<I + 1>(geometry);
    }
  }
  auto result = GeometryClass<I>::New();
  result->SetEngineGeometry(std::get<I>(geometry));
  return MBIRGeometry::Pointer(result.GetPointer());
}

// What AutoSetVolumeGeometry() and ScaleVolumeSize() may change, to call Modified() only on a change.
struct GridState
{
  float            deltaVoxel;
  float            voxelRowAspect;
  float            voxelSliceAspect;
  mbir::ReconShape reconShape;
  double           sliceOffset;

  bool
  operator==(const GridState & other) const
  {
    return deltaVoxel == other.deltaVoxel && voxelRowAspect == other.voxelRowAspect &&
           voxelSliceAspect == other.voxelSliceAspect && reconShape == other.reconShape &&
           sliceOffset == other.sliceOffset;
  }
};

GridState
GridStateOf(const mbir::DetectorAndGrid & g, double sliceOffset)
{
  return GridState{ g.deltaVoxel, g.voxelRowAspect, g.voxelSliceAspect, g.reconShape, sliceOffset };
}

} // namespace

std::ostream &
operator<<(std::ostream & out, const MBIRGeometryEnums::RegionOfReconstruction value)
{
  switch (value)
  {
    case MBIRGeometryEnums::RegionOfReconstruction::Ellipse:
      return out << "itk::MBIRGeometryEnums::RegionOfReconstruction::Ellipse";
    case MBIRGeometryEnums::RegionOfReconstruction::All:
      return out << "itk::MBIRGeometryEnums::RegionOfReconstruction::All";
    case MBIRGeometryEnums::RegionOfReconstruction::Custom:
      return out << "itk::MBIRGeometryEnums::RegionOfReconstruction::Custom";
  }
  return out << "INVALID VALUE FOR itk::MBIRGeometryEnums::RegionOfReconstruction";
}

MBIRGeometry::Pointer
MBIRGeometry::FromEngineGeometry(const mbir::Geometry & geometry)
{
  return MakeGeometry(geometry);
}

MBIRGeometry::Pointer
MBIRGeometry::ReadJSON(const std::string & path)
{
  mbir::Geometry geometry;
  try
  {
    geometry = mbir::readGeometryFile(path);
  }
  catch (const std::exception & e)
  {
    itkGenericExceptionMacro("MBIRGeometry::ReadJSON: " << e.what());
  }
  return FromEngineGeometry(geometry);
}

void
MBIRGeometry::WriteJSON(const std::string & path) const
{
  const mbir::Geometry geometry = this->GetEngineGeometry();
  try
  {
    mbir::writeGeometryFile(geometry, path);
  }
  catch (const std::exception & e)
  {
    itkExceptionMacro("WriteJSON: " << e.what());
  }
}

std::string
MBIRGeometry::ToJSON() const
{
  const mbir::Geometry geometry = this->GetEngineGeometry();
  try
  {
    return mbir::geometryToJson(geometry);
  }
  catch (const std::exception & e)
  {
    itkExceptionMacro("ToJSON: " << e.what());
  }
}

MBIRGeometry::Pointer
MBIRGeometry::FromJSON(const std::string & text)
{
  mbir::Geometry geometry;
  try
  {
    geometry = mbir::geometryFromJson(text);
  }
  catch (const std::exception & e)
  {
    itkGenericExceptionMacro("MBIRGeometry::FromJSON: " << e.what());
  }
  return FromEngineGeometry(geometry);
}

mbir::Geometry
MBIRGeometry::ValidatedEngineGeometry(mbir::Geometry geometry) const
{
  try
  {
    std::visit([](const auto & g) { g.validate(); }, geometry);
  }
  catch (const std::invalid_argument & e)
  {
    itkExceptionMacro(<< e.what());
  }
  return geometry;
}

void
MBIRGeometry::SetDetectorSize(SizeValueType channels, SizeValueType rows)
{
  mbir::SinogramShape & shape = this->GetDetectorAndGrid().sinogramShape;
  const int             c = ToEngineCount(channels, "number of channels");
  const int             r = ToEngineCount(rows, "number of rows");
  if (shape.channels != c || shape.rows != r)
  {
    shape.channels = c;
    shape.rows = r;
    this->Modified();
  }
}

SizeValueType
MBIRGeometry::GetNumberOfChannels() const
{
  return ToSize(this->GetDetectorAndGrid().sinogramShape.channels);
}

SizeValueType
MBIRGeometry::GetNumberOfRows() const
{
  return ToSize(this->GetDetectorAndGrid().sinogramShape.rows);
}

SizeValueType
MBIRGeometry::GetNumberOfViews() const
{
  return ToSize(this->GetDetectorAndGrid().sinogramShape.views);
}

void
MBIRGeometry::SetDetectorSpacing(const DetectorVectorType & spacing)
{
  mbir::DetectorAndGrid & g = this->GetDetectorAndGrid();
  // Both assignments must run, so no short-circuit.
  const bool changed = AssignIfChanged(g.deltaDetChannel, spacing[0]) | AssignIfChanged(g.deltaDetRow, spacing[1]);
  if (changed)
  {
    this->Modified();
  }
}

MBIRGeometry::DetectorVectorType
MBIRGeometry::GetDetectorSpacing() const
{
  const mbir::DetectorAndGrid & g = this->GetDetectorAndGrid();
  DetectorVectorType            spacing;
  spacing[0] = g.deltaDetChannel;
  spacing[1] = g.deltaDetRow;
  return spacing;
}

void
MBIRGeometry::SetDetectorOffset(const DetectorVectorType & offset)
{
  mbir::DetectorAndGrid & g = this->GetDetectorAndGrid();
  const bool changed = AssignIfChanged(g.detChannelOffset, offset[0]) | AssignIfChanged(g.detRowOffset, offset[1]);
  if (changed)
  {
    this->Modified();
  }
}

MBIRGeometry::DetectorVectorType
MBIRGeometry::GetDetectorOffset() const
{
  const mbir::DetectorAndGrid & g = this->GetDetectorAndGrid();
  DetectorVectorType            offset;
  offset[0] = g.detChannelOffset;
  offset[1] = g.detRowOffset;
  return offset;
}

void
MBIRGeometry::SetVolumeSize(const VolumeSizeType & size)
{
  // ITK index order [x, y, z] is the engine's (cols, rows, slices).
  const mbir::ReconShape shape{ ToEngineCount(size[1], "volume size y"),
                                ToEngineCount(size[0], "volume size x"),
                                ToEngineCount(size[2], "volume size z") };
  mbir::ReconShape &     current = this->GetDetectorAndGrid().reconShape;
  if (!(current == shape))
  {
    current = shape;
    this->Modified();
  }
}

MBIRGeometry::VolumeSizeType
MBIRGeometry::GetVolumeSize() const
{
  const mbir::ReconShape & shape = this->GetDetectorAndGrid().reconShape;
  VolumeSizeType           size;
  size[0] = ToSize(shape.cols);
  size[1] = ToSize(shape.rows);
  size[2] = ToSize(shape.slices);
  return size;
}

void
MBIRGeometry::SetVolumeSpacing(const VolumeSpacingType & spacing)
{
  for (unsigned int d = 0; d < 3; ++d)
  {
    if (!(std::isfinite(spacing[d]) && spacing[d] > 0.0))
    {
      itkExceptionMacro("SetVolumeSpacing: every voxel pitch must be finite and > 0, got " << spacing);
    }
  }
  mbir::DetectorAndGrid & g = this->GetDetectorAndGrid();
  const bool              changed = AssignIfChanged(g.deltaVoxel, spacing[0]) |
                       AssignIfChanged(g.voxelRowAspect, spacing[1] / spacing[0]) |
                       AssignIfChanged(g.voxelSliceAspect, spacing[2] / spacing[0]);
  if (changed)
  {
    this->Modified();
  }
}

MBIRGeometry::VolumeSpacingType
MBIRGeometry::GetVolumeSpacing() const
{
  // Computed in double from the stored float32 values, so that dyadic pitches come back exactly.
  const mbir::DetectorAndGrid & g = this->GetDetectorAndGrid();
  VolumeSpacingType             spacing;
  spacing[0] = g.deltaVoxel;
  spacing[1] = static_cast<double>(g.deltaVoxel) * g.voxelRowAspect;
  spacing[2] = static_cast<double>(g.deltaVoxel) * g.voxelSliceAspect;
  return spacing;
}

MBIRGeometry::VolumePointType
MBIRGeometry::GetVolumeOrigin() const
{
  const VolumeSizeType    size = this->GetVolumeSize();
  const VolumeSpacingType spacing = this->GetVolumeSpacing();
  VolumePointType         origin;
  for (unsigned int d = 0; d < 3; ++d)
  {
    origin[d] = -0.5 * spacing[d] * (static_cast<double>(size[d]) - 1.0);
  }
  origin[2] += this->GetCentreSliceOffset();
  return origin;
}

void
MBIRGeometry::AutoSetVolumeGeometry()
{
  const GridState before = GridStateOf(this->GetDetectorAndGrid(), this->GetCentreSliceOffset());
  try
  {
    this->AutoSetEngineVolumeGeometry();
  }
  catch (const std::invalid_argument & e) // a NaN, infinite or zero pitch or distance
  {
    itkExceptionMacro("AutoSetVolumeGeometry: " << e.what());
  }
  if (!(GridStateOf(this->GetDetectorAndGrid(), this->GetCentreSliceOffset()) == before))
  {
    this->Modified();
  }
}

void
MBIRGeometry::ScaleVolumeSize(double xScale, double yScale)
{
  mbir::DetectorAndGrid & g = this->GetDetectorAndGrid();
  const mbir::ReconShape  before = g.reconShape;
  try
  {
    g.scaleReconShape(static_cast<float>(yScale), static_cast<float>(xScale));
  }
  catch (const std::invalid_argument & e)
  {
    itkExceptionMacro("ScaleVolumeSize: " << e.what());
  }
  if (!(g.reconShape == before))
  {
    this->Modified();
  }
}

void
MBIRGeometry::SetRegionOfReconstruction(RegionOfReconstructionEnum region)
{
  if (region == RegionOfReconstructionEnum::Custom)
  {
    itkExceptionMacro("SetRegionOfReconstruction: set a custom region with SetRegionOfReconstructionMask()");
  }
  if (region == this->GetRegionOfReconstruction())
  {
    return;
  }
  this->GetDetectorAndGrid().rorMask =
    region == RegionOfReconstructionEnum::Ellipse ? mbir::RorMask::ellipse() : mbir::RorMask::none();
  m_RegionOfReconstructionMask.clear();
  m_RegionOfReconstructionMaskSize.Fill(0);
  this->Modified();
}

MBIRGeometry::RegionOfReconstructionEnum
MBIRGeometry::GetRegionOfReconstruction() const
{
  switch (this->GetDetectorAndGrid().rorMask.kind())
  {
    case mbir::RorMask::Kind::Ellipse:
      return RegionOfReconstructionEnum::Ellipse;
    case mbir::RorMask::Kind::None:
      return RegionOfReconstructionEnum::All;
    case mbir::RorMask::Kind::Custom:
      break;
  }
  return RegionOfReconstructionEnum::Custom;
}

void
MBIRGeometry::SetRegionOfReconstructionMask(MaskType mask, const MaskSizeType & xySize)
{
  if (this->GetRegionOfReconstruction() == RegionOfReconstructionEnum::Custom &&
      xySize == m_RegionOfReconstructionMaskSize && mask == m_RegionOfReconstructionMask)
  {
    return;
  }
  mbir::RorMask engineMask = mbir::RorMask::ellipse();
  try
  {
    engineMask =
      mbir::RorMask::custom(mask, ToEngineCount(xySize[1], "mask size y"), ToEngineCount(xySize[0], "mask size x"));
  }
  catch (const std::invalid_argument & e)
  {
    itkExceptionMacro("SetRegionOfReconstructionMask: " << e.what());
  }
  this->GetDetectorAndGrid().rorMask = std::move(engineMask);
  m_RegionOfReconstructionMask = std::move(mask);
  m_RegionOfReconstructionMaskSize = xySize;
  this->Modified();
}

const MBIRGeometry::MaskType &
MBIRGeometry::GetRegionOfReconstructionMask() const
{
  return m_RegionOfReconstructionMask;
}

MBIRGeometry::MaskSizeType
MBIRGeometry::GetRegionOfReconstructionMaskSize() const
{
  return m_RegionOfReconstructionMaskSize;
}

void
MBIRGeometry::TakeOverRegionOfReconstructionMask()
{
  m_RegionOfReconstructionMask.clear();
  m_RegionOfReconstructionMaskSize.Fill(0);
  const mbir::DetectorAndGrid & g = this->GetDetectorAndGrid();
  if (g.rorMask.kind() != mbir::RorMask::Kind::Custom)
  {
    return;
  }
  // The mask's values are readable only as the pixel list over a grid of its own shape.
  std::vector<int> inside;
  try
  {
    inside = g.rorMask.pixelIndices(g.reconShape);
  }
  catch (const std::invalid_argument & e)
  {
    itkExceptionMacro(
      "a custom region-of-reconstruction mask can be taken over only when it matches the grid: " << e.what());
  }
  m_RegionOfReconstructionMask.assign(g.reconShape.numPixels(), 0);
  for (const int p : inside)
  {
    m_RegionOfReconstructionMask[p] = 1;
  }
  m_RegionOfReconstructionMaskSize[0] = ToSize(g.reconShape.cols);
  m_RegionOfReconstructionMaskSize[1] = ToSize(g.reconShape.rows);
}

bool
MBIRGeometry::AssignIfChanged(float & field, double value)
{
  const float stored = static_cast<float>(value);
  // Bitwise inequality would differ only for NaN and signed zeros; != is what itkSetMacro uses.
  if (field != stored)
  {
    field = stored;
    return true;
  }
  return false;
}

bool
MBIRGeometry::AssignIfChanged(std::vector<float> & field, const std::vector<double> & values)
{
  std::vector<float> stored(values.begin(), values.end());
  if (field != stored)
  {
    field = std::move(stored);
    return true;
  }
  return false;
}

std::vector<double>
MBIRGeometry::ToDoubles(const std::vector<float> & values)
{
  return std::vector<double>(values.begin(), values.end());
}

void
MBIRGeometry::PrintValues(std::ostream & os, Indent indent, const char * name, const std::vector<float> & values)
{
  constexpr std::size_t head = 4, tail = 2;
  os << indent << name << ": " << values.size() << " values:";
  for (std::size_t i = 0; i < values.size(); ++i)
  {
    if (values.size() > head + tail + 2 && i == head)
    {
      os << " ...";
      i = values.size() - tail;
    }
    os << ' ' << values[i];
  }
  os << std::endl;
}

void
MBIRGeometry::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "NumberOfViews: " << this->GetNumberOfViews() << std::endl;
  os << indent << "NumberOfRows: " << this->GetNumberOfRows() << std::endl;
  os << indent << "NumberOfChannels: " << this->GetNumberOfChannels() << std::endl;
  os << indent << "DetectorSpacing (mm): " << this->GetDetectorSpacing() << std::endl;
  os << indent << "DetectorOffset (mm): " << this->GetDetectorOffset() << std::endl;
  os << indent << "VolumeSize: " << this->GetVolumeSize() << std::endl;
  os << indent << "VolumeSpacing (mm): " << this->GetVolumeSpacing() << std::endl;
  os << indent << "VolumeOrigin (mm): " << this->GetVolumeOrigin() << std::endl;
  os << indent << "RegionOfReconstruction: " << this->GetRegionOfReconstruction() << std::endl;
  if (this->GetRegionOfReconstruction() == RegionOfReconstructionEnum::Custom)
  {
    std::size_t inside = 0;
    for (const unsigned char v : m_RegionOfReconstructionMask)
    {
      inside += v;
    }
    os << indent << "RegionOfReconstructionMaskSize: " << m_RegionOfReconstructionMaskSize << " (" << inside
       << " pixels inside)" << std::endl;
  }
  os << indent << "Magnification: " << this->GetMagnification() << std::endl;
}

} // namespace itk
