#include "mbirPictures.h"

#include <X11/Xlib.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <vtkActor2D.h>
#include <vtkAxis.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkChartMatrix.h>
#include <vtkChartXY.h>
#include <vtkContextScene.h>
#include <vtkContextView.h>
#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkImageProperty.h>
#include <vtkImageSlice.h>
#include <vtkImageSliceMapper.h>
#include <vtkLookupTable.h>
#include <vtkPNGWriter.h>
#include <vtkPen.h>
#include <vtkPlot.h>
#include <vtkPlotPoints.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper2D.h>
#include <vtkProperty2D.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkTable.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkWindowToImageFilter.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace mbirtool {

namespace {

bool
displayAnswers(const char * name)
{
  if (name == nullptr || *name == '\0')
    return false;
  ::Display * display = XOpenDisplay(name);
  if (display == nullptr)
    return false;
  XCloseDisplay(display);
  return true;
}

// Writes what `window` shows to `path` through a partial file and a rename, as writeImage does.
void
writeWindowPng(vtkRenderWindow * window, const std::string & option, const std::string & path)
{
  const std::string what = option + " '" + path + "'";
  auto              grab = vtkSmartPointer<vtkWindowToImageFilter>::New();
  grab->SetInput(window);
  grab->SetInputBufferTypeToRGB();
  grab->ReadFrontBufferOff();
  grab->Update();
  const std::string partial = partialPath(path);
  auto              writer = vtkSmartPointer<vtkPNGWriter>::New();
  writer->SetFileName(partial.c_str());
  writer->SetInputConnection(grab->GetOutputPort());
  writer->Write();
  std::error_code error;
  if (writer->GetErrorCode() != 0 || !std::filesystem::is_regular_file(partial))
  {
    std::filesystem::remove(partial, error);
    throw std::runtime_error(what + ": cannot write the picture (is the folder writable?)");
  }
  std::filesystem::rename(partial, path, error);
  if (error)
  {
    std::filesystem::remove(partial, error);
    throw std::runtime_error(what + ": cannot move the written picture into place: " + error.message());
  }
}

vtkSmartPointer<vtkTextActor>
textActor(int fontSize)
{
  auto text = vtkSmartPointer<vtkTextActor>::New();
  text->GetTextProperty()->SetFontSize(fontSize);
  text->GetTextProperty()->SetColor(1.0, 1.0, 0.75);
  text->GetTextProperty()->SetBackgroundColor(0.0, 0.0, 0.0);
  text->GetTextProperty()->SetBackgroundOpacity(0.55); // legible on white (a difference view) as on black
  return text;
}

// 1, 2 or 5 times a power of ten, at most `limit`: the length of a scale bar.
double
roundLength(double limit)
{
  const double decade = std::pow(10.0, std::floor(std::log10(limit)));
  for (double step : { 5.0, 2.0, 1.0 })
  {
    if (step * decade <= limit)
      return step * decade;
  }
  return decade;
}

std::string
millimetres(double value)
{
  std::ostringstream text;
  text << std::fixed << std::setprecision(std::abs(value) < 10 ? 2 : 1) << value << " mm";
  return text.str();
}

} // namespace

Display::Display(bool mustBeShown)
{
  const char * current = std::getenv("DISPLAY");
  if (displayAnswers(current))
    return;
  if (mustBeShown)
  {
    throw std::runtime_error(std::string("no X display to open a window on (DISPLAY='") + (current ? current : "") +
                             "'); run it on a desktop, through ssh -X, or use --screenshot FILE.png");
  }
  // Xvfb picks a free display number and writes it to the pipe once it accepts connections (-displayfd).
  int ends[2];
  if (::pipe(ends) != 0)
    throw std::runtime_error("cannot start Xvfb: no pipe");
  m_Xvfb = ::fork();
  if (m_Xvfb == 0)
  {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM); // ends with the tool, even one killed with SIGKILL
    ::close(ends[0]);
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    const std::string fd = std::to_string(ends[1]);
    ::execlp("Xvfb",
             "Xvfb",
             "-displayfd",
             fd.c_str(),
             "-screen",
             "0",
             "2560x1600x24",
             "-nolisten",
             "tcp",
             static_cast<char *>(nullptr));
    ::_exit(127);
  }
  ::close(ends[1]);
  std::string number;
  pollfd      wait{ ends[0], POLLIN, 0 };
  char        c;
  while (m_Xvfb > 0 && ::poll(&wait, 1, 20000) == 1 && ::read(ends[0], &c, 1) == 1 && c != '\n')
    number += c;
  ::close(ends[0]);
  if (m_Xvfb < 0 || number.empty())
  {
    if (m_Xvfb > 0)
    {
      ::kill(m_Xvfb, SIGTERM);
      ::waitpid(m_Xvfb, nullptr, 0);
    }
    m_Xvfb = 0;
    throw std::runtime_error(std::string("pictures need an X display, and there is none (DISPLAY='") +
                             (current ? current : "") + "') and no Xvfb to start one (Debian: apt-get install xvfb)");
  }
  if (current)
    m_Previous = current;
  ::setenv("DISPLAY", (":" + number).c_str(), 1);
}

