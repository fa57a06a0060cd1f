// mbir-view: one to four volumes side by side in linked axial, coronal and sagittal slices (VTK), with window and
// level, a colour bar, the position and value under the cursor, and a difference view against the first volume.

#include "itkMBIRScanReader.h"
#include "mbirPictures.h"

#include <vtkInteractorEventRecorder.h>
#include <vtkInteractorStyleUser.h>
#include <vtkObjectFactory.h>
#include <vtkRenderWindow.h>
#include <vtkRenderWindowInteractor.h>

namespace {

// A volume, or a scan's raw projections [channel, row, view]: a DXchange file (.h5, .hdf5) or a Nikon .xtekct file,
// as mbir-import reads them.
mbirtool::ImageType::Pointer
readVolumeOrScan(const std::string & option, const std::string & path)
{
  const std::string extension = std::filesystem::path(path).extension().string();
  try
  {
    if (extension == ".h5" || extension == ".hdf5")
      return itk::MBIRScanReader::ReadDXchange(path).Projections;
    if (extension == ".xtekct")
      return itk::MBIRScanReader::ReadXtekCT(path).Projections;
  }
  catch (const itk::ExceptionObject & e)
  {
    throw std::runtime_error(option + " " + mbirtool::description(e));
  }
  return mbirtool::readImage(option, path);
}

// The mouse and keys of the viewer: wheel or arrow keys scroll the slice under the cursor, a left click moves the
// other two slices to the point clicked, a right drag sets the window (across: width, up and down: level).
class MontageInteraction : public vtkInteractorStyleUser
{
public:
  static MontageInteraction *
  New();
  vtkTypeMacro(MontageInteraction, vtkInteractorStyleUser);

  mbirtool::SliceMontage * montage = nullptr;
  std::string              screenshotPath;

  void
  OnMouseMove() override
  {
    const int * at = this->Interactor->GetEventPosition();
    if (m_Dragging)
    {
      const double width0 = m_Start.second - m_Start.first, level0 = 0.5 * (m_Start.first + m_Start.second);
      const double width = width0 * std::exp((at[0] - m_From[0]) / 200.0);
      const double level = level0 - (at[1] - m_From[1]) / 200.0 * width0;
      montage->SetWindow(level - 0.5 * width, level + 0.5 * width);
    }
    Show(at);
  }
  void
  OnRightButtonDown() override
  {
    m_Dragging = true;
    m_From = { this->Interactor->GetEventPosition()[0], this->Interactor->GetEventPosition()[1] };
    m_Start = montage->GetWindow();
  }
  void
  OnRightButtonUp() override
  {
    m_Dragging = false;
    const auto [low, high] = montage->GetWindow();
    std::cout << "window " << low << " to " << high << std::endl;
  }
  void
  OnLeftButtonDown() override
  {
    const mbirtool::SliceMontage::Probe probe = Probe();
    if (!probe.inView)
      return;
    for (int a = 0; a < 3; ++a)
    {
      if (a != probe.axis)
        montage->SetSlice(a, probe.index[a]);
    }
    std::cout << mbirtool::SliceMontage::Describe(probe, montage->RowName(probe.row)) << std::endl;
    Show(this->Interactor->GetEventPosition());
  }
  void
  OnMouseWheelForward() override
  {
    Scroll(1);
  }
  void
  OnMouseWheelBackward() override
  {
    Scroll(-1);
  }
  void
  OnChar() override
  {
    const std::string key = this->Interactor->GetKeySym() ? this->Interactor->GetKeySym() : "";
    if (key == "Up" || key == "Prior")
      Scroll(key == "Up" ? 1 : 10);
    else if (key == "Down" || key == "Next")
      Scroll(key == "Down" ? -1 : -10);
    else if (key == "plus" || key == "equal" || key == "KP_Add" || key == "minus" || key == "KP_Subtract")
      Reshape(key == "minus" || key == "KP_Subtract" ? 1.25 : 0.8, 0.0);
    else if (key == "Left" || key == "Right")
      Reshape(1.0, key == "Right" ? 0.1 : -0.1);
    else if (key == "r")
    {
      montage->ResetWindow();
      Show(this->Interactor->GetEventPosition());
    }
    else if (key == "d")
    {
      montage->SetDifference(!montage->GetDifference());
      std::cout << "difference view " << (montage->GetDifference() ? "on" : "off") << std::endl;
      Show(this->Interactor->GetEventPosition());
    }
    else if (key == "s")
    {
      try // a screenshot that cannot be written must not close the viewer
      {
        montage->WritePng("screenshot", screenshotPath);
        std::cout << "screenshot -> " << screenshotPath << std::endl;
      }
      catch (const std::exception & e)
      {
        std::cerr << "mbir-view: " << e.what() << std::endl;
      }
    }
    else if (key == "q" || key == "Escape")
      this->Interactor->TerminateApp();
  }
  void
  OnKeyPress() override
  {} // everything is handled on OnChar, which also sees the keys without a character (arrows, page keys)

private:
  bool                      m_Dragging = false;
  std::array<int, 2>        m_From{};
  std::pair<double, double> m_Start;

