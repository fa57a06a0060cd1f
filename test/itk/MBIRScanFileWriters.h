#pragma once
// Small scan files in the layouts MBIRScanReader reads, written the way scanners write them: 16-bit TIFF
// projections with a JSON sidecar, a Nikon .xtekct file with <Name>_NNNN.tif projections and, with HDF5, a
// DXchange file. Shared by the reader tests and MBIRWriteSampleScans (the data of the mbir-import tests).

#include "itkImage.h"
#include "itkImageFileWriter.h"
#include "itkTIFFImageIO.h"

#ifdef MBIR_TEST_HDF5
#  include <hdf5.h>
#endif

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace mbir::scanfiles {

namespace fs = std::filesystem;

inline void
writeText(const fs::path & path, const std::string & text)
{
  std::ofstream(path) << text;
}

// The value of pixel (c, r) of frame f in the test images: distinct everywhere, exact in 16 bits.
inline float
pixelValue(int frame, int row, int channel)
{
  return static_cast<float>(1000 * frame + 10 * row + channel);
}

// A 16-bit TIFF of `channels` x `rows` pixels holding pixelValue(frame, ...).
inline void
writeTiff(const fs::path & path, int channels, int rows, int frame)
{
  using Slice = itk::Image<std::uint16_t, 2>;
  auto            image = Slice::New();
  Slice::SizeType size = { { static_cast<itk::SizeValueType>(channels), static_cast<itk::SizeValueType>(rows) } };
  image->SetRegions(Slice::RegionType(size));
  image->Allocate();
  for (int r = 0; r < rows; ++r)
  {
    for (int c = 0; c < channels; ++c)
    {
      image->SetPixel({ { c, r } }, static_cast<std::uint16_t>(pixelValue(frame, r, c)));
    }
  }
  auto writer = itk::ImageFileWriter<Slice>::New();
  writer->SetImageIO(itk::TIFFImageIO::New());
  writer->SetFileName(path.string());
  writer->SetInput(image);
  writer->Update();
}

// 3 projections of 6 x 4 (proj_0..2, values frames 0..2), 2 darks (frames 10, 11), 1 bright (frame 20).
inline void
writeTiffScan(const fs::path & folder)
{
  for (int v = 0; v < 3; ++v)
  {
    writeTiff(folder / ("proj_" + std::to_string(v) + ".tif"), 6, 4, v);
  }
  writeTiff(folder / "dark_0.tif", 6, 4, 10);
  writeTiff(folder / "dark_1.tif", 6, 4, 11);
  writeTiff(folder / "flat_0.tif", 6, 4, 20);
  writeText(folder / "angles.txt", "# degrees\n0\n90\n\n180\n");
}

inline const std::string coneSidecar = R"({"geometry": "cone", "angles_file": "angles.txt", "angle_unit": "degree",
  "pixel_size": [0.2, 0.25], "detector_offset": [0.1, -0.05], "source_detector_dist": 800,
  "source_iso_dist": 200, "dark": "dark*.tif", "bright": "flat*.tif"})";

#ifdef MBIR_TEST_HDF5
// Writes a DXchange file; each part can be left out or changed to make it malformed.
struct DXchangeFile
{
  std::vector<hsize_t> data = { 3, 4, 5 }, white = { 2, 4, 5 }, dark = { 1, 4, 5 };
  std::vector<double>  theta = { 0.0, 60.0, 120.0 };
  std::string          thetaUnits;          // no attribute when empty
  std::vector<double>  pixelSize = { 6.5 }; // /measurement/instrument/detector/pixel_size
  std::string          pixelUnits = "um";   // no attribute when empty
  bool                 withData = true, withTheta = true;

  static hid_t
  group(hid_t parent, const char * name)
  {
    return H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  }
  static void
  textAttribute(hid_t object, const std::string & value)
  {
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, value.size());
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t attribute = H5Acreate2(object, "units", type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attribute, type, value.c_str());
    H5Aclose(attribute);
    H5Sclose(space);
    H5Tclose(type);
  }
  // A uint16 stack whose frame f holds pixelValue(first + f, ...).
  static void
  stack(hid_t parent, const char * name, const std::vector<hsize_t> & dims, int first)
  {
    std::vector<std::uint16_t> values;
    hsize_t frames = dims.size() == 3 ? dims[0] : 1, rows = dims[dims.size() - 2], channels = dims.back();
    for (hsize_t f = 0; f < frames; ++f)
      for (hsize_t r = 0; r < rows; ++r)
        for (hsize_t c = 0; c < channels; ++c)
          values.push_back(static_cast<std::uint16_t>(pixelValue(first + f, r, c)));
    const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t dataset = H5Dcreate2(parent, name, H5T_STD_U16LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(dataset, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(dataset);
    H5Sclose(space);
  }
  static void
  numbers(hid_t parent, const char * name, const std::vector<double> & values, const std::string & units)
  {
    const hsize_t n = values.size();
    const hid_t   space = H5Screate_simple(1, &n, nullptr);
    const hid_t   dataset = H5Dcreate2(parent, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    if (!units.empty())
      textAttribute(dataset, units);
    H5Dclose(dataset);
    H5Sclose(space);
  }
  void
  write(const fs::path & path) const
  {
    const hid_t file = H5Fcreate(path.string().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t exchange = group(file, "exchange");
    if (withData)
      stack(exchange, "data", data, 0);
    if (!white.empty())
      stack(exchange, "data_white", white, 20);
    if (!dark.empty())
      stack(exchange, "data_dark", dark, 10);
    if (withTheta)
      numbers(exchange, "theta", theta, thetaUnits);
    H5Gclose(exchange);
    if (!pixelSize.empty())
    {
      const hid_t measurement = group(file, "measurement"), instrument = group(measurement, "instrument"),
                  detector = group(instrument, "detector");
      numbers(detector, "pixel_size", pixelSize, pixelUnits);
      H5Gclose(detector);
      H5Gclose(instrument);
      H5Gclose(measurement);
    }
    H5Fclose(file);
  }
};
#endif

// An .xtekct file for 4 projections of 6 x 4 and the projections scan_0001.tif ... scan_0004.tif.
inline void
writeXtekScan(const fs::path & folder, const std::string & extra = "")
{
  for (int v = 1; v <= 4; ++v)
  {
    char file[32];
    std::snprintf(file, sizeof(file), "scan_%04d.tif", v);
    writeTiff(folder / file, 6, 4, v - 1);
  }
  writeText(folder / "scan.xtekct",
            "[XTekCT]\r\nName=scan\r\nVoxelsX=6\r\nSrcToObject=150.5\r\nSrcToDetector=1000\r\nDetectorPixelsX=6\r\n"
            "DetectorPixelsY=4\r\nDetectorPixelSizeX=0.2\r\nDetectorPixelSizeY=0.25\r\nDetectorOffsetX=0.4\r\n"
            "DetectorOffsetY=0\r\nUnits=mm\r\nProjections=4\r\nInitialAngle=10\r\nAngularStep=90\r\n" +
              extra + "[Xrays]\r\nXraykV=160\r\n");
}

} // namespace mbir::scanfiles
