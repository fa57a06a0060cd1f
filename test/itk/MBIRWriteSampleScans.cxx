// Writes the sample scans of the mbir-import tests into a folder: DIR/tiff (TIFF projections, darks, flats,
// angles.txt and the sidecar scan.json), DIR/xtek (scan.xtekct and scan_0001.tif ...) and, with HDF5,
// DIR/dxchange/scan.h5.

#include "MBIRScanFileWriters.h"

#include <iostream>

int
main(int argc, char ** argv)
{
  using namespace mbir::scanfiles;
  if (argc != 2)
  {
    std::cerr << "usage: MBIRWriteSampleScans DIR\n";
    return 2;
  }
  const fs::path folder = argv[1];
  for (const char * part : { "tiff", "xtek", "dxchange" })
  {
    fs::remove_all(folder / part);
    fs::create_directories(folder / part);
  }
  writeTiffScan(folder / "tiff");
  writeText(folder / "tiff" / "scan.json", coneSidecar);
  writeXtekScan(folder / "xtek");
#ifdef MBIR_TEST_HDF5
  DXchangeFile{}.write(folder / "dxchange" / "scan.h5");
#endif
  std::cout << "sample scans in " << folder.string() << "\n";
  return 0;
}