  mbirtool::SliceMontage::Probe
  Probe() const
  {
    const int * at = this->Interactor->GetEventPosition();
    return montage->At(at[0], at[1]);
  }
  void
  Scroll(int step)
  {
    const mbirtool::SliceMontage::Probe probe = Probe();
    if (!probe.inView)
      return;
    montage->SetSlice(probe.axis, montage->GetSlice(probe.axis) + step);
    std::cout << "slice " << "xyz"[probe.axis] << " " << montage->GetSlice(probe.axis) << std::endl;
    Show(this->Interactor->GetEventPosition());
  }
  // Scales the window's width by widthFactor and moves its level by levelStep widths, keeping the level fixed.
  void
  Reshape(double widthFactor, double levelStep)
  {
    const auto [low, high] = montage->GetWindow();
    const double width = high - low, level = 0.5 * (low + high) + levelStep * width;
    montage->SetWindow(level - 0.5 * widthFactor * width, level + 0.5 * widthFactor * width);
    const auto [newLow, newHigh] = montage->GetWindow();
    std::cout << "window " << newLow << " to " << newHigh << std::endl;
    Show(this->Interactor->GetEventPosition());
  }
  void
  Show(const int * at)
  {
    const mbirtool::SliceMontage::Probe probe = montage->At(at[0], at[1]);
    montage->SetStatus(probe.inView ? mbirtool::SliceMontage::Describe(probe, montage->RowName(probe.row)) : "");
    montage->Render();
  }
};
vtkStandardNewMacro(MontageInteraction);

} // namespace

