// The pictures, checked in their pixels: mbir-view's screenshot shows the phantom where it lies in each view, in the
// window asked for, with labels, a colour bar and a scale bar; mbir-view in a window (Xvfb) follows the mouse and
// keys; mbir-compare --picture labels every row and shares one window; a convergence plot has its axes and a
// monotone curve where the log is monotone. The tools run as users run them, with no DISPLAY (a private Xvfb).

#include "MBIRScanFileWriters.h"
#include "itkMBIRScanReader.h"
#include "mbirPictures.h"

#include <gtest/gtest.h>
#include <vtkImageData.h>
#include <vtkPNGReader.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Picture
{
  int                        width = 0, height = 0;
  std::vector<unsigned char> rgb; // rows from the top

  explicit Picture(const std::string & path)
  {
    auto reader = vtkSmartPointer<vtkPNGReader>::New();
    reader->SetFileName(path.c_str());
    reader->Update();
    vtkImageData * image = reader->GetOutput();
    width = image->GetDimensions()[0];
    height = image->GetDimensions()[1];
    const int    components = image->GetNumberOfScalarComponents();
    const auto * data = static_cast<const unsigned char *>(image->GetScalarPointer());
    for (int y = height - 1; y >= 0; --y) // VTK's rows run from the bottom
      for (int x = 0; x < width; ++x)
        for (int c = 0; c < 3; ++c)
          rgb.push_back(data[(static_cast<std::size_t>(y) * width + x) * components + c]);
  }
  const unsigned char *
  at(int x, int y) const
  {
    return &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
  }
};

// Runs a command with no DISPLAY (the tools start their own Xvfb); returns its exit status and output.
std::pair<int, std::string>
run(const std::string & command)
{
  const std::string log = (fs::temp_directory_path() / ("mbir-pictures-test-" + std::to_string(::getpid()))).string();
  const int     status = std::system(("env -u DISPLAY MBIR_PROGRESS=none " + command + " > " + log + " 2>&1").c_str());
  std::ifstream in(log);
  std::string   output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(log);
  return { WEXITSTATUS(status), output };
}

class Pictures : public ::testing::Test
{
protected:
  static inline fs::path                     work;
  static inline mbirtool::ImageType::Pointer phantom;

  static void
  SetUpTestSuite()
  {
    work = fs::temp_directory_path() / ("mbir-pictures-" + std::to_string(::getpid()));
    fs::create_directories(work);
    // 96 x 96 x 40 voxels of 1 mm, the phantom filling the grid.
    ASSERT_EQ(run(std::string(MBIR_TOOLS_DIR "/mbir-geometry --type parallel --channels 96 --rows 40 --views 60 "
                                             "--output ") +
                  (work / "scan.json").string())
                .first,
              0);
    ASSERT_EQ(run(MBIR_TOOLS_DIR "/mbir-phantom --geometry " + (work / "scan.json").string() + " --output " +
                  (work / "phantom.nrrd").string())
                .first,
              0);
    phantom = mbirtool::readImage("--reference", (work / "phantom.nrrd").string());
  }
  static void
  TearDownTestSuite()
  {
    fs::remove_all(work);
  }

  static std::string
  path(const std::string & name)
  {
    return (work / name).string();
  }
};

// The layout mbirPictures.h promises: three equal columns, equal rows above a 96-pixel strip, every view centred on
// its volume at one scale. Returns the picture position of physical point (across, up) of view `column` in `row`.
struct Layout
{
  int                   cell, cellHeight, strip = 96;
  double                mmPerPixel;
  std::array<double, 3> centre, extent;

