"""The MBIR tools as Slicer CLI modules, run through Slicer's own CLI machinery (the harness): each test skips,
with the reason, while its executable prints no SlicerExecutionModel XML on --xml.

The parameters are the tools' long flags in snake_case (the issue's names: --geometry, --input, --output,
--reference, --max_iterations ...); the harness maps a flag to the XML's parameter name. Every run through
Slicer is compared with the same tool run alone, as a person would run it, on the same files: same size,
spacing and origin, same voxels (or, for the iterative methods, the same NRMSE against the phantom as the tool
prints with --reference, within 1e-4), "Completed"; a bad input ends "Completed with errors" with the
tool's message captured.

The scan: parallel beam, 32 views, 8 rows, 48 channels, the Shepp-Logan phantom on the default 48 x 48 x 8
grid of 1 mm voxels; MBIR takes about 4 s on one core.
"""

import json
import re
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

import mbir_slicer_harness as h
from conftest import record_timing, run_tool

MODULES = [
    "mbir-geometry",
    "mbir-phantom",
    "mbir-project",
    "mbir-recon",
    "mbir-direct-recon",
    "mbir-back-project",
    "mbir-denoise",
    "mbir-preprocess",
]
GEOMETRY_FLAGS = ("--views", 32, "--rows", 8, "--channels", 48)
NRMSE_TOLERANCE = 1e-4 + 1e-9  # the tools print the NRMSE with 4 decimals


def printed_nrmse(text):
    found = re.search(r"NRMSE ([0-9.eE+-]+)", text)
    assert found, f"no NRMSE in: {text!r}"
    return float(found.group(1))


@pytest.fixture(scope="module")
def scan(tools_dir, tmp_path_factory):
    """Geometry, phantom and projections made by the tools alone."""
    for tool in ("mbir-geometry", "mbir-phantom", "mbir-project"):
        if not (tools_dir / tool).is_file():
            pytest.skip(f"{tool} is not built in {tools_dir}")
    d = tmp_path_factory.mktemp("scan")
    run_tool(tools_dir, "mbir-geometry", "--output", d / "geometry.json", *GEOMETRY_FLAGS)
    run_tool(tools_dir, "mbir-phantom", "--geometry", d / "geometry.json", "--output", d / "phantom.nrrd")
    run_tool(tools_dir, "mbir-project", "--geometry", d / "geometry.json", "--input", d / "phantom.nrrd",
             "--output", d / "projections.nrrd")
    return d


@pytest.fixture(scope="module")
def expected_volume(scan):
    """Size, spacing and origin (LPS) of the recon grid that the geometry file describes."""
    g = json.loads((scan / "geometry.json").read_text())
    # This scan's grid is the plain case: cubic voxels, centred on the rotation axis.
    assert g.get("voxel_row_aspect", 1) == 1 and g.get("voxel_slice_aspect", 1) == 1
    assert g.get("recon_slice_offset", 0) == 0
    rows, columns, slices = g["recon_shape"]
    size = (columns, rows, slices)
    spacing = (g["delta_voxel"],) * 3
    origin = tuple(-(n - 1) / 2 * s for n, s in zip(size, spacing))
    return size, spacing, origin


def assert_geometry(node, size, spacing, origin):
    got_size, got_spacing, got_origin, directions = h.volume_geometry(node)
    assert got_size == tuple(size)
    assert got_spacing == pytest.approx(spacing, abs=1e-6)
    assert got_origin == pytest.approx(origin, abs=1e-6)
    assert directions == pytest.approx(np.eye(3))


def assert_same_volume(harness, node, path, rtol=1e-5, atol=1e-6):
    """`node` holds what `path` (the tool's own output) holds: geometry and voxels."""
    alone = harness.load_volume(path, Path(path).stem)
    size, spacing, origin, _ = h.volume_geometry(alone)
    assert_geometry(node, size, spacing, origin)
    np.testing.assert_allclose(h.volume_array(node), h.volume_array(alone), rtol=rtol, atol=atol)


def completed(result):
    assert result.status == "Completed", f"status {result.status}; stderr:\n{result.error_text}"
    return result


@pytest.mark.parametrize("name", MODULES)
def test_description_parses_and_registers(module, harness, name):
    """Slicer's ModuleDescriptionParser takes the --xml and the registry gives a parameter node with it."""
    m = module(name)
    assert m.title and m.xml_stderr == "", m.xml_stderr
    assert m.xml.startswith("<?xml"), "Slicer warns about anything printed before <?xml"
    node = harness.create_node(m)
    assert node.GetModuleType() == "CommandLineModule"
    assert node.GetNumberOfParameterGroups() >= 1
    for p in m.parameters:
        if p.tag == "image":
            assert ".nrrd" in p.file_extensions, f"<image> {p.name} should name fileExtensions=\".nrrd\""


