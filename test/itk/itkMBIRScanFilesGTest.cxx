// The scan readers (MBIRScanReader) on files the tests write themselves: a TIFF folder with a JSON sidecar, a
// DXchange HDF5 file (libhdf5's C API) and a Nikon .xtekct file with its projections. Round trips (values,
// shapes, angles, pitch, distances) and every malformed-file case. Also the filters' refusal of projections
// and volumes whose direction is not the identity, and their use of the geometry, not the origin.

#include "MBIRITKTestSupport.h"
#include "MBIRScanFileWriters.h"
#include "itkFlipImageFilter.h"
#include "itkImageFileWriter.h"
#include "itkMBIRBackProjectionFilter.h"
#include "itkMBIRConeBeamGeometry.h"
#include "itkMBIRDirectReconstructionFilter.h"
#include "itkMBIRForwardProjectionFilter.h"
#include "itkMBIRParallelBeamGeometry.h"
#include "itkMBIRScanReader.h"
#include "itkTIFFImageIO.h"
#include "mbir/Backend.h"
#include "mbir/Projector.h"


#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <unistd.h>
#include <vector>

using namespace mbir::itktest;
using namespace mbir::scanfiles;
namespace fs = std::filesystem;

namespace {

using Reader = itk::MBIRScanReader;

// A fresh folder for one test.
fs::path
scratch(const std::string & name)
{
  const fs::path folder = fs::temp_directory_path() / ("mbir-scanfiles-" + std::to_string(::getpid())) / name;
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}


// Every frame f of `image` holds pixelValue(first + f, ...).
void
expectFrames(const ImageType * image, int channels, int rows, int frames, int first)
{
  ASSERT_NE(image, nullptr);
  const auto size = image->GetLargestPossibleRegion().GetSize();
  ASSERT_EQ(size[0], static_cast<itk::SizeValueType>(channels));
  ASSERT_EQ(size[1], static_cast<itk::SizeValueType>(rows));
  ASSERT_EQ(size[2], static_cast<itk::SizeValueType>(frames));
  for (int f = 0; f < frames; ++f)
  {
    for (int r = 0; r < rows; ++r)
    {
      for (int c = 0; c < channels; ++c)
      {
        ASSERT_EQ(image->GetPixel({ { c, r, f } }), pixelValue(first + f, r, c)) << c << " " << r << " " << f;
      }
    }
  }
}

// The images sit on the detector as the filters take them.
void
expectPlaced(const ImageType * image, double du, double dv)
{
  EXPECT_FLOAT_EQ(image->GetSpacing()[0], du);
  EXPECT_FLOAT_EQ(image->GetSpacing()[1], dv);
  EXPECT_FLOAT_EQ(image->GetSpacing()[2], 1.0);
  const auto size = image->GetLargestPossibleRegion().GetSize();
  EXPECT_NEAR(image->GetOrigin()[0], -0.5 * du * (size[0] - 1.0), 1e-6);
  EXPECT_NEAR(image->GetOrigin()[1], -0.5 * dv * (size[1] - 1.0), 1e-6);
  EXPECT_TRUE(image->GetDirection().GetVnlMatrix().is_identity());
}

void
expectAngles(const std::vector<double> & angles, const std::vector<double> & expected)
{
  ASSERT_EQ(angles.size(), expected.size());
  for (std::size_t v = 0; v < angles.size(); ++v)
  {
    EXPECT_NEAR(angles[v], expected[v], 1e-6) << "view " << v;
  }
}

// `read` must throw an ExceptionObject whose description contains every one of `needles`.
void
expectFails(const std::function<void()> & read, const std::vector<std::string> & needles)
{
  try
  {
    read();
    ADD_FAILURE() << "no exception; expected one mentioning '" << needles.front() << "'";
  }
  catch (const itk::ExceptionObject & e)
  {
    for (const std::string & needle : needles)
    {
      EXPECT_NE(std::string(e.GetDescription()).find(needle), std::string::npos)
        << "'" << needle << "' not in: " << e.GetDescription();
    }
  }
}

// ---- TIFF folder + sidecar ----

fs::path
tiffScan(const std::string & name)
{
  const fs::path folder = scratch(name);
  writeTiffScan(folder);
  return folder;
}


TEST(ScanFilesTiff, ConeRoundTrip)
{
  const fs::path folder = tiffScan("tiff-cone");
  writeText(folder / "scan.json", coneSidecar);
  const Reader::Scan scan = Reader::ReadTiffFolder("", (folder / "scan.json").string());
  expectFrames(scan.Projections, 6, 4, 3, 0);
  expectFrames(scan.Dark, 6, 4, 2, 10);
  expectFrames(scan.Bright, 6, 4, 1, 20);
  expectPlaced(scan.Projections, 0.2, 0.25);
  expectPlaced(scan.Dark, 0.2, 0.25);
  const auto * cone = dynamic_cast<const itk::MBIRConeBeamGeometry *>(scan.Geometry.GetPointer());
  ASSERT_NE(cone, nullptr);
  expectAngles(cone->GetAngles(), { 0.0, M_PI / 2, M_PI });
  EXPECT_FLOAT_EQ(cone->GetSourceToDetectorDistance(), 800.0);
  EXPECT_FLOAT_EQ(cone->GetSourceToIsocenterDistance(), 200.0);
  EXPECT_FLOAT_EQ(cone->GetDetectorSpacing()[0], 0.2);
  EXPECT_FLOAT_EQ(cone->GetDetectorSpacing()[1], 0.25);
  EXPECT_FLOAT_EQ(cone->GetDetectorOffset()[0], 0.1);
  EXPECT_FLOAT_EQ(cone->GetDetectorOffset()[1], -0.05);
  EXPECT_EQ(cone->GetNumberOfChannels(), 6u);
  EXPECT_EQ(cone->GetNumberOfRows(), 4u);
  EXPECT_FALSE(scan.Notes.empty());

  // The reversed rotation negates the angles; the geometry survives its JSON file.
  Reader::Options reversed;
  reversed.ReverseRotation = true;
  const Reader::Scan mirrored = Reader::ReadTiffFolder(folder.string(), (folder / "scan.json").string(), reversed);
  expectAngles(dynamic_cast<const itk::MBIRConeBeamGeometry &>(*mirrored.Geometry).GetAngles(),
               { 0.0, -M_PI / 2, -M_PI });
  const auto copy = itk::MBIRGeometry::FromJSON(scan.Geometry->ToJSON());
  EXPECT_EQ(copy->ToJSON(), scan.Geometry->ToJSON());
}

TEST(ScanFilesTiff, ParallelWithInlineAndJsonAngles)
{
  const fs::path folder = tiffScan("tiff-parallel");
  writeText(folder / "scan.json",
            R"({"geometry": "parallel", "projections": "proj_*.tif", "angles": [0, 1, 2], "angle_unit": "radian",
                "pixel_size": 0.5})");
  Reader::Scan scan = Reader::ReadTiffFolder(folder.string(), (folder / "scan.json").string());
  expectFrames(scan.Projections, 6, 4, 3, 0);
  EXPECT_TRUE(scan.Dark.IsNull());
  EXPECT_TRUE(scan.Bright.IsNull());
  const auto * parallel = dynamic_cast<const itk::MBIRParallelBeamGeometry *>(scan.Geometry.GetPointer());
  ASSERT_NE(parallel, nullptr);
  expectAngles(parallel->GetAngles(), { 0.0, 1.0, 2.0 });
  EXPECT_FLOAT_EQ(parallel->GetDetectorSpacing()[1], 0.5);

