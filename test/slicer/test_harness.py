"""The harness proven on a CLI module of its own (cli/mbir-slicer-test-scale), before the real tools print XML:
Slicer's parser and registry take its description, Slicer's CLI logic runs it on the processing thread with
input volumes written to temporary files, reads the output back into a volume node, reports progress, and
ends "Completed", or "Completed with errors" with the program's message for a bad input."""

import json
import os
import stat

import pytest

np = pytest.importorskip("numpy")

import mbir_slicer_harness as h

SIZE = (5, 4, 3)  # x, y, z
SPACING = (0.5, 0.75, 2.0)
ORIGIN = (-1.25, 2.5, 3.0)  # LPS, as in the file


def write_nrrd(path, array, spacing, origin):
    """A raw float NRRD, [k, j, i] array, axis-aligned LPS geometry (what ITK and the tools write)."""
    nz, ny, nx = array.shape
    header = (
        "NRRD0004\ntype: float\ndimension: 3\nspace: left-posterior-superior\n"
        f"sizes: {nx} {ny} {nz}\n"
        f"space directions: ({spacing[0]},0,0) (0,{spacing[1]},0) (0,0,{spacing[2]})\n"
        "kinds: domain domain domain\nendian: little\nencoding: raw\n"
        f"space origin: ({origin[0]},{origin[1]},{origin[2]})\n\n"
    )
    with open(path, "wb") as f:
        f.write(header.encode())
        f.write(np.ascontiguousarray(array, dtype="<f4").tobytes())


@pytest.fixture(scope="module")
def scale(harness, test_cli):
    return harness.register(test_cli)


@pytest.fixture
def volume(harness, tmp_path):
    array = np.arange(np.prod(SIZE), dtype=np.float32).reshape(SIZE[::-1]) * 0.25 - 3.0
    path = tmp_path / "input.nrrd"
    write_nrrd(path, array, SPACING, ORIGIN)
    return harness.load_volume(path, "input"), array


@pytest.fixture
def geometry_file(tmp_path):
    path = tmp_path / "geometry.json"
    path.write_text(json.dumps({"format": "test"}))
    return path


def leftovers(harness):
    return sorted(p.name for p in harness.temporary_path.iterdir())


def test_description_registers_and_builds_the_parameter_node(harness, scale, test_cli):
    assert scale.title == "MBIR Slicer Test Scale"
    node = harness.create_node(scale)
    assert node.GetModuleType() == "CommandLineModule"
    assert node.GetModuleTarget() == os.path.abspath(test_cli)
    assert node.GetNumberOfParameterGroups() == 2
    assert node.GetNumberOfParametersInGroup(1) == 5
    # Slicer's parser read the parameters: names, flags, channels, defaults.
    assert [node.GetParameterName(0, i) for i in range(3)] == ["input", "geometry", "output"]
    assert node.GetParameterLongFlag(0, 0) == "input"
    assert node.GetParameterChannel(0, 2) == "output"
    assert node.GetParameterDefault(1, 0) == "2"
    assert node.GetParameterAsString("factor") == "2"


def test_run_completes_with_the_output_volume_read_back(harness, scale, volume, geometry_file):
    input_node, array = volume
    before = leftovers(harness)
    result = harness.run(scale, {"input": input_node, "geometry": geometry_file, "factor": 3, "steps": 5})
    assert result.status == "Completed", result.error_text
    assert result.status_code == harness.slicer.vtkMRMLCommandLineModuleNode.Completed
    assert result.statuses[-1] == "Completed" and "Running" in result.statuses
    assert result.statuses.index("Running") < result.statuses.index("Completed")
    assert result.error_text == ""
    # The program's stdout, progress tags removed by Slicer's logic.
    assert "scaled 5x4x3 by 3" in result.output_text
    assert "<filter-progress>" not in result.output_text

    output = result.outputs["output"]
    size, spacing, origin, directions = h.volume_geometry(output)
    assert size == SIZE
    assert spacing == pytest.approx(SPACING)
    assert origin == pytest.approx(ORIGIN)
    assert directions == pytest.approx(np.eye(3))
    # MRML itself holds RAS: x and y of the origin flipped.
    assert output.GetOrigin() == pytest.approx((-ORIGIN[0], -ORIGIN[1], ORIGIN[2]))
    assert np.array_equal(h.volume_array(output), array * 3)
    assert output.GetDisplayNode() is not None  # the read-back request makes the display node, as in Slicer

    # Progress seen on the main thread, as Slicer's progress bar sees it (percent): only the values the program
    # printed, strictly between 0 and 100 at least once, never decreasing while it runs (the logic resets it to
    # 0 once the program ends). The main thread samples it when it handles the queued Modified requests, so
    # under load it may miss some values, the last included.
    assert set(result.progress) <= {0, 20, 40, 60, 80, 100}, result.progress
    assert any(0 < p < 100 for p in result.progress), result.progress
    running = result.progress[: len(result.progress) - result.progress[::-1].index(max(result.progress))]
    assert running == sorted(running), result.progress

    # Slicer deleted its temporary files (the input written for the program, the output read back).
    assert leftovers(harness) == before