def test_geometry_module_writes_the_tools_json(module, harness, scan, tmp_path):
    m = module("mbir-geometry")
    out = tmp_path / "geometry.json"
    result = completed(harness.run(m, {"output": str(out), "views": 32, "rows": 8, "channels": 48}))
    assert json.loads(out.read_text()) == json.loads((scan / "geometry.json").read_text()), result.output_text


def test_phantom_module(module, harness, scan, expected_volume):
    m = module("mbir-phantom")
    result = completed(harness.run(m, {"geometry": str(scan / "geometry.json")}))
    output = result.outputs[m.parameter("output").name]
    assert_geometry(output, *expected_volume)
    assert_same_volume(harness, output, scan / "phantom.nrrd", rtol=0, atol=0)


def test_project_module(module, harness, scan):
    m = module("mbir-project")
    phantom = harness.load_volume(scan / "phantom.nrrd", "phantom")
    result = completed(harness.run(m, {"geometry": str(scan / "geometry.json"), "input": phantom}))
    assert_same_volume(harness, result.outputs[m.parameter("output").name], scan / "projections.nrrd")


def recon_through_slicer_and_alone(harness, tools_dir, scan, expected_volume, m, alone_tool, alone_flags,
                                   slicer_parameters, what):
    """Runs a reconstruction both ways; checks the output grid and that the NRMSE against the phantom through
    Slicer is what the tool prints alone."""
    alone_output = scan / f"{what}-alone.nrrd"
    stdout, alone_seconds = run_tool(tools_dir, alone_tool, "--geometry", scan / "geometry.json", "--input",
                                     scan / "projections.nrrd", "--output", alone_output, "--reference",
                                     scan / "phantom.nrrd", *alone_flags)
    alone_nrmse = printed_nrmse(stdout)

    projections = harness.load_volume(scan / "projections.nrrd", "projections")
    phantom = harness.load_volume(scan / "phantom.nrrd", "phantom")
    parameters = {"geometry": str(scan / "geometry.json"), "input": projections, **slicer_parameters}
    if m.has("reference"):
        parameters["reference"] = phantom
    result = completed(harness.run(m, parameters))
    record_timing(what, alone_seconds, result.seconds)

    output = result.outputs[m.parameter("output").name]
    assert_geometry(output, *expected_volume)
    through_slicer = h.nrmse(h.volume_array(output), h.volume_array(phantom))
    assert through_slicer == pytest.approx(alone_nrmse, abs=NRMSE_TOLERANCE), (
        f"{what}: NRMSE {through_slicer:.6f} through Slicer, {alone_nrmse} alone; Slicer's run printed:\n"
        f"{result.output_text}")
    if m.has("reference"):
        assert printed_nrmse(result.output_text) == pytest.approx(alone_nrmse, abs=NRMSE_TOLERANCE)
    return result


def test_mbir_recon_module_gives_the_tools_nrmse(module, harness, tools_dir, scan, expected_volume):
    m = module("mbir-recon")
    parameters = {"direct": False} if m.has("direct") else {}
    recon_through_slicer_and_alone(harness, tools_dir, scan, expected_volume, m, "mbir-recon", (), parameters,
                                   "MBIR recon")


def direct_recon_module(module, tools_dir):
    """The direct (FBP/FDK) recon module: mbir-direct-recon, else mbir-recon's --direct."""
    if (tools_dir / "mbir-direct-recon").is_file():
        return module("mbir-direct-recon"), "mbir-direct-recon", (), {}
    m = module("mbir-recon")
    if not m.has("direct"):
        pytest.skip("neither mbir-direct-recon nor a 'direct' parameter of mbir-recon")
    return m, "mbir-recon", ("--direct",), {"direct": True}


def test_direct_recon_module_gives_the_tools_nrmse(module, harness, tools_dir, scan, expected_volume):
    m, tool, flags, parameters = direct_recon_module(module, tools_dir)
    result = recon_through_slicer_and_alone(harness, tools_dir, scan, expected_volume, m, tool, flags, parameters,
                                            "direct recon")
    # Non-iterative: the very voxels of the tool alone.
    assert_same_volume(harness, result.outputs[m.parameter("output").name], scan / "direct recon-alone.nrrd")