int
main(int argc, char ** argv)
{
  mbirtool::CommandLine cl(
    "mbir-view",
    "--image FILE [--image FILE ...] [--reference FILE] [--difference] [--window LOW,HIGH] [--slice X,Y,Z] "
    "[--width PIXELS] [--screenshot FILE.png]",
    "Shows one to four volumes side by side (any ITK 3-D format, or the projections [channel, row, view] of a "
    "DXchange .h5 or Nikon .xtekct scan; of one size, shown on the first one's grid): a row each, with linked "
    "axial, coronal and sagittal slices, one grey window (initially the 0.5 to 99.5 percentiles of the first), a "
    "colour bar, a scale bar in mm, and the position (mm) and value under the cursor. With --reference the "
    "reference is the first row, each row is labelled with its NRMSE, and --difference (or the d key) shows each "
    "volume minus the reference. Mouse: the wheel scrolls the slice under the cursor, a left click moves the other "
    "slices to the point, a right drag sets the window (across: width; up and down: level). Keys: Up/Down and Page "
    "Up/Down scroll, + and - narrow and widen the window, Left/Right lower and raise its level, r resets it, d toggles "
    "the difference view, s saves a screenshot, q quits. "
    "--screenshot draws the picture offscreen (a private Xvfb when there is no display), writes it and exits.");
  std::vector<std::string> imagePaths;
  std::string              referencePath, screenshotPath, eventsPath;
  std::vector<double>      window, slices;
  bool                     difference = false;
  int                      width = 1200;
  cl.repeated("--image", "FILE", "a volume to show; give the option once per volume", imagePaths);
  cl.text(
    "--reference", "FILE", "the reference: shown first, with each other volume's NRMSE against it", referencePath);
  cl.flag("--difference", "start with the difference view: each volume minus the first", difference);
  cl.custom("--window",
            "LOW,HIGH",
            "the values shown black and white",
            "the first volume's 0.5 to 99.5 percentiles",
            [&](auto & v) {
              window = mbirtool::parseList("--window", v);
              if (window.size() != 2 || !(window[1] > window[0]))
                throw mbirtool::UsageError("--window needs two numbers LOW,HIGH with LOW < HIGH, got '" + v + "'");
            });
  cl.custom("--slice", "X,Y,Z", "the slice indices shown first", "the centre", [&](auto & v) {
    slices = mbirtool::parseList("--slice", v);
    if (slices.size() != 3)
      throw mbirtool::UsageError("--slice needs three indices X,Y,Z, got '" + v + "'");
  });
  cl.integer("--width", "PIXELS", "the width of the window (or picture)", width, 360, 8192);
  cl.text("--screenshot", "FILE", "write the picture to FILE.png and exit, without a window", screenshotPath);
  cl.text("--events",
          "FILE",
          "play back VTK interaction events (vtkInteractorEventRecorder) in the window, then exit",
          eventsPath)
    .notInSlicer();
  return mbirtool::run(cl.tool(), [&] {
    cl.parse(argc, argv);
    std::vector<mbirtool::PictureVolume> volumes;
    auto                                 add = [&](const std::string & option, const std::string & path) {
      volumes.push_back({ std::filesystem::path(path).filename().string(), readVolumeOrScan(option, path), "" });
    };
    if (!referencePath.empty())
      add("--reference", referencePath);
    for (const std::string & path : imagePaths)
    {
      add("--image", path);
      if (!referencePath.empty())
      {
        std::ostringstream note;
        note << "NRMSE " << std::fixed << std::setprecision(4)
             << mbirtool::nrmse(volumes.back().image,
                                "--image '" + path + "'",
                                volumes[0].image,
                                "--reference '" + referencePath + "'");
        volumes.back().note = note.str();
      }
    }
    if (volumes.empty())
      throw mbirtool::UsageError("missing --image FILE");
    if (volumes.size() > 4)
      throw mbirtool::UsageError("mbir-view shows one to four volumes (the reference counted), got " +
                                 std::to_string(volumes.size()));
    if (!eventsPath.empty() && !std::filesystem::is_regular_file(eventsPath))
      throw std::runtime_error("--events '" + eventsPath + "': no such file");

    const bool              picture = !screenshotPath.empty() && eventsPath.empty();
    const mbirtool::Display display(!picture && eventsPath.empty());
    mbirtool::SliceMontage  montage(volumes, width, picture);
    if (!window.empty())
      montage.SetWindow(window[0], window[1]);
    for (int a = 0; a < 3 && !slices.empty(); ++a)
      montage.SetSlice(a, static_cast<int>(slices[a]));
    montage.SetDifference(difference);
    if (picture)
    {
      montage.WritePng("--screenshot", screenshotPath);
      std::cout << volumes.size() << " volumes -> " << screenshotPath << "\n";
      return;
    }
    auto interactor = vtkSmartPointer<vtkRenderWindowInteractor>::New();
    auto style = vtkSmartPointer<MontageInteraction>::New();
    style->montage = &montage;
    style->screenshotPath = screenshotPath.empty() ? "mbir-view.png" : screenshotPath;
    interactor->SetInteractorStyle(style);
    interactor->SetRenderWindow(montage.Window());
    interactor->Initialize();
    montage.Render();
    if (!eventsPath.empty())
    {
      auto recorder = vtkSmartPointer<vtkInteractorEventRecorder>::New();
      recorder->SetInteractor(interactor);
      recorder->SetFileName(eventsPath.c_str());
      recorder->Play();
      recorder->SetInteractor(nullptr);
      return;
    }
    interactor->Start();
  });
}