Display::~Display()
{
  if (m_Xvfb > 0)
  {
    ::kill(m_Xvfb, SIGTERM);
    ::waitpid(m_Xvfb, nullptr, 0);
    m_Previous ? ::setenv("DISPLAY", m_Previous->c_str(), 1) : ::unsetenv("DISPLAY");
  }
}

std::pair<double, double>
percentileWindow(const ImageType * volume, double lowPercent, double highPercent)
{
  const std::size_t  n = volume->GetLargestPossibleRegion().GetNumberOfPixels();
  const std::size_t  stride = std::max<std::size_t>(1, n / 1000000); // a million samples say as much as all
  std::vector<float> values;
  for (std::size_t i = 0; i < n; i += stride)
  {
    if (std::isfinite(volume->GetBufferPointer()[i]))
      values.push_back(volume->GetBufferPointer()[i]);
  }
  if (values.empty())
    return { 0.0, 1.0 };
  auto at = [&](double percent) {
    const auto k = static_cast<std::size_t>(std::lround(percent / 100.0 * (values.size() - 1)));
    std::nth_element(values.begin(), values.begin() + k, values.end());
    return static_cast<double>(values[k]);
  };
  double low = at(lowPercent), high = at(highPercent);
  if (!(high > low))
  {
    low -= 0.5;
    high = low + 1.0;
  }
  return { low, high };
}

struct SliceMontage::Parts
{
  struct View
  {
    vtkSmartPointer<vtkRenderer>         renderer;
    vtkSmartPointer<vtkImageSliceMapper> mapper;
    vtkSmartPointer<vtkImageSlice>       slice;
    vtkSmartPointer<vtkTextActor>        label;
  };
  struct Row
  {
    PictureVolume                 volume;
    ImageType::Pointer            difference; // volume - first volume; null for the first row
    vtkSmartPointer<vtkImageData> data, differenceData;
    std::array<View, 3>           views; // axial, coronal, sagittal
  };
  std::vector<Row>                   rows;
  vtkSmartPointer<vtkRenderWindow>   window;
  vtkSmartPointer<vtkRenderer>       strip;
  vtkSmartPointer<vtkLookupTable>    grey, diverging;
  vtkSmartPointer<vtkScalarBarActor> greyBar, differenceBar;
  vtkSmartPointer<vtkActor2D>        scaleBar;
  vtkSmartPointer<vtkTextActor>      scaleLabel, status;
  std::array<int, 3>                 size{}, slices{};
  std::array<double, 3>              spacing{}, origin{};
  int                                cellWidth = 0, cellHeight = 0, stripHeight = 0;
  double                             mmPerPixel = 1.0, low = 0.0, high = 1.0, differenceLimit = 1.0;
  bool                               difference = false;
  std::string                        statusText;
};

