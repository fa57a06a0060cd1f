// For the mbir-preprocess tests only: raw counts from line integrals [channel, row, view] by Beer's law with
// Poisson counts (bright ~10^4), dark current, a bright field with a fixed pattern, a source brightening 5 % over
// the scan (bright fields before and after), the bright fields 3 % brighter than the scan saw (a background
// offset of log 1.03), and dead, hot and NaN cells.
//   make-raw-scan LINE_INTEGRALS DIR   writes DIR/counts.nrrd, DIR/dark.nrrd (a stack of 2), DIR/bright.nrrd and
//                                      DIR/bright-after.nrrd (2-D images)

#include "itkImage.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"

#include <cmath>
#include <iostream>
#include <limits>
#include <random>

namespace {

template<typename TImage>
void
write(const TImage * image, const std::string & path)
{
  auto writer = itk::ImageFileWriter<TImage>::New();
  writer->SetFileName(path);
  writer->SetInput(image);
  writer->Update();
}

} // namespace

int
main(int argc, char ** argv)
{
  if (argc != 3)
  {
    std::cerr << "usage: make-raw-scan LINE_INTEGRALS DIR\n";
    return 2;
  }
  using VolumeType = itk::Image<float, 3>;
  using FieldType = itk::Image<float, 2>;
  try
  {
    auto reader = itk::ImageFileReader<VolumeType>::New();
    reader->SetFileName(argv[1]);
    reader->Update();
    const VolumeType::Pointer counts = reader->GetOutput();
    const auto                size = counts->GetLargestPossibleRegion().GetSize();
    const int channels = static_cast<int>(size[0]), rows = static_cast<int>(size[1]), views = static_cast<int>(size[2]);
    const std::size_t   cells = static_cast<std::size_t>(rows) * channels;
    std::vector<double> pattern(cells), dark(cells);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < channels; ++c)
      {
        pattern[r * channels + c] = 1e4 * (1.0 + 0.1 * std::sin(0.3 * c) + 0.05 * std::cos(0.7 * r));
        dark[r * channels + c] = 100 + 5 * ((7 * r + 3 * c) % 11);
      }
    std::mt19937 engine(11);
    auto poisson = [&engine](double mean) { return static_cast<float>(std::poisson_distribution<int>(mean)(engine)); };
    float * value = counts->GetBufferPointer();
    for (int v = 0; v < views; ++v)
      for (std::size_t i = 0; i < cells; ++i, ++value)
        *value = poisson((1.0 + 0.05 * v / (views - 1)) * pattern[i] * std::exp(-*value)) + poisson(dark[i]);
    // Dead (stuck at the dark level), hot (stuck high) and NaN cells, away from the edges.
    for (int v = 0; v < views; ++v)
    {
      float * view = counts->GetBufferPointer() + v * cells;
      view[(rows / 2) * channels + channels / 3] = poisson(dark[(rows / 2) * channels + channels / 3]);
      view[1 * channels + channels / 2 + 5] = 60000.0f;
      view[(rows - 2) * channels + 2 * channels / 3] = std::numeric_limits<float>::quiet_NaN();
    }
    const std::string dir = argv[2];
    write(counts.GetPointer(), dir + "/counts.nrrd");

    auto                 stack = VolumeType::New();
    VolumeType::SizeType stackSize = size;
    stackSize[2] = 2;
    stack->SetRegions(VolumeType::RegionType(stackSize));
    stack->Allocate();
    for (std::size_t k = 0; k < 2 * cells; ++k)
      stack->GetBufferPointer()[k] = poisson(dark[k % cells]);
    write(stack.GetPointer(), dir + "/dark.nrrd");
    for (int after = 0; after < 2; ++after)
    {
      auto                field = FieldType::New();
      FieldType::SizeType fieldSize = { { size[0], size[1] } };
      field->SetRegions(FieldType::RegionType(fieldSize));
      field->Allocate();
      for (std::size_t i = 0; i < cells; ++i)
        field->GetBufferPointer()[i] = poisson(1.03 * (1.0 + 0.05 * after) * pattern[i]) + poisson(dark[i]);
      write(field.GetPointer(), dir + (after ? "/bright-after.nrrd" : "/bright.nrrd"));
    }
    std::cout << "raw scan of " << views << " views -> " << dir << "\n";
  }
  catch (const std::exception & e)
  {
    std::cerr << "make-raw-scan: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