  writeText(folder / "angles.json", R"({"angles": [0, 45, 90]})");
  writeText(folder / "scan2.json",
            R"({"geometry": "parallel", "projections": "proj_*.tif", "angles_file": "angles.json",
                "angle_unit": "degree", "pixel_size": [0.5, 0.5]})");
  scan = Reader::ReadTiffFolder(folder.string(), (folder / "scan2.json").string());
  expectAngles(dynamic_cast<const itk::MBIRParallelBeamGeometry &>(*scan.Geometry).GetAngles(),
               { 0.0, M_PI / 4, M_PI / 2 });

  // What the reader returns is what the filters take: a direct recon runs on it.
  auto direct = itk::MBIRDirectReconstructionFilter<ImageType>::New();
  direct->SetInput(scan.Projections);
  direct->SetGeometry(scan.Geometry);
  EXPECT_NO_THROW(direct->Update());
}

TEST(ScanFilesTiff, MalformedFiles)
{
  const fs::path folder = tiffScan("tiff-errors");
  const auto     sidecar = (folder / "scan.json").string();
  auto           read = [&](const std::string & json) {
    writeText(sidecar, json);
    return [&sidecar] { Reader::ReadTiffFolder("", sidecar); };
  };
  {
    SCOPED_TRACE("missing key");
    expectFails(read(R"({"geometry": "cone", "angles_file": "angles.txt", "angle_unit": "degree",
      "source_detector_dist": 800, "source_iso_dist": 200, "dark": "dark*.tif", "bright": "flat*.tif"})"),
                { "scan.json", "pixel_size", "missing" });
    expectFails(read(R"({"geometry": "cone", "angles_file": "angles.txt", "angle_unit": "degree",
      "pixel_size": 0.2, "source_iso_dist": 200, "dark": "dark*.tif", "bright": "flat*.tif"})"),
                { "scan.json", "source_detector_dist", "missing" });
    expectFails(read(R"({"geometry": "cone", "angles_file": "angles.txt", "pixel_size": 0.2})"),
                { "scan.json", "angle_unit", "missing" });
    expectFails(read(R"({"geometry": "parallel", "angle_unit": "degree", "pixel_size": 0.2})"),
                { "scan.json", "angles", "either" });
  }
  {
    SCOPED_TRACE("bad values");
    expectFails(read(R"({"geometry": "fan"})"), { "scan.json", "geometry", "\"parallel\" or \"cone\"" });
    expectFails(read(R"({"geometry": "parallel", "angles": [0, 1, 2], "angle_unit": "grad", "pixel_size": 0.2})"),
                { "angle_unit", "grad" });
    expectFails(read(R"({"geometry": "parallel", "angles": [0, 1, 2], "angle_unit": "radian", "pixel_size": 0.2,
      "spacing": 1})"),
                { "scan.json", "spacing", "unknown key" });
    expectFails(read("{ not json"), { "scan.json", "not valid JSON" });
    expectFails(read(R"({"geometry": "parallel", "angles": [0, 1, 2], "angle_unit": "radian", "pixel_size": []})"),
                { "scan.json", "pixel_size", "one or two positive numbers" });
    writeText(folder / "bad-angles.txt", "0\nninety\n180\n");
    expectFails(read(R"({"geometry": "parallel", "angles_file": "bad-angles.txt", "angle_unit": "degree",
      "pixel_size": 0.2})"),
                { "bad-angles.txt", "line 2", "'ninety' is not a number" });
  }
  {
    SCOPED_TRACE("angle count mismatch");
    expectFails(read(R"({"geometry": "cone", "angles": [0, 1], "angle_unit": "radian", "pixel_size": 0.2,
      "source_detector_dist": 800, "source_iso_dist": 200, "dark": "dark*.tif", "bright": "flat*.tif"})"),
                { "scan.json", "angles", "2 angles for 3 projection files" });
    // Without the dark and bright patterns their files count as projections.
    expectFails(read(R"({"geometry": "parallel", "angles_file": "angles.txt", "angle_unit": "degree",
      "pixel_size": 0.2})"),
                { "angles_file", "3 angles for 6 projection files" });
  }
  {
    SCOPED_TRACE("no files");
    expectFails(read(R"({"geometry": "parallel", "projections": "*.tiff", "angles": [0], "angle_unit": "radian",
      "pixel_size": 0.2})"),
                { "scan.json", "projections", "no file", "*.tiff" });
    expectFails(read(R"({"geometry": "parallel", "projections": "proj_*.tif", "dark": "black*.tif",
      "angles": [0, 1, 2], "angle_unit": "radian", "pixel_size": 0.2})"),
                { "dark", "no file", "black*.tif" });
    expectFails([] { Reader::ReadTiffFolder("", "/nonexistent/scan.json"); },
                { "/nonexistent/scan.json", "no such file" });
  }
  const std::string good = R"({"geometry": "parallel", "projections": "proj_*.tif", "angles": [0, 1, 2],
    "angle_unit": "radian", "pixel_size": 0.2, "dark": "dark*.tif"})";
  {
    SCOPED_TRACE("unreadable image");
    writeText(folder / "proj_1.tif", "this is not a TIFF file");
    expectFails(read(good), { "proj_1.tif", "projection", "not a TIFF image" });
  }
  {
    SCOPED_TRACE("images of other sizes");
    writeTiff(folder / "proj_1.tif", 5, 4, 1);
    expectFails(read(good), { "proj_1.tif", "is 5 x 4 pixels but 6 x 4" });
    writeTiff(folder / "proj_1.tif", 6, 4, 1);
    writeTiff(folder / "dark_1.tif", 6, 3, 11);
    expectFails(read(good), { "dark_1.tif", "dark", "is 6 x 3 pixels but 6 x 4" });
    writeTiff(folder / "dark_1.tif", 6, 4, 11);
  }
  {
    SCOPED_TRACE("a damaged page chain (ITK's own reader would walk it for minutes)");
    writeText(folder / "proj_1.tif", std::string("II*\0\x08\0\0\0\x05\0", 10)); // 5 entries announced, none there
    expectFails(read(good), { "proj_1.tif", "projection", "runs past the end of the file" });
    writeText(folder / "proj_1.tif", std::string("MM\0*\0\0\xff\xff\0\0", 10));
    expectFails(read(good), { "proj_1.tif", "at byte 65535", "lies outside the file (10 bytes)" });
    writeText(folder / "proj_1.tif", std::string("II,\0\x08\0\0\0", 8));
    expectFails(read(good), { "proj_1.tif", "version 44, expected 42, or 43 for BigTIFF" });
  }
  {
    SCOPED_TRACE("strips and tiles at once (libtiff reads either layout, and leaks the other)");
    const std::vector<std::array<std::uint32_t, 3>> fields = {
      // tag, type (3 short, 4 long), value
      { 256, 3, 6 }, { 257, 3, 4 }, { 258, 3, 8 }, { 259, 3, 1 },  { 262, 3, 1 },
      { 273, 4, 0 }, { 277, 3, 1 }, { 278, 3, 4 }, { 279, 4, 24 }, { 324, 4, 0 }
    };
    std::string page("II*\0\x08\0\0\0", 8);
    auto        append = [&page](std::uint32_t value, int bytes) {
      for (int i = 0; i < bytes; ++i)
        page.push_back(static_cast<char>(value >> (8 * i)));
    };
    const std::uint32_t pixels = 8 + 2 + 12 * static_cast<std::uint32_t>(fields.size()) + 4;
    append(static_cast<std::uint32_t>(fields.size()), 2);
    for (const auto & [tag, type, value] : fields)
    {
      append(tag, 2);
      append(type, 2);
      append(1, 4);
      append(tag == 273 || tag == 324 ? pixels : value, 4);
    }
    append(0, 4);
    page.append(24, '\x10');
    writeText(folder / "proj_1.tif", page);
    expectFails(read(good), { "proj_1.tif", "both strip and tile offsets", "tags 273 and 324" });
    writeTiff(folder / "proj_1.tif", 6, 4, 1);
  }
  {
    SCOPED_TRACE("several pages");
    using VolumeType = itk::Image<float, 3>;
    auto pages = VolumeType::New();
    pages->SetRegions(VolumeType::SizeType{ { 6, 4, 2 } });
    pages->Allocate(true);
    itk::WriteImage(pages, (folder / "proj_1.tif").string());
    expectFails(read(good), { "proj_1.tif", "more than one page", "one image per file" });
  }
}