  Layout(const Picture & picture, int rows, const mbirtool::ImageType * volume)
  {
    cell = picture.width / 3;
    cellHeight = (picture.height - strip) / rows;
    for (int a = 0; a < 3; ++a)
    {
      extent[a] = volume->GetLargestPossibleRegion().GetSize()[a] * volume->GetSpacing()[a];
      centre[a] =
        volume->GetOrigin()[a] + 0.5 * (volume->GetLargestPossibleRegion().GetSize()[a] - 1) * volume->GetSpacing()[a];
    }
    mmPerPixel = 1.08 * std::max(std::max(extent[0], extent[1]) / cell, std::max(extent[1], extent[2]) / cellHeight);
  }
  // Axial: x right, y down; coronal: x right, z up; sagittal: y right, z up.
  std::array<double, 3>
  point(int row, int column, int px, int py, int sliceIndex, const mbirtool::ImageType * volume) const
  {
    const double          across = (px - column * cell - 0.5 * cell + 0.5) * mmPerPixel;
    const double          down = (py - row * cellHeight - 0.5 * cellHeight + 0.5) * mmPerPixel;
    std::array<double, 3> p = centre;
    const int             axis = 2 - column;
    p[axis] = volume->GetOrigin()[axis] + sliceIndex * volume->GetSpacing()[axis];
    if (column == 0)
      p = { centre[0] + across, centre[1] + down, p[2] };
    else if (column == 1)
      p = { centre[0] + across, p[1], centre[2] - down };
    else
      p = { p[0], centre[1] + across, centre[2] - down };
    return p;
  }
};

// The value at a physical point (nearest voxel), or NaN outside the volume.
double
valueAt(const mbirtool::ImageType * volume, const std::array<double, 3> & p)
{
  mbirtool::ImageType::IndexType index;
  for (int a = 0; a < 3; ++a)
  {
    index[a] = std::lround((p[a] - volume->GetOrigin()[a]) / volume->GetSpacing()[a]);
    if (index[a] < 0 || index[a] >= static_cast<long>(volume->GetLargestPossibleRegion().GetSize()[a]))
      return std::nan("");
  }
  return volume->GetPixel(index);
}

// Compares every view of `row` with the volume through the window [low, high]: the share of sampled pixels, away
// from voxel edges, whose grey is off by more than 24 levels, and how many skull pixels (value 1) were seen.
std::pair<double, int>
viewMismatch(const Picture &             picture,
             const Layout &              layout,
             int                         row,
             int                         column,
             const mbirtool::ImageType * volume,
             double                      low,
             double                      high)
{
  const auto size = volume->GetLargestPossibleRegion().GetSize();
  const int  slice = column == 0 ? size[2] / 2 : column == 1 ? size[1] / 2 : size[0] / 2;
  int        off = 0, samples = 0, skull = 0;
  // Below the labels: the lower two thirds of the view.
  for (int py = row * layout.cellHeight + layout.cellHeight / 3; py < (row + 1) * layout.cellHeight - 2; py += 2)
  {
    for (int px = column * layout.cell + 2; px < (column + 1) * layout.cell - 2; px += 2)
    {
      const std::array<double, 3> point = layout.point(row, column, px, py, slice, volume);
      // Pixels within 0.75 pixels of a voxel edge may show either voxel: not compared.
      bool edge = false;
      for (int a = 0; a < 3; ++a)
      {
        const double voxels = (point[a] - volume->GetOrigin()[a]) / volume->GetSpacing()[a] + 0.5;
        edge = edge || (a != 2 - column &&
                        std::abs(voxels - std::round(voxels)) * volume->GetSpacing()[a] < 0.75 * layout.mmPerPixel);
      }
      if (edge)
        continue;
      const double value = valueAt(volume, point);
      const double expected = std::isnan(value) ? 0.0 : std::clamp((value - low) / (high - low), 0.0, 1.0) * 255.0;
      const unsigned char * rgb = picture.at(px, py);
      off += std::abs(rgb[0] - expected) > 24.0;
      skull += value > 0.99 && rgb[0] > 230;
      ++samples;
    }
  }
  return { static_cast<double>(off) / samples, skull };
}

