#pragma once
// Pictures drawn with VTK: the slice montage that mbir-view shows and mbir-compare --picture writes, and the
// convergence plots of mbir-recon / mbir-denoise --plot. Debian's VTK draws through GLX only, even offscreen, so
// a picture needs an X display; Display starts a private Xvfb when there is none.

#include "mbirToolSupport.h"

#include "mbir/ReconParams.h"

#include <vtkSmartPointer.h>

#include <sys/types.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

class vtkRenderWindow;

namespace mbirtool {

// An X display for VTK for the lifetime of this object: DISPLAY when a server answers there, else (unless
// `mustBeShown`, for an interactive window) a private Xvfb. Refused, naming what to install, when neither works.
class Display
{
public:
  explicit Display(bool mustBeShown = false);
  ~Display();
  Display(const Display &) = delete;
  Display &
  operator=(const Display &) = delete;

private:
  pid_t                      m_Xvfb = 0;
  std::optional<std::string> m_Previous; // the DISPLAY that did not answer
};

// The values [low, high] between the `lowPercent` and `highPercent` percentiles of a volume (NaN left out): the
// initial window of a picture, so that a few extreme voxels do not wash it out.
std::pair<double, double>
percentileWindow(const ImageType * volume, double lowPercent = 0.5, double highPercent = 99.5);

// One row of a montage: a volume, its name, and a note shown after the name (e.g. its NRMSE).
struct PictureVolume
{
  std::string        name;
  ImageType::Pointer image;
  std::string        note;
};

// A grid of linked slice views: one row per volume, the axial (z), coronal (y) and sagittal (x) slices across,
// all at one scale in mm and in one grey window, each labelled with the volume and the slice position; under them
// a colour bar, a scale bar and a line of status text. The first volume is the reference of the difference view,
// where every other row shows volume - reference in a blue-white-red window centred on 0.
//
// Layout (what tests rely on): the views split the window's width in three equal columns and the height above a
// strip of StripHeight() pixels in equal rows; each view shows its volume's centre at the view's centre, at
// MillimetresPerPixel(). Axial views have x to the right and y down, coronal x to the right and z up, sagittal y
// to the right and z up. Every volume is shown voxel by voxel on the first one's grid (spacing, origin), as the
// NRMSE compares them; directions are taken as the identity.
class SliceMontage
{
public:
  // `width` in pixels; the height follows from the volumes' proportions.
  SliceMontage(std::vector<PictureVolume> volumes, int width, bool offscreen);
  ~SliceMontage();

  vtkRenderWindow *
  Window() const;
  int
  Rows() const;
  int
  StripHeight() const;
  double
  MillimetresPerPixel() const;

  void
  SetWindow(double low, double high);
  std::pair<double, double>
  GetWindow() const;
  void
  ResetWindow(); // percentiles of the first volume

  // The slice index shown along `axis` (0: x, sagittal; 1: y, coronal; 2: z, axial), clamped to the volume.
  void
  SetSlice(int axis, int index);
  int
  GetSlice(int axis) const;

  void
  SetDifference(bool on); // rows after the first show volume - first volume
  bool
  GetDifference() const;

  // What lies under display point (x, y) (VTK's display coordinates: origin bottom left).
  struct Probe
  {
    bool                  inView = false;
    int                   row = 0, axis = 0; // the view's row, and the axis its slice is across
    std::array<double, 3> point{};           // mm
    std::array<int, 3>    index{};
    bool                  inVolume = false;
    double                value = 0.0;
  };
  Probe
  At(int x, int y) const;
  // Text shown in the status line after the windows.
  void
  SetStatus(const std::string & text);
  static std::string
  Describe(const Probe & probe, const std::string & name);
  const std::string &
  RowName(int row) const;

  void
  Render();
  // Writes what the window shows as a PNG, through a partial file and a rename (option: for messages).
  void
  WritePng(const std::string & option, const std::string & path);

private:
  struct Parts;
  std::unique_ptr<Parts> m;
  void
  Update();
};

// The solver's log as four plots, one above the other: % change per iteration (log scale) with the stop threshold,
// the normalised forward loss, the prior loss (when computed) and the step size; written as a PNG.
void
writeConvergencePlot(const std::string &                     option,
                     const std::string &                     path,
                     const std::string &                     title,
                     const std::vector<mbir::IterationLog> & log,
                     double                                  stopThresholdPercent);

} // namespace mbirtool