namespace {

constexpr int          viewAxis[3] = { 2, 1, 0 }; // the slice axis of each column: axial, coronal, sagittal
constexpr const char * viewName[3] = { "axial", "coronal", "sagittal" };
constexpr char         axisName[3] = { 'x', 'y', 'z' };

// The voxels of `image` on the grid (spacing, origin) of `grid`.
vtkSmartPointer<vtkImageData>
vtkView(const ImageType * image, const ImageType * grid)
{
  const auto size = image->GetLargestPossibleRegion().GetSize();
  auto       data = vtkSmartPointer<vtkImageData>::New();
  data->SetDimensions(static_cast<int>(size[0]), static_cast<int>(size[1]), static_cast<int>(size[2]));
  data->SetSpacing(grid->GetSpacing()[0], grid->GetSpacing()[1], grid->GetSpacing()[2]);
  data->SetOrigin(grid->GetOrigin()[0], grid->GetOrigin()[1], grid->GetOrigin()[2]);
  auto values = vtkSmartPointer<vtkFloatArray>::New();
  // The ITK image owns the voxels and outlives the view (save = 1: VTK never frees them).
  values->SetArray(const_cast<float *>(image->GetBufferPointer()),
                   static_cast<vtkIdType>(image->GetLargestPossibleRegion().GetNumberOfPixels()),
                   1);
  data->GetPointData()->SetScalars(values);
  return data;
}

} // namespace