// Text pixels (the labels' light yellow on their dark box) in the top left of a view.
int
labelPixels(const Picture & picture, int x0, int y0, int width, int height)
{
  int count = 0;
  for (int y = y0; y < y0 + height; ++y)
    for (int x = x0; x < x0 + width; ++x)
      count += picture.at(x, y)[0] > 200 && picture.at(x, y)[1] > 200 && picture.at(x, y)[2] < 215 &&
               picture.at(x, y)[2] > 120;
  return count;
}

TEST_F(Pictures, ScreenshotShowsThePhantomWhereItLiesInTheWindowAsked)
{
  for (const auto & [low, high] : { std::pair{ 0.0, 1.0 }, std::pair{ 0.0, 0.4 } })
  {
    const std::string shot = path("shot.png");
    const auto [status, output] =
      run(MBIR_TOOLS_DIR "/mbir-view --image " + path("phantom.nrrd") + " --width 900 --window " + std::to_string(low) +
          "," + std::to_string(high) + " --screenshot " + shot);
    ASSERT_EQ(status, 0) << output;
    const Picture picture(shot);
    EXPECT_EQ(picture.width, 900);
    const Layout layout(picture, 1, phantom);
    for (int column = 0; column < 3; ++column)
    {
      const auto [mismatch, skull] = viewMismatch(picture, layout, 0, column, phantom, low, high);
      EXPECT_LT(mismatch, 0.03) << "view " << column << ", window " << low << " to " << high;
      EXPECT_GT(skull, 20) << "the skull's ellipse is missing in view " << column;
      EXPECT_GT(labelPixels(picture, column * layout.cell, 0, layout.cell / 2, 40), 40)
        << "no label in view " << column;
    }
    // The colour bar: grey rising from black to white left to right, in the strip's left third (its normalised
    // position 0.03 to 0.33, labels right of it trimmed).
    std::vector<int> bar;
    const int        y = picture.height - 12;
    for (int x = picture.width * 5 / 100; x < picture.width * 28 / 100; ++x)
      bar.push_back(picture.at(x, y)[0]);
    EXPECT_TRUE(std::is_sorted(bar.begin(), bar.end())) << "the colour bar is not a rising grey ramp";
    EXPECT_LT(bar.front(), 30);
    EXPECT_GT(bar.back(), 200);
    // The scale bar: a white line, 1, 2 or 5 x 10^k mm long, about a third of a view, near the right edge.
    int longest = 0;
    for (int row = picture.height - 30; row < picture.height - 10; ++row)
    {
      int run = 0;
      for (int x = 2 * picture.width / 3; x < picture.width; ++x)
      {
        run = picture.at(x, row)[0] > 240 && picture.at(x, row)[2] > 240 ? run + 1 : 0;
        longest = std::max(longest, run);
      }
    }
    const double millimetres = longest * layout.mmPerPixel;
    const double decade = std::pow(10.0, std::floor(std::log10(millimetres)));
    const double mantissa = millimetres / decade;
    EXPECT_TRUE(std::abs(mantissa - 1) < 0.1 || std::abs(mantissa - 2) < 0.15 || std::abs(mantissa - 5) < 0.3)
      << "a scale bar of " << millimetres << " mm";
  }
}

TEST_F(Pictures, ViewerShowsTheProjectionsOfAScanFile)
{
  // A Nikon scan (.xtekct and its TIFF projections) is shown as mbir-import reads it: [channel, row, view].
  fs::create_directories(work / "xtek");
  mbir::scanfiles::writeXtekScan(work / "xtek");
  const mbirtool::ImageType::Pointer projections =
    itk::MBIRScanReader::ReadXtekCT((work / "xtek" / "scan.xtekct").string()).Projections;
  const float *     v = projections->GetBufferPointer();
  const auto        n = projections->GetLargestPossibleRegion().GetNumberOfPixels();
  const double      low = *std::min_element(v, v + n), high = *std::max_element(v, v + n) + 1.0;
  const std::string shot = path("xtek.png");
  const auto [status, output] =
    run(MBIR_TOOLS_DIR "/mbir-view --image " + (work / "xtek" / "scan.xtekct").string() + " --width 900 --window " +
        std::to_string(low) + "," + std::to_string(high) + " --screenshot " + shot);
  ASSERT_EQ(status, 0) << output;
  const Picture picture(shot);
  const Layout  layout(picture, 1, projections);
  for (int column = 0; column < 3; ++column)
    EXPECT_LT(viewMismatch(picture, layout, 0, column, projections, low, high).first, 0.03) << "view " << column;
}