def test_back_project_module(module, harness, tools_dir, scan, expected_volume):
    m = module("mbir-back-project")
    alone = scan / "back-projection-alone.nrrd"
    run_tool(tools_dir, "mbir-back-project", "--geometry", scan / "geometry.json", "--input",
             scan / "projections.nrrd", "--output", alone)
    projections = harness.load_volume(scan / "projections.nrrd", "projections")
    result = completed(harness.run(m, {"geometry": str(scan / "geometry.json"), "input": projections}))
    output = result.outputs[m.parameter("output").name]
    assert_geometry(output, *expected_volume)
    assert_same_volume(harness, output, alone)


def test_denoise_module_gives_the_tools_nrmse(module, harness, tools_dir, scan):
    m = module("mbir-denoise")
    noisy = scan / "noisy.nrrd"  # an FBP: the phantom with streaks and noise
    run_tool(tools_dir, "mbir-recon", "--direct", "--geometry", scan / "geometry.json", "--input",
             scan / "projections.nrrd", "--output", noisy)
    stdout, alone_seconds = run_tool(tools_dir, "mbir-denoise", "--input", noisy, "--output",
                                     scan / "denoised-alone.nrrd", "--reference", scan / "phantom.nrrd",
                                     "--max-iterations", 5)
    alone_nrmse = printed_nrmse(stdout)
    noisy_node = harness.load_volume(noisy, "noisy")
    phantom = harness.load_volume(scan / "phantom.nrrd", "phantom")
    parameters = {"input": noisy_node, "max_iterations": 5}
    if m.has("reference"):
        parameters["reference"] = phantom
    result = completed(harness.run(m, parameters))
    record_timing("qGGMRF denoise (5 iterations)", alone_seconds, result.seconds)
    output = result.outputs[m.parameter("output").name]
    size, spacing, origin, _ = h.volume_geometry(noisy_node)
    assert_geometry(output, size, spacing, origin)
    assert h.nrmse(h.volume_array(output), h.volume_array(phantom)) == pytest.approx(alone_nrmse,
                                                                                      abs=NRMSE_TOLERANCE)


def test_preprocess_module(module, harness, tools_dir, scan, tmp_path):
    m = module("mbir-preprocess")
    if not (tools_dir / "make-raw-scan").is_file():
        pytest.skip(f"make-raw-scan (built with the tests) is not in {tools_dir}")
    run_tool(tools_dir, "make-raw-scan", scan / "projections.nrrd", tmp_path)
    alone = tmp_path / "line-integrals-alone.nrrd"
    run_tool(tools_dir, "mbir-preprocess", "--input", tmp_path / "counts.nrrd", "--bright",
             tmp_path / "bright.nrrd", "--output", alone)
    counts = harness.load_volume(tmp_path / "counts.nrrd", "counts")
    bright = harness.load_volume(tmp_path / "bright.nrrd", "bright")  # a 2-D image: a one-slice volume node
    unset_outputs = {p.name: None for p in m.parameters
                     if p.tag == "image" and p.channel == "output" and p.longflag != "output"}
    result = completed(harness.run(m, {"input": counts, "bright": bright, **unset_outputs}))
    assert_same_volume(harness, result.outputs[m.parameter("output").name], alone)


@pytest.mark.parametrize("name", ["mbir-phantom", "mbir-project", "mbir-recon"])
def test_missing_geometry_ends_completed_with_errors(module, harness, scan, tmp_path, name):
    m = module(name)
    missing = tmp_path / "no-such-geometry.json"
    parameters = {"geometry": str(missing)}
    if m.has("input"):
        volume = "projections" if name == "mbir-recon" else "phantom"
        parameters["input"] = harness.load_volume(scan / f"{volume}.nrrd", volume)
    result = harness.run(m, parameters)
    assert result.status == "Completed with errors", result.output_text
    assert "no-such-geometry.json" in result.error_text, result.error_text
    assert result.outputs[m.parameter("output").name].GetImageData() is None


def test_recon_of_a_volume_instead_of_projections_ends_completed_with_errors(module, harness, scan):
    m = module("mbir-recon")
    phantom = harness.load_volume(scan / "phantom.nrrd", "phantom")  # 48 x 48 x 8, not 48 x 8 x 32
    result = harness.run(m, {"geometry": str(scan / "geometry.json"), "input": phantom})
    assert result.status == "Completed with errors", result.output_text
    assert result.error_text.strip(), "the tool's message should be captured"
