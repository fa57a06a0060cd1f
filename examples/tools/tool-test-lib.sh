# Shared by the tools' shell tests (interrupt, checkpoint, fault and progress tests), sourced once `tools` (the
# folder of the tools) and `work` (the test's folder) are set.

# fail MESSAGE...: says why and ends the test.
fail() {
  echo "FAILED: $*"
  exit 1
}

# fresh_scan VIEWS ROWS CHANNELS: an emptied $work, entered, holding a parallel-beam scan.json, its phantom.nrrd and
# the phantom's projections sinogram.nrrd.
fresh_scan() {
  rm -rf "$work" && mkdir -p "$work" && cd "$work"
  "$tools/mbir-geometry" --type parallel --views "$1" --rows "$2" --channels "$3" --output scan.json > /dev/null
  "$tools/mbir-phantom" --geometry scan.json --output phantom.nrrd > /dev/null
  "$tools/mbir-project" --geometry scan.json --input phantom.nrrd --output sinogram.nrrd > /dev/null
}