TEST_F(Pictures, ViewerWindowFollowsTheMouseAndKeys)
{
  // A real window on the tool's own Xvfb, driven by recorded events (VTK display coordinates: origin bottom left;
  // the fields of VTK 9.1's stream version 1.1: x y modifiers key-code repeat keysym).
  const std::string shot = path("window.png"), events = path("events.log");
  // 900 wide: views 300 wide; one row of height h above the 96-pixel strip. The axial view's centre is (150,
  // 96 + h/2); the picture tells h.
  ASSERT_EQ(
    run(MBIR_TOOLS_DIR "/mbir-view --image " + path("phantom.nrrd") + " --width 900 --screenshot " + shot).first, 0);
  const int    h = Picture(shot).height - 96, cy = 96 + h / 2;
  const Layout layout(Picture(shot), 1, phantom);
  const int    clickX = 150 + static_cast<int>(std::lround(20.0 / layout.mmPerPixel)); // 20 mm right of the centre
  std::ofstream(events) << "# StreamVersion 1.1\n"
                        << "MouseMoveEvent 150 " << cy << " 0 0 0 0\n"
                        << "MouseWheelForwardEvent 150 " << cy << " 0 0 0 0\n"
                        << "MouseWheelForwardEvent 150 " << cy << " 0 0 0 0\n"
                        << "LeftButtonPressEvent " << clickX << " " << cy << " 0 0 0 0\n"
                        << "LeftButtonReleaseEvent " << clickX << " " << cy << " 0 0 0 0\n"
                        << "RightButtonPressEvent 150 " << cy << " 0 0 0 0\n"
                        << "MouseMoveEvent 350 " << cy << " 0 0 0 0\n"
                        << "RightButtonReleaseEvent 350 " << cy << " 0 0 0 0\n"
                        << "CharEvent 150 " << cy << " 0 43 1 plus\n"
                        << "CharEvent 150 " << cy << " 0 0 1 Right\n"
                        << "CharEvent 150 " << cy << " 0 115 1 s\n"
                        << "CharEvent 150 " << cy << " 0 113 1 q\n";
  fs::remove(shot);
  const auto [status, output] = run(MBIR_TOOLS_DIR "/mbir-view --image " + path("phantom.nrrd") +
                                    " --width 900 --window 0,1 --events " + events + " --screenshot " + shot);
  ASSERT_EQ(status, 0) << output;
  // Two wheel steps on the axial view: slice z 20 -> 22 (40 slices).
  EXPECT_NE(output.find("slice z 21\nslice z 22\n"), std::string::npos) << output;
  // The click 20 mm right of the axial centre: its point, voxel and value, which the volume confirms.
  float      x, y, z, value;
  int        i, j, k;
  const auto at = output.find("phantom.nrrd: x ");
  ASSERT_NE(at, std::string::npos) << output;
  ASSERT_EQ(std::sscanf(output.c_str() + at,
                        "phantom.nrrd: x %f mm, y %f mm, z %f mm  [%d, %d, %d]  value %f",
                        &x,
                        &y,
                        &z,
                        &i,
                        &j,
                        &k,
                        &value),
            7)
    << output;
  EXPECT_NEAR(x - layout.centre[0], 20.0, layout.mmPerPixel + 0.5);
  EXPECT_NEAR(y, layout.centre[1], layout.mmPerPixel + 0.5);
  EXPECT_EQ(k, 22);
  EXPECT_NEAR(value, phantom->GetPixel({ { i, j, k } }), 1e-4);
  // The right drag of 200 pixels across widened the window [0, 1] by e; then + narrowed it to 0.8 of that, and
  // Right raised its level by a tenth of its width.
  std::vector<std::pair<double, double>> windows;
  for (auto line = output.find("window "); line != std::string::npos; line = output.find("\nwindow ", line + 1))
  {
    double low = 0.0, high = 0.0;
    ASSERT_EQ(std::sscanf(output.c_str() + output.find("window ", line), "window %lf to %lf", &low, &high), 2);
    windows.emplace_back(low, high);
  }
  ASSERT_EQ(windows.size(), 3u) << output;
  const auto width = [&](int n) { return windows[n].second - windows[n].first; };
  const auto level = [&](int n) { return 0.5 * (windows[n].first + windows[n].second); };
  EXPECT_NEAR(width(0), std::exp(1.0), 1e-3);
  EXPECT_NEAR(level(0), 0.5, 1e-3);
  EXPECT_NEAR(width(1), 0.8 * std::exp(1.0), 1e-3);
  EXPECT_NEAR(level(1), 0.5, 1e-3);
  EXPECT_NEAR(width(2), width(1), 1e-3);
  EXPECT_NEAR(level(2), 0.5 + 0.1 * width(1), 1e-3);
  // The s key wrote what the window showed: the window's size, the clicked point's coronal slice.
  EXPECT_NE(output.find("screenshot -> " + shot), std::string::npos) << output;
  const Picture picture(shot);
  EXPECT_EQ(picture.width, 900);
  EXPECT_GT(labelPixels(picture, 0, 0, 150, 40), 40);
}