// ---- DXchange ----

#ifdef MBIR_TEST_HDF5

TEST(ScanFilesDXchange, RoundTrip)
{
  const fs::path path = scratch("dxchange") / "scan.h5";
  DXchangeFile{}.write(path);
  const Reader::Scan scan = Reader::ReadDXchange(path.string());
  expectFrames(scan.Projections, 5, 4, 3, 0);
  expectFrames(scan.Bright, 5, 4, 2, 20);
  expectFrames(scan.Dark, 5, 4, 1, 10);
  expectPlaced(scan.Projections, 0.0065, 0.0065);
  const auto * parallel = dynamic_cast<const itk::MBIRParallelBeamGeometry *>(scan.Geometry.GetPointer());
  ASSERT_NE(parallel, nullptr);
  expectAngles(parallel->GetAngles(), { 0.0, M_PI / 3, 2 * M_PI / 3 });
  EXPECT_FLOAT_EQ(parallel->GetDetectorSpacing()[0], 0.0065);

  // Radians by attribute, the pitch given when the file has none.
  DXchangeFile radians;
  radians.theta = { 0.0, 0.5, 1.0 };
  radians.thetaUnits = "rad";
  radians.pixelSize.clear();
  radians.white.clear();
  radians.dark.clear();
  radians.write(path);
  Reader::Options options;
  options.PixelSize = 0.01;
  const Reader::Scan other = Reader::ReadDXchange(path.string(), options);
  expectAngles(dynamic_cast<const itk::MBIRParallelBeamGeometry &>(*other.Geometry).GetAngles(), { 0.0, 0.5, 1.0 });
  EXPECT_FLOAT_EQ(other.Geometry->GetDetectorSpacing()[1], 0.01);
  EXPECT_TRUE(other.Dark.IsNull());
  EXPECT_TRUE(other.Bright.IsNull());
}