SliceMontage::SliceMontage(std::vector<PictureVolume> volumes, int width, bool offscreen)
  : m(std::make_unique<Parts>())
{
  if (volumes.empty() || volumes.size() > 4)
    throw std::invalid_argument("a montage shows one to four volumes, got " + std::to_string(volumes.size()));
  const ImageType * first = volumes[0].image;
  for (int a = 0; a < 3; ++a)
  {
    m->size[a] = static_cast<int>(first->GetLargestPossibleRegion().GetSize()[a]);
    m->spacing[a] = first->GetSpacing()[a];
    m->origin[a] = first->GetOrigin()[a];
    m->slices[a] = m->size[a] / 2;
  }
  for (const PictureVolume & v : volumes)
  {
    if (v.image->GetLargestPossibleRegion().GetSize() != first->GetLargestPossibleRegion().GetSize())
    {
      std::ostringstream message;
      message << "'" << v.name << "' has size " << v.image->GetLargestPossibleRegion().GetSize() << " but '"
              << volumes[0].name << "' has size " << first->GetLargestPossibleRegion().GetSize()
              << ": linked slices need volumes of one size";
      throw std::runtime_error(message.str());
    }
    // Voxel by voxel, as the NRMSE compares them (a TIFF, say, keeps no origin).
    if (v.image->GetSpacing() != first->GetSpacing() || v.image->GetOrigin() != first->GetOrigin())
      std::cerr << "note: '" << v.name << "' (spacing " << v.image->GetSpacing() << ", origin " << v.image->GetOrigin()
                << ") is shown on the grid of '" << volumes[0].name << "'\n";
  }

  // One scale for every view: the widest and tallest of the three slice shapes fit their cell.
  const double extent[3] = { m->size[0] * m->spacing[0], m->size[1] * m->spacing[1], m->size[2] * m->spacing[2] };
  const double across = std::max(extent[0], extent[1]), up = std::max(extent[1], extent[2]);
  m->cellWidth = std::max(120, width / 3);
  m->cellHeight =
    std::clamp(static_cast<int>(std::lround(m->cellWidth * up / across)), m->cellWidth / 3, 2 * m->cellWidth);
  m->mmPerPixel = 1.08 * std::max(across / m->cellWidth, up / m->cellHeight);
  m->stripHeight = 96;
  const int rows = static_cast<int>(volumes.size());
  const int windowWidth = 3 * m->cellWidth, windowHeight = rows * m->cellHeight + m->stripHeight;

  m->window = vtkSmartPointer<vtkRenderWindow>::New();
  m->window->SetOffScreenRendering(offscreen ? 1 : 0);
  m->window->SetSize(windowWidth, windowHeight);
  m->window->SetWindowName("mbir-view");
  m->window->SetMultiSamples(0);

  m->grey = vtkSmartPointer<vtkLookupTable>::New();
  m->grey->SetHueRange(0, 0);
  m->grey->SetSaturationRange(0, 0);
  m->grey->SetValueRange(0, 1);
  m->grey->SetRampToLinear(); // grey proportional to the value (the default is an S curve)
  m->grey->SetNumberOfTableValues(256);
  m->grey->Build();
  m->diverging = vtkSmartPointer<vtkLookupTable>::New();
  m->diverging->SetNumberOfTableValues(256);
  for (int i = 0; i < 256; ++i) // blue, white at 0, red
  {
    const double t = i / 255.0, s = std::abs(2.0 * t - 1.0);
    t < 0.5 ? m->diverging->SetTableValue(i, 1.0 - s, 1.0 - s, 1.0)
            : m->diverging->SetTableValue(i, 1.0, 1.0 - s, 1.0 - s);
  }

  const int font = std::clamp(m->cellHeight / 20, 11, 18);
  for (int r = 0; r < rows; ++r)
  {
    Parts::Row row;
    row.volume = volumes[r];
    row.data = vtkView(row.volume.image, first);
    if (r > 0)
    {
      row.difference = ImageType::New();
      row.difference->CopyInformation(row.volume.image);
      row.difference->SetRegions(row.volume.image->GetLargestPossibleRegion());
      row.difference->Allocate();
      const std::size_t n = row.volume.image->GetLargestPossibleRegion().GetNumberOfPixels();
      for (std::size_t i = 0; i < n; ++i)
        row.difference->GetBufferPointer()[i] = row.volume.image->GetBufferPointer()[i] - first->GetBufferPointer()[i];
      row.differenceData = vtkView(row.difference, first);
    }
    for (int c = 0; c < 3; ++c)
    {
      Parts::View & view = row.views[c];
      view.renderer = vtkSmartPointer<vtkRenderer>::New();
      const double top = 1.0 - static_cast<double>(r) * m->cellHeight / windowHeight;
      view.renderer->SetViewport(c / 3.0, top - static_cast<double>(m->cellHeight) / windowHeight, (c + 1) / 3.0, top);
      view.renderer->SetBackground(0.0, 0.0, 0.0);
      view.mapper = vtkSmartPointer<vtkImageSliceMapper>::New();
      view.mapper->SetOrientation(viewAxis[c]);
      view.mapper->BorderOn(); // whole edge voxels (VTK stops at their centres by default)
      view.slice = vtkSmartPointer<vtkImageSlice>::New();
      view.slice->SetMapper(view.mapper);
      view.slice->GetProperty()->SetInterpolationTypeToNearest();
      view.slice->GetProperty()->UseLookupTableScalarRangeOn();
      view.renderer->AddViewProp(view.slice);
      view.label = textActor(font);
      view.label->GetTextProperty()->SetVerticalJustificationToTop();
      view.label->SetPosition(6, m->cellHeight - 6);
      view.renderer->AddActor2D(view.label);
      vtkCamera * camera = view.renderer->GetActiveCamera();
      camera->ParallelProjectionOn();
      camera->SetParallelScale(0.5 * m->cellHeight * m->mmPerPixel);
      m->window->AddRenderer(view.renderer);
    }
    m->rows.push_back(std::move(row));
  }

  m->strip = vtkSmartPointer<vtkRenderer>::New();
  m->strip->SetViewport(0.0, 0.0, 1.0, static_cast<double>(m->stripHeight) / windowHeight);
  m->strip->SetBackground(0.12, 0.12, 0.12);
  m->window->AddRenderer(m->strip);
  // Colour bars without titles (the status line names the window): VTK sets a title over the labels.
  auto bar = [&](vtkLookupTable * table, double x) {
    auto scalarBar = vtkSmartPointer<vtkScalarBarActor>::New();
    scalarBar->SetLookupTable(table);
    scalarBar->SetOrientationToHorizontal();
    scalarBar->SetNumberOfLabels(5);
    scalarBar->SetLabelFormat("%-6.3g");
    scalarBar->UnconstrainedFontSizeOn();
    scalarBar->GetLabelTextProperty()->SetFontSize(12);
    scalarBar->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    scalarBar->SetPosition(x, 0.02);
    scalarBar->SetPosition2(0.3, 0.62);
    m->strip->AddActor2D(scalarBar);
    return scalarBar;
  };
  m->greyBar = bar(m->grey, 0.03);
  m->differenceBar = bar(m->diverging, 0.38);
  m->status = textActor(13);
  m->status->SetPosition(8, m->stripHeight - 20);
  m->strip->AddActor2D(m->status);

  // The scale bar: a length of 1, 2 or 5 x 10^k mm, about a third of a view wide, right in the strip.
  const double length = roundLength(m->cellWidth / 3.0 * m->mmPerPixel);
  const double pixels = length / m->mmPerPixel, right = windowWidth - 20.0, y = 22.0;
  auto         points = vtkSmartPointer<vtkPoints>::New();
  points->InsertNextPoint(right - pixels, y, 0.0);
  points->InsertNextPoint(right, y, 0.0);
  auto            line = vtkSmartPointer<vtkCellArray>::New();
  const vtkIdType ends[2] = { 0, 1 };
  line->InsertNextCell(2, ends);
  auto polyData = vtkSmartPointer<vtkPolyData>::New();
  polyData->SetPoints(points);
  polyData->SetLines(line);
  auto mapper = vtkSmartPointer<vtkPolyDataMapper2D>::New();
  mapper->SetInputData(polyData);
  m->scaleBar = vtkSmartPointer<vtkActor2D>::New();
  m->scaleBar->SetMapper(mapper);
  m->scaleBar->GetProperty()->SetColor(1.0, 1.0, 1.0);
  m->scaleBar->GetProperty()->SetLineWidth(4);
  m->strip->AddActor2D(m->scaleBar);
  std::ostringstream scaleText;
  scaleText << length << " mm";
  m->scaleLabel = textActor(13);
  m->scaleLabel->SetInput(scaleText.str().c_str());
  m->scaleLabel->GetTextProperty()->SetJustificationToCentered();
  m->scaleLabel->SetPosition(right - pixels / 2, y + 8);
  m->strip->AddActor2D(m->scaleLabel);

  ResetWindow();
}