TEST_F(Pictures, ComparePictureLabelsEveryRowInOneWindow)
{
  const std::string shot = path("compare.png");
  const auto [status, output] = run(MBIR_TOOLS_DIR "/mbir-compare --reference " + path("phantom.nrrd") + " --image " +
                                    path("phantom.nrrd") + " --range 0,1 --picture " + shot);
  ASSERT_EQ(status, 0) << output;
  const Picture picture(shot);
  const Layout  layout(picture, 2, phantom);
  for (int row = 0; row < 2; ++row)
  {
    // Two lines of label in the first view (the name and NRMSE, the slice), one in the others.
    EXPECT_GT(labelPixels(picture, 0, row * layout.cellHeight + 22, layout.cell / 2, 18), 30) << "row " << row;
    for (int column = 0; column < 3; ++column)
    {
      EXPECT_GT(labelPixels(picture, column * layout.cell, row * layout.cellHeight, layout.cell / 2, 20), 30);
      EXPECT_LT(viewMismatch(picture, layout, row, column, phantom, 0.0, 1.0).first, 0.03);
    }
  }
}

TEST(ConvergencePlot, HasAxesAndAMonotoneCurve)
{
  std::vector<mbir::IterationLog> log;
  for (int k = 0; k < 12; ++k)
  {
    mbir::IterationLog entry;
    entry.iteration = k;
    entry.changePct = 20.0 * std::pow(0.6, k); // falling
    entry.forwardLoss = 1.0 + 4.0 / (k + 1);
    entry.priorLoss = 0.1 * k;
    entry.alpha = 0.5 + 0.04 * k;
    log.push_back(entry);
  }
  const std::string plot = (fs::temp_directory_path() / ("mbir-plot-" + std::to_string(::getpid()) + ".png")).string();
  ::unsetenv("DISPLAY");
  mbirtool::writeConvergencePlot("--plot", plot, "MBIR", log, 0.2);
  const Picture picture(plot);
  if (std::getenv("MBIR_KEEP_PLOT") == nullptr)
    fs::remove(plot);
  ASSERT_EQ(picture.width, 900);
  // Four charts, one above the other; each curve in its colour, each with a dark axis across and up.
  const int colours[4][3] = { { 31, 119, 180 }, { 214, 39, 40 }, { 44, 160, 44 }, { 148, 103, 189 } };
  const int band = picture.height / 4;
  for (int chart = 0; chart < 4; ++chart)
  {
    std::vector<double> meanRow;
    for (int x = 0; x < picture.width; ++x)
    {
      double sum = 0;
      int    count = 0;
      for (int y = chart * band; y < (chart + 1) * band; ++y)
      {
        const unsigned char * p = picture.at(x, y);
        if (std::abs(p[0] - colours[chart][0]) + std::abs(p[1] - colours[chart][1]) +
              std::abs(p[2] - colours[chart][2]) <
            30)
        {
          sum += y;
          ++count;
        }
      }
      if (count > 0 && x < picture.width * 0.8) // left of the legend
        meanRow.push_back(sum / count);
    }
    ASSERT_GT(meanRow.size(), 300u) << "chart " << chart << ": its curve is missing";
    // Rows grow downwards: a falling curve has rising rows, a rising curve falling rows (markers blur by a few).
    const bool falling = chart < 2;
    for (std::size_t i = 8; i < meanRow.size(); ++i)
      EXPECT_TRUE(falling ? meanRow[i] >= meanRow[i - 8] - 3 : meanRow[i] <= meanRow[i - 8] + 3)
        << "chart " << chart << " not monotone at column " << i;
    int                longestAcross = 0, longestUp = 0;
    std::map<int, int> up;
    for (int y = chart * band; y < (chart + 1) * band; ++y)
    {
      int run = 0;
      for (int x = 0; x < picture.width; ++x)
      {
        // Axis lines are black, or mid grey where a line falls between two pixel rows; grid lines are light.
        const bool dark = picture.at(x, y)[0] < 160 && picture.at(x, y)[1] < 160 && picture.at(x, y)[2] < 160;
        run = dark ? run + 1 : 0;
        longestAcross = std::max(longestAcross, run);
        up[x] = dark ? up[x] + 1 : 0;
        longestUp = std::max(longestUp, up[x]);
      }
    }
    EXPECT_GT(longestAcross, picture.width / 2) << "chart " << chart << ": no axis across";
    EXPECT_GT(longestUp, band / 2) << "chart " << chart << ": no axis up";
  }
}