TEST(ScanFilesDXchange, MalformedFiles)
{
  const fs::path path = scratch("dxchange-errors") / "scan.h5";
  auto           fails = [&](DXchangeFile file, const std::vector<std::string> & needles, Reader::Options o = {}) {
    file.write(path);
    expectFails([&] { Reader::ReadDXchange(path.string(), o); }, needles);
  };
  DXchangeFile f;
  f.withData = false;
  fails(f, { "scan.h5", "/exchange/data", "missing" });
  f = {};
  f.withTheta = false;
  fails(f, { "scan.h5", "/exchange/theta", "missing" });
  f = {};
  f.theta = { 0, 1 };
  fails(f, { "/exchange/theta", "2 angles for 3 projections" });
  f = {};
  f.data = { 4, 5 };
  fails(f, { "/exchange/data", "shape [4, 5]", "(frames, rows, channels)" });
  f = {};
  f.white = { 2, 4, 6 };
  fails(f, { "/exchange/data_white", "4 rows x 6 channels", "4 x 5" });
  f = {};
  f.pixelSize.clear();
  fails(f, { "/measurement/instrument/detector/pixel_size", "missing", "no pixel size was given" });
  f = {};
  f.pixelUnits = "furlong";
  fails(f, { "pixel_size units", "furlong" });
  f = {};
  f.thetaUnits = "grad";
  fails(f, { "/exchange/theta units", "grad" });
  writeText(path, "not HDF5");
  expectFails([&] { Reader::ReadDXchange(path.string()); }, { "scan.h5", "not an HDF5 file" });
  expectFails([&] { Reader::ReadDXchange("/nonexistent.h5"); }, { "/nonexistent.h5", "no such file" });
}