SliceMontage::~SliceMontage() = default;

vtkRenderWindow *
SliceMontage::Window() const
{
  return m->window;
}

int
SliceMontage::Rows() const
{
  return static_cast<int>(m->rows.size());
}

int
SliceMontage::StripHeight() const
{
  return m->stripHeight;
}

double
SliceMontage::MillimetresPerPixel() const
{
  return m->mmPerPixel;
}

const std::string &
SliceMontage::RowName(int row) const
{
  return m->rows.at(row).volume.name;
}

void
SliceMontage::SetWindow(double low, double high)
{
  if (!(high > low) || !std::isfinite(low) || !std::isfinite(high))
    throw std::invalid_argument("a window needs finite LOW < HIGH");
  m->low = low;
  m->high = high;
}

std::pair<double, double>
SliceMontage::GetWindow() const
{
  return { m->low, m->high };
}

void
SliceMontage::ResetWindow()
{
  const auto [low, high] = percentileWindow(m->rows[0].volume.image);
  SetWindow(low, high);
  // Differences: symmetric about 0, out to the 99.5th percentile of their size over all rows.
  double limit = 0.0;
  for (std::size_t r = 1; r < m->rows.size(); ++r)
  {
    const auto [dLow, dHigh] = percentileWindow(m->rows[r].difference);
    limit = std::max({ limit, std::abs(dLow), std::abs(dHigh) });
  }
  m->differenceLimit = limit > 0.0 ? limit : 1.0;
}

void
SliceMontage::SetSlice(int axis, int index)
{
  m->slices.at(axis) = std::clamp(index, 0, m->size[axis] - 1);
}

int
SliceMontage::GetSlice(int axis) const
{
  return m->slices.at(axis);
}

void
SliceMontage::SetDifference(bool on)
{
  m->difference = on && m->rows.size() > 1;
}

bool
SliceMontage::GetDifference() const
{
  return m->difference;
}

void
SliceMontage::SetStatus(const std::string & text)
{
  m->statusText = text;
}