TEST_F(Pictures, ReconstructionPlotIsWrittenAndAMissingFolderRefusedBeforeTheWork)
{
  ASSERT_EQ(run(MBIR_TOOLS_DIR "/mbir-project --geometry " + path("scan.json") + " --input " + path("phantom.nrrd") +
                " --output " + path("sinogram.nrrd"))
              .first,
            0);
  const auto [status, output] =
    run(MBIR_TOOLS_DIR "/mbir-recon --geometry " + path("scan.json") + " --input " + path("sinogram.nrrd") +
        " --max-iterations 4 --output " + path("recon.nrrd") + " --plot " + path("recon-plot.png"));
  ASSERT_EQ(status, 0) << output;
  const Picture plot(path("recon-plot.png"));
  EXPECT_EQ(plot.width, 900);
  const auto [refused, message] =
    run(MBIR_TOOLS_DIR "/mbir-recon --geometry " + path("scan.json") + " --input " + path("sinogram.nrrd") +
        " --output " + path("recon2.nrrd") + " --plot " + path("no-such-folder/plot.png"));
  EXPECT_NE(refused, 0);
  EXPECT_NE(message.find("--plot"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(path("recon2.nrrd")));
  const auto [direct, directMessage] =
    run(MBIR_TOOLS_DIR "/mbir-recon --direct --geometry " + path("scan.json") + " --input " + path("sinogram.nrrd") +
        " --output " + path("d.nrrd") + " --plot " + path("d.png"));
  EXPECT_EQ(direct, 2);
  EXPECT_NE(directMessage.find("--plot applies to MBIR, not to --direct"), std::string::npos) << directMessage;
}

} // namespace