// Found by fuzz-dxchange (test/fuzz/regressions/dxchange/): a "units" attribute of several texts overran the
// reader's buffer, and a virtual dataset could claim terabytes or map itself (libhdf5 then recursed without end).
TEST(ScanFilesDXchange, FuzzedFiles)
{
  const fs::path path = scratch("dxchange-fuzzed") / "scan.h5";
  auto           units = [&](H5S_class_t kind, hsize_t count, bool variable) {
    DXchangeFile{}.write(path);
    const hid_t file = H5Fopen(path.string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t theta = H5Dopen2(file, "/exchange/theta", H5P_DEFAULT);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, variable ? H5T_VARIABLE : 3);
    const hid_t  space = kind == H5S_NULL ? H5Screate(H5S_NULL) : H5Screate_simple(1, &count, nullptr);
    const hid_t  attribute = H5Acreate2(theta, "units", type, space, H5P_DEFAULT, H5P_DEFAULT);
    const char * texts[4] = { "rad", "rad", "rad", "rad" };
    if (kind != H5S_NULL)
      H5Awrite(attribute, type, variable ? static_cast<const void *>(texts) : "radradradrad");
    H5Aclose(attribute);
    H5Sclose(space);
    H5Tclose(type);
    H5Dclose(theta);
    H5Fclose(file);
  };
  units(H5S_SIMPLE, 2, false);
  expectFails([&] { Reader::ReadDXchange(path.string()); },
              { "scan.h5", "/exchange/theta units", "holds 2 texts; one expected" });
  units(H5S_SIMPLE, 4, true);
  expectFails([&] { Reader::ReadDXchange(path.string()); }, { "/exchange/theta units", "holds 4 texts" });
  units(H5S_SIMPLE, 1, true); // one text in a list of one reads
  expectAngles(
    dynamic_cast<const itk::MBIRParallelBeamGeometry &>(*Reader::ReadDXchange(path.string()).Geometry).GetAngles(),
    { 0.0, 60.0, 120.0 });
  units(H5S_NULL, 0, false); // an attribute without a value counts as none: DXchange's degrees
  EXPECT_NE(Reader::ReadDXchange(path.string()).GetNotes().find("no units attribute"), std::string::npos);

  DXchangeFile noData;
  noData.withData = false;
  noData.write(path);
  {
    const hid_t   file = H5Fopen(path.string().c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hsize_t dims[3] = { 3, hsize_t(1) << 40, 5 };
    const hid_t   space = H5Screate_simple(3, dims, nullptr);
    const hid_t   creation = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_virtual(creation, space, ".", "/exchange/data", space); // itself
    const hid_t data = H5Dcreate2(file, "/exchange/data", H5T_IEEE_F32LE, space, H5P_DEFAULT, creation, H5P_DEFAULT);
    EXPECT_GE(data, 0);
    H5Dclose(data);
    H5Pclose(creation);
    H5Sclose(space);
    H5Fclose(file);
  }
  expectFails([&] { Reader::ReadDXchange(path.string()); }, { "/exchange/data", "is a virtual dataset" });
  EXPECT_EQ(H5Fget_obj_count(static_cast<hid_t>(H5F_OBJ_ALL), H5F_OBJ_ALL), 0);
}
#endif

// ---- Nikon .xtekct ----

fs::path
xtekScan(const std::string & name, const std::string & extra = "")
{
  const fs::path folder = scratch(name);
  writeXtekScan(folder, extra);
  return folder;
}

TEST(ScanFilesXtekCT, RoundTrip)
{
  const fs::path     folder = xtekScan("xtek");
  const Reader::Scan scan = Reader::ReadXtekCT((folder / "scan.xtekct").string());
  expectFrames(scan.Projections, 6, 4, 4, 0);
  expectPlaced(scan.Projections, 0.2, 0.25);
  EXPECT_TRUE(scan.Dark.IsNull());
  const auto * cone = dynamic_cast<const itk::MBIRConeBeamGeometry *>(scan.Geometry.GetPointer());
  ASSERT_NE(cone, nullptr);
  const double degree = M_PI / 180;
  expectAngles(cone->GetAngles(), { 10 * degree, 100 * degree, 190 * degree, 280 * degree });
  EXPECT_FLOAT_EQ(cone->GetSourceToIsocenterDistance(), 150.5);
  EXPECT_FLOAT_EQ(cone->GetSourceToDetectorDistance(), 1000.0);
  EXPECT_FLOAT_EQ(cone->GetDetectorSpacing()[0], 0.2);
  EXPECT_FLOAT_EQ(cone->GetDetectorSpacing()[1], 0.25);
  EXPECT_FLOAT_EQ(cone->GetDetectorOffset()[0], -0.4); // the detector moved +0.4: the central ray hits at -0.4
  EXPECT_FLOAT_EQ(cone->GetDetectorOffset()[1], 0.0);
}

TEST(ScanFilesXtekCT, MeasuredAngles)
{
  // _ctdata.txt (three header lines, then projection number and angle) wins over <Name>.ang, which wins over
  // InitialAngle and AngularStep.
  const fs::path folder = xtekScan("xtek-angles");
  const double   degree = M_PI / 180;
  writeText(folder / "scan.ang", "Projection\tAngle\n1\t0.5\n2\t90.5\n3\t180.5\n4\t270.5\n");
  auto angles = [&] {
    const Reader::Scan scan = Reader::ReadXtekCT((folder / "scan.xtekct").string());
    return dynamic_cast<const itk::MBIRConeBeamGeometry &>(*scan.Geometry).GetAngles();
  };
  expectAngles(angles(), { 0.5 * degree, 90.5 * degree, 180.5 * degree, 270.5 * degree });
  writeText(folder / "_ctdata.txt", "header\nheader\nheader\n1 0.25 1.0\n2 90.25 1.0\n3 180.25 1.0\n4 270.25 1.0\n");
  expectAngles(angles(), { 0.25 * degree, 90.25 * degree, 180.25 * degree, 270.25 * degree });
  writeText(folder / "_ctdata.txt", "header\nheader\nheader\n1 0.25 1.0\n2 90.25 1.0\n");
  expectFails([&] { angles(); }, { "_ctdata.txt", "2 angles for 4 projections" });
  writeText(folder / "_ctdata.txt", "header\nheader\nheader\n1 0.25\n2 x\n");
  expectFails([&] { angles(); }, { "_ctdata.txt", "line 5", "'x' is not a number" });
}

TEST(ScanFilesXtekCT, MalformedFiles)
{
  {
    SCOPED_TRACE("missing key");
    const fs::path folder = xtekScan("xtek-missing");
    std::ifstream  in(folder / "scan.xtekct");
    std::string    text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    text.erase(text.find("SrcToDetector"),
               text.find("\r\n", text.find("SrcToDetector")) + 2 - text.find("SrcToDetector"));
    writeText(folder / "scan.xtekct", text);
    expectFails([&] { Reader::ReadXtekCT((folder / "scan.xtekct").string()); },
                { "scan.xtekct", "SrcToDetector", "missing from the [XTekCT] section" });
  }
  {
    SCOPED_TRACE("a count of projections without its files");
    const fs::path folder = xtekScan("xtek-count");
    fs::remove(folder / "scan_0003.tif");
    expectFails([&] { Reader::ReadXtekCT((folder / "scan.xtekct").string()); },
                { "scan.xtekct", "Projections", "says 4 projections", "scan_0003.tif" });
  }
  {
    SCOPED_TRACE("images of another size than DetectorPixelsX x DetectorPixelsY");
    const fs::path folder = xtekScan("xtek-size");
    writeTiff(folder / "scan_0002.tif", 4, 4, 1);
    expectFails([&] { Reader::ReadXtekCT((folder / "scan.xtekct").string()); },
                { "scan_0002.tif", "DetectorPixelsX x DetectorPixelsY", "is 4 x 4 pixels but 6 x 4" });
  }
  {
    SCOPED_TRACE("unreadable image");
    const fs::path folder = xtekScan("xtek-unreadable");
    writeText(folder / "scan_0004.tif", "garbage");
    expectFails([&] { Reader::ReadXtekCT((folder / "scan.xtekct").string()); },
                { "scan_0004.tif", "not a TIFF image" });
  }
  {
    SCOPED_TRACE("bad values");
    const fs::path folder = xtekScan("xtek-values", "Units=um\r\n");
    expectFails([&] { Reader::ReadXtekCT((folder / "scan.xtekct").string()); }, { "Units", "only mm" });
    writeText(folder / "scan.xtekct", "[XTekCT]\nName=scan\nProjections=four\n");
    expectFails([&] { Reader::ReadXtekCT((folder / "scan.xtekct").string()); },
                { "Projections", "'four' is not a number" });
    writeText(folder / "scan.xtekct", "[XTekCT]\nName=scan\nProjections=4888888888888888888888888888\n");
    expectFails([&] { Reader::ReadXtekCT((folder / "scan.xtekct").string()); },
                { "Projections", "must be at most 2147483647" });
    writeText(folder / "scan.xtekct", "Name=scan\n");
    expectFails([&] { Reader::ReadXtekCT((folder / "scan.xtekct").string()); }, { "[XTekCT]", "no such section" });
  }
}

// ---- the filters and the image metadata ----

TEST(ScanFilesMetadata, FiltersRefuseANonIdentityDirection)
{
  const auto geometry = parallelScan();
  const auto projections = projectionsImage(
    std::vector<float>(geometry->GetNumberOfViews() * geometry->GetNumberOfRows() * geometry->GetNumberOfChannels(),
                       1.0f),
    *geometry);
  auto flip = itk::FlipImageFilter<ImageType>::New();
  flip->SetInput(projections);
  itk::FlipImageFilter<ImageType>::FlipAxesArrayType axes;
  axes.Fill(false); // an itk::FixedArray starts uninitialised (UBSan: "not a valid value for type 'bool'")
  axes[0] = true;
  flip->SetFlipAxes(axes);
  flip->FlipAboutOriginOff();
  flip->Update();
  const ImageType::Pointer flipped = flip->GetOutput();
  ASSERT_FALSE(flipped->GetDirection().GetVnlMatrix().is_identity());

  auto direct = itk::MBIRDirectReconstructionFilter<ImageType>::New();
  direct->SetGeometry(geometry);
  direct->SetInput(flipped);
  expectUpdateFails(direct, { "projections input has direction", "identity", "FlipImageFilter", "SetDirection" });
  auto back = itk::MBIRBackProjectionFilter<ImageType>::New();
  back->SetGeometry(geometry);
  back->SetInput(flipped);
  expectUpdateFails(back, { "projections input has direction [[-1, 0, 0]" });

  auto                     volume = phantomImage(*geometry);
  ImageType::DirectionType swapped;
  swapped.Fill(0.0);
  swapped[0][1] = swapped[1][0] = swapped[2][2] = 1.0;
  volume->SetDirection(swapped);
  auto forward = itk::MBIRForwardProjectionFilter<ImageType>::New();
  forward->SetGeometry(geometry);
  forward->SetInput(volume);
  expectUpdateFails(forward, { "volume input has direction", "PermuteAxesImageFilter" });
}

TEST(ScanFilesMetadata, TheOriginOfProjectionsIsNotRead)
{
  // The detector's placement is the geometry's offset; the image origin is ignored (README "The ITK layer").
  const auto geometry = parallelScan();
  const auto projections = projectionsImage(mbir::Projector(geometry->GetEngineGeometry(), mbir::makeCpuBackend())
                                              .forwardProject(engineVolume(phantomImage(*geometry)).data()),
                                            *geometry);
  auto       moved = mapped(projections, [](float v) { return v; });
  ImageType::PointType origin;
  origin[0] = 5.0;
  origin[1] = -3.0;
  origin[2] = 7.0;
  moved->SetOrigin(origin);
  auto back = itk::MBIRBackProjectionFilter<ImageType>::New();
  back->SetGeometry(geometry);
  back->SetInput(projections);
  back->Update();
  const std::vector<float> plain = engineVolume(back->GetOutput());
  back->SetInput(moved);
  back->Update();
  EXPECT_EQ(engineVolume(back->GetOutput()), plain);
}

} // namespace