void
SliceMontage::Update()
{
  m->grey->SetTableRange(m->low, m->high);
  m->diverging->SetTableRange(-m->differenceLimit, m->differenceLimit);
  m->differenceBar->SetVisibility(m->difference ? 1 : 0);
  std::ostringstream status;
  status << std::setprecision(4) << "grey: " << m->low << " to " << m->high;
  if (m->difference)
    status << "    blue-white-red: differences " << -m->differenceLimit << " to " << m->differenceLimit;
  if (!m->statusText.empty())
    status << "    " << m->statusText;
  m->status->SetInput(status.str().c_str());
  for (std::size_t r = 0; r < m->rows.size(); ++r)
  {
    Parts::Row & row = m->rows[r];
    const bool   showDifference = m->difference && r > 0;
    for (int c = 0; c < 3; ++c)
    {
      Parts::View & view = row.views[c];
      const int     axis = viewAxis[c];
      view.mapper->SetInputData(showDifference ? row.differenceData : row.data);
      view.mapper->SetSliceNumber(m->slices[axis]);
      view.slice->GetProperty()->SetLookupTable(showDifference ? m->diverging : m->grey);
      double focal[3];
      for (int a = 0; a < 3; ++a)
        focal[a] = m->origin[a] + 0.5 * (m->size[a] - 1) * m->spacing[a];
      focal[axis] = m->origin[axis] + m->slices[axis] * m->spacing[axis];
      // Looking directions and up vectors that put x right and y down (axial), x right and z up (coronal),
      // y right and z up (sagittal).
      static constexpr double look[3][3] = { { 0, 0, 1 }, { 0, 1, 0 }, { -1, 0, 0 } };
      static constexpr double up[3][3] = { { 0, -1, 0 }, { 0, 0, 1 }, { 0, 0, 1 } };
      const double            distance = 1000.0 + 10.0 * m->size[axis] * m->spacing[axis];
      vtkCamera *             camera = view.renderer->GetActiveCamera();
      camera->SetFocalPoint(focal);
      camera->SetPosition(
        focal[0] - distance * look[c][0], focal[1] - distance * look[c][1], focal[2] - distance * look[c][2]);
      camera->SetViewUp(up[c][0], up[c][1], up[c][2]);
      camera->SetClippingRange(distance - 1.0 - m->spacing[axis], distance + 1.0 + m->spacing[axis]);
      std::ostringstream label;
      if (c == 0)
      {
        label << (showDifference ? row.volume.name + " - " + m->rows[0].volume.name : row.volume.name);
        if (!row.volume.note.empty())
          label << "  (" << row.volume.note << ")";
        label << "\n";
      }
      label << viewName[c] << "  " << axisName[axis] << " " << millimetres(focal[axis]) << "  (slice "
            << m->slices[axis] << "/" << m->size[axis] << ")";
      view.label->SetInput(label.str().c_str());
    }
  }
}

void
SliceMontage::Render()
{
  Update();
  m->window->Render();
}

SliceMontage::Probe
SliceMontage::At(int x, int y) const
{
  Probe probe;
  for (std::size_t r = 0; r < m->rows.size(); ++r)
  {
    for (int c = 0; c < 3; ++c)
    {
      vtkRenderer * renderer = m->rows[r].views[c].renderer;
      if (!renderer->IsInViewport(x, y))
        continue;
      probe.inView = true;
      probe.row = static_cast<int>(r);
      probe.axis = viewAxis[c];
      renderer->SetDisplayPoint(x, y, 0.0);
      renderer->DisplayToWorld();
      double world[4];
      renderer->GetWorldPoint(world);
      probe.inVolume = true;
      for (int a = 0; a < 3; ++a)
      {
        probe.point[a] = world[3] != 0.0 ? world[a] / world[3] : world[a];
        if (a == probe.axis)
          probe.point[a] = m->origin[a] + m->slices[a] * m->spacing[a];
        probe.index[a] = static_cast<int>(std::lround((probe.point[a] - m->origin[a]) / m->spacing[a]));
        probe.inVolume = probe.inVolume && probe.index[a] >= 0 && probe.index[a] < m->size[a];
      }
      if (probe.inVolume)
      {
        const ImageType * image =
          m->difference && r > 0 ? m->rows[r].difference.GetPointer() : m->rows[r].volume.image.GetPointer();
        probe.value =
          image
            ->GetBufferPointer()[(static_cast<std::size_t>(probe.index[2]) * m->size[1] + probe.index[1]) * m->size[0] +
                                 probe.index[0]];
      }
      return probe;
    }
  }
  return probe;
}

std::string
SliceMontage::Describe(const Probe & probe, const std::string & name)
{
  std::ostringstream text;
  text << name << ": x " << millimetres(probe.point[0]) << ", y " << millimetres(probe.point[1]) << ", z "
       << millimetres(probe.point[2]);
  if (probe.inVolume)
    text << "  [" << probe.index[0] << ", " << probe.index[1] << ", " << probe.index[2] << "]  value "
         << std::setprecision(5) << probe.value;
  else
    text << "  (outside the volume)";
  return text.str();
}

void
SliceMontage::WritePng(const std::string & option, const std::string & path)
{
  Render();
  writeWindowPng(m->window, option, path);
}