def arguments(result):
    line = next(l for l in result.output_text.splitlines() if l.startswith("arguments: "))
    return json.loads(line[len("arguments: "):])


def test_slicers_calling_conventions(harness, scale, volume, geometry_file):
    """What the tools must accept, seen from the program's side of Slicer's command line."""
    input_node, array = volume
    result = harness.run(scale, {"input": input_node, "geometry": geometry_file, "factor": 0.5})
    assert result.completed, result.error_text
    args = arguments(result)
    flags = [a for a in args if a.startswith("--")]
    # Every parameter with a flag, in XML order, the XML's long flags; a number without a default is passed
    # with an empty value; an empty <string> and a false boolean are left out.
    assert flags == ["--input", "--geometry", "--output", "--factor", "--steps", "--offset"]
    assert args[args.index("--offset") + 1] == ""
    assert args[args.index("--steps") + 1] == "5"  # a default is passed explicitly
    # Volumes go through temporary NRRD files in the application logic's temporary path.
    for flag in ("--input", "--output"):
        path = args[args.index(flag) + 1]
        assert path.startswith(str(harness.temporary_path) + "/") and path.endswith(".nrrd"), path
    assert np.array_equal(h.volume_array(result.outputs["output"]), array * 0.5)

    # A true boolean is a bare flag; stderr with exit status 0 still ends Completed.
    result = harness.run(scale, {"input": input_node, "geometry": geometry_file, "warn": True, "offset": 1,
                                 "note": "a b"})
    assert result.completed
    assert arguments(result)[-5:] == ["--offset", "1", "--note", "a b", "--warn"]
    assert "note: a b" in result.output_text
    assert "warning: --warn was given" in result.error_text
    assert np.array_equal(h.volume_array(result.outputs["output"]), array * 2 + 1)


def test_bad_input_ends_completed_with_errors_and_the_message(harness, scale, volume, tmp_path):
    input_node, _ = volume
    missing = tmp_path / "no-such-geometry.json"
    result = harness.run(scale, {"input": input_node, "geometry": missing})
    assert result.status == "Completed with errors"
    assert result.status_code == harness.slicer.vtkMRMLCommandLineModuleNode.CompletedWithErrors
    assert f"cannot read --geometry '{missing}'" in result.error_text
    assert result.outputs["output"].GetImageData() is None  # nothing read back


def test_bad_parameter_value_ends_completed_with_errors(harness, scale, volume, geometry_file):
    input_node, _ = volume
    result = harness.run(scale, {"input": input_node, "geometry": geometry_file, "factor": -1})
    assert result.status == "Completed with errors"
    assert "--factor must be positive, got -1" in result.error_text


def test_missing_input_volume_is_the_programs_error(harness, scale, geometry_file):
    # An <image> input without a node: Slicer leaves the flag out and the program reports it.
    result = harness.run(scale, {"geometry": geometry_file})
    assert result.status == "Completed with errors"
    assert "--input is required" in result.error_text


def test_a_run_past_its_time_is_cancelled(harness, scale, volume, geometry_file):
    input_node, _ = volume
    with pytest.raises(TimeoutError, match="after 0.5 s"):
        harness.run(scale, {"input": input_node, "geometry": geometry_file, "steps": 100}, timeout=0.5)
    node = harness.scene.GetNodesByClass("vtkMRMLCommandLineModuleNode")
    last = node.GetItemAsObject(node.GetNumberOfItems() - 1)
    assert last.GetStatusString() == "Cancelled"


def executable(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_slicers_parser_rejects_a_malformed_description(harness, tmp_path):
    bad = executable(tmp_path / "bad-xml", "#!/bin/sh\necho '<?xml version=\"1.0\" encoding=\"utf-8\"?>'\n"
                                           "echo '<executable><title>Bad</title><parameters><label>x'\n")
    with pytest.raises(RuntimeError, match="ModuleDescriptionParser"):
        harness.register(bad)


def test_a_program_without_xml_is_reported_not_registered(harness, tmp_path):
    none = executable(tmp_path / "no-xml", "#!/bin/sh\necho 'unknown option --xml' >&2\nexit 2\n")
    with pytest.raises(h.NoXml, match="prints no SlicerExecutionModel XML yet.*unknown option --xml"):
        harness.register(none)
    slow = executable(tmp_path / "slow-xml", "#!/bin/sh\nsleep 10\n")
    with pytest.raises(h.NoXml, match="did not finish within 0.5 s"):
        h.read_xml(slow, timeout=0.5)
