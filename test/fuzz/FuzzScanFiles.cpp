// Fuzz target: the scanner-file readers of the ITK layer. The first byte chooses the file the rest becomes: a
// Nikon .xtekct file, a TIFF folder's JSON sidecar, a TIFF projection beside a valid sidecar, or a DXchange HDF5
// file (when the module has HDF5), after whose reading no HDF5 object may be left open. Each either reads
// or is refused with an itk::ExceptionObject naming the file (or std::bad_alloc for a shape larger than the
// machine); never a crash, another exception or undefined behaviour.

#include "FuzzScratch.h"
#include "itkMBIRScanReader.h"

#ifdef MBIR_TEST_HDF5
#  include <hdf5.h>
#endif

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  namespace fs = std::filesystem;
  if (size == 0)
    return 0;
  static const FuzzScratch scratch("mbir-fuzz-scan");
  const fs::path &         folder = scratch.path();
  fs::remove_all(folder);
  fs::create_directories(folder);
  const std::string rest(reinterpret_cast<const char *>(data) + 1, size - 1);
  auto              write = [&](const std::string & name, const std::string & content) {
    std::ofstream(folder / name, std::ios::binary) << content;
    return (folder / name).string();
  };
  // Byte-level damage finds defects of libhdf5 itself, which crashes or takes gigabytes on some damaged files: this
  // branch runs on request (MBIR_FUZZ_HDF5=1) and in replays. CI fuzzes the DXchange reader through fuzz-dxchange
  // (FuzzDXchange.cpp), on well-formed HDF5 files whose contents are fuzzed.
  static const bool dxchange = std::getenv("MBIR_FUZZ_HDF5") || std::getenv("MBIR_FUZZ_REPLAY");
  try
  {
    switch (data[0] % 4)
    {
      case 0:
        itk::MBIRScanReader::ReadXtekCT(write("scan.xtekct", rest));
        break;
      case 1:
        itk::MBIRScanReader::ReadTiffFolder(folder.string(), write("scan.json", rest));
        break;
      case 3:
        if (itk::MBIRScanReader::HasDXchange() && dxchange)
          itk::MBIRScanReader::ReadDXchange(write("scan.h5", rest));
        break;
      default:
        write("proj_0000.tif", rest);
        itk::MBIRScanReader::ReadTiffFolder(
          folder.string(),
          write("scan.json",
                R"({"geometry": "parallel", "projections": "proj_*.tif", "angles": [0], "angle_unit": "radian", )"
                R"("pixel_size": 0.1})"));
    }
  }
  catch (const itk::ExceptionObject &)
  {}
  catch (const std::bad_alloc &) // a shape too large for this machine: the tools say "out of host memory"
  {}
#ifdef MBIR_TEST_HDF5
  if (H5Fget_obj_count(static_cast<hid_t>(H5F_OBJ_ALL), H5F_OBJ_ALL) != 0)
    std::abort(); // a file, dataset, type or attribute the reader opened and did not close
#endif
  return 0;
}