void
writeConvergencePlot(const std::string &                     option,
                     const std::string &                     path,
                     const std::string &                     title,
                     const std::vector<mbir::IterationLog> & log,
                     double                                  stopThresholdPercent)
{
  if (mbir::processGroup().rank != 0) // under MPI rank 0 writes, as writeImage
    return;
  if (log.empty())
    throw std::runtime_error(option + " '" + path + "': no iterations ran, so there is nothing to plot");
  Display display;
  auto    view = vtkSmartPointer<vtkContextView>::New();
  view->GetRenderWindow()->SetOffScreenRendering(1);
  view->GetRenderWindow()->SetSize(900, 1000);
  view->GetRenderer()->SetBackground(1.0, 1.0, 1.0);
  auto matrix = vtkSmartPointer<vtkChartMatrix>::New();
  matrix->SetSize(vtkVector2i(1, 4));
  matrix->SetGutter(vtkVector2f(30.0f, 50.0f));
  view->GetScene()->AddItem(matrix);

  struct Curve
  {
    std::string name, axisTitle;
    double mbir::IterationLog::* field;
    bool                         logScale;
    unsigned char                red, green, blue;
  };
  const Curve curves[4] = {
    { title + ": % change of the volume per iteration",
      "% change",
      &mbir::IterationLog::changePct,
      true,
      31,
      119,
      180 },
    { "forward loss (about 1 at convergence)", "forward loss", &mbir::IterationLog::forwardLoss, false, 214, 39, 40 },
    { "prior loss per voxel", "prior loss", &mbir::IterationLog::priorLoss, false, 44, 160, 44 },
    { "step size (mean over the subsets)", "step size", &mbir::IterationLog::alpha, false, 148, 103, 189 },
  };
  for (int k = 0; k < 4; ++k)
  {
    const Curve & curve = curves[k];
    auto          chart = vtkChartXY::SafeDownCast(matrix->GetChart(vtkVector2i(0, 3 - k)));
    auto          table = vtkSmartPointer<vtkTable>::New();
    auto          x = vtkSmartPointer<vtkFloatArray>::New(), y = vtkSmartPointer<vtkFloatArray>::New(),
         threshold = vtkSmartPointer<vtkFloatArray>::New();
    x->SetName("iteration");
    y->SetName(curve.axisTitle.c_str());
    threshold->SetName("stop threshold");
    bool computed = false;
    for (const mbir::IterationLog & entry : log)
    {
      const double value = entry.*curve.field;
      if (!std::isfinite(value))
        continue;
      computed = true;
      x->InsertNextValue(static_cast<float>(entry.iteration));
      // A log axis cannot show 0: a change of 0 is drawn at the bottom of the scale.
      y->InsertNextValue(static_cast<float>(curve.logScale ? std::max(value, 1e-6) : value));
      threshold->InsertNextValue(static_cast<float>(stopThresholdPercent));
    }
    chart->SetTitle(computed ? curve.name : curve.name + " (not computed)");
    chart->GetTitleProperties()->SetFontSize(14);
    chart->GetAxis(vtkAxis::BOTTOM)->SetTitle("iteration");
    chart->GetAxis(vtkAxis::LEFT)->SetTitle(curve.axisTitle);
    if (!computed)
      continue;
    table->AddColumn(x);
    table->AddColumn(y);
    auto plot = chart->AddPlot(vtkChart::LINE);
    plot->SetInputData(table, 0, 1);
    plot->SetColor(curve.red, curve.green, curve.blue, 255);
    plot->SetWidth(2.5f);
    if (auto points = vtkPlotPoints::SafeDownCast(plot))
      points->SetMarkerStyle(vtkPlotPoints::CIRCLE);
    if (curve.logScale)
    {
      chart->GetAxis(vtkAxis::LEFT)->LogScaleOn();
      if (stopThresholdPercent > 0.0)
      {
        table->AddColumn(threshold);
        auto stop = chart->AddPlot(vtkChart::LINE);
        stop->SetInputData(table, 0, 2);
        stop->SetColor(120, 120, 120, 255);
        stop->SetWidth(1.5f);
        stop->GetPen()->SetLineType(vtkPen::DASH_LINE);
        chart->SetShowLegend(true);
      }
    }
  }
  view->GetRenderWindow()->Render();
  writeWindowPng(view->GetRenderWindow(), option, path);
}

} // namespace mbirtool
