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
#ifndef itkMBIRScanReader_h
#define itkMBIRScanReader_h

#include "MBIRExport.h"
#include "itkImage.h"
#include "itkMBIRGeometry.h"

#include <string>
#include <vector>

namespace itk {

/** What a scan's files hold (MBIRScanReader). */
struct MBIRScan
{
  Image<float, 3>::Pointer Projections;
  Image<float, 3>::Pointer Dark;   ///< null when the files hold none
  Image<float, 3>::Pointer Bright; ///< null when the files hold none
  MBIRGeometry::Pointer    Geometry;
  std::vector<std::string> Notes; ///< what was assumed or mapped, one line each

  /** The same through methods, for the Python wrapping (which does not wrap data members). */
  Image<float, 3> *
  GetProjections() const
  {
    return Projections.GetPointer();
  }
  Image<float, 3> *
  GetDark() const
  {
    return Dark.GetPointer();
  }
  Image<float, 3> *
  GetBright() const
  {
    return Bright.GetPointer();
  }
  MBIRGeometry *
  GetGeometry() const
  {
    return Geometry.GetPointer();
  }
  std::string
  GetNotes() const ///< one line each
  {
    std::string text;
    for (const std::string & note : Notes)
      text += note + "\n";
    return text;
  }
};

/** How MBIRScanReader maps what the files leave open. */
struct MBIRScanReaderOptions
{
  /** DXchange: the detector pitch in mm when the file gives none (0: the file must give it). */
  double PixelSize = 0.0;
  /** Negate every angle: for a scanner that turns the other way than these readers assume (a reconstruction
   * mirrored left to right says so). */
  bool ReverseRotation = false;
};

/** \class MBIRScanReader
 * \brief Reads the files of a real scan into raw projections, optional dark and bright fields and a geometry,
 * with no hand editing (README "Real scanner data: files").
 *
 * Three layouts:
 * - ReadTiffFolder(): one TIFF per projection in a folder (sorted by name) and a JSON sidecar that gives the
 *   angles (inline or in a JSON or text file, in radians or degrees), the detector pitch and, for cone beam,
 *   the distances;
 * - ReadDXchange(): an HDF5 file in the DXchange layout (/exchange/data, data_white, data_dark, theta) ->
 *   parallel beam;
 * - ReadXtekCT(): a Nikon XT H .xtekct file ([XTekCT] section, key=value lines) and its TIFF projections
 *   <Name>_0001.tif ... -> cone beam.
 *
 * Images are float [channel, row, view] (dark and bright: [channel, row, frame]) with spacing
 * [channel pitch, row pitch, 1] mm, the detector centred on the origin and identity direction, as the filters
 * take them. Lengths are in mm and angles in radians. A file that does not hold what it should raises an
 * ExceptionObject naming the file and the field.
 *
 * \ingroup MBIR
 */
class MBIR_EXPORT MBIRScanReader
{
public:
  using ImageType = Image<float, 3>;

  using Scan = MBIRScan;
  using Options = MBIRScanReaderOptions;

  /** A folder of TIFF projections described by a JSON sidecar (keys in the README). `folder` empty: the
   * sidecar's "folder" key, else the sidecar's own folder. */
  static Scan
  ReadTiffFolder(const std::string & folder, const std::string & sidecar, const Options & options = Options());

  /** An HDF5 file in the DXchange layout. Throws when the module was built without HDF5. */
  static Scan
  ReadDXchange(const std::string & path, const Options & options = Options());

  /** A Nikon .xtekct file and its projections. */
  static Scan
  ReadXtekCT(const std::string & path, const Options & options = Options());

  /** Whether ReadDXchange() is available (the module was built with HDF5). */
  static bool
  HasDXchange();
};

} // end namespace itk

#endif
