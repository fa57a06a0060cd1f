"""Fixtures of the Slicer CLI tests: one headless Slicer harness per session, the tools' folder, and helpers
that register a module or skip with the reason. test-slicer-cli.sh sets the environment:

  MBIR_SLICER_BRIDGE  the CLI registration bridge (libmbirSlicerCLIBridge.so)
  MBIR_TOOLS_DIR      the folder of the mbir-* executables (default: <repository>/build/bin)
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import mbir_slicer_harness as harness_module  # noqa: E402

_timings = []


def pytest_configure(config):
    config.addinivalue_line("markers", "tool(name): the test runs this mbir-* executable as a Slicer CLI module")


@pytest.fixture(scope="session")
def harness(tmp_path_factory):
    try:
        harness_module.load()
    except harness_module.Unavailable as e:
        pytest.skip(f"Slicer's CLI machinery is not available: {e}")
    h = harness_module.Harness(tmp_path_factory.mktemp("slicer"))
    yield h
    h.close()


@pytest.fixture(scope="session")
def tools_dir():
    return Path(os.environ.get("MBIR_TOOLS_DIR", HERE.parents[1] / "build" / "bin")).resolve()


@pytest.fixture(scope="session")
def test_cli():
    return HERE / "cli" / "mbir-slicer-test-scale"


@pytest.fixture(scope="session")
def module(harness, tools_dir):
    """module(name): the tools_dir executable registered as a Slicer CLI module; skips while it prints no XML."""
    cache = {}

    def get(name):
        if name not in cache:
            try:
                cache[name] = harness.register(tools_dir / name)
            except harness_module.NoXml as e:
                cache[name] = e
        if isinstance(cache[name], harness_module.NoXml):
            pytest.skip(str(cache[name]))
        return cache[name]

    return get


def run_tool(tools_dir, name, *args, check=True):
    """Runs an mbir-* tool alone (as a person would); returns (stdout, seconds)."""
    start = time.monotonic()
    done = subprocess.run([str(Path(tools_dir) / name), *map(str, args)], capture_output=True, text=True)
    seconds = time.monotonic() - start
    if check and done.returncode != 0:
        raise AssertionError(f"{name} {' '.join(map(str, args))} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout, seconds


def record_timing(what, alone_seconds, slicer_seconds):
    _timings.append((what, alone_seconds, slicer_seconds))


def pytest_terminal_summary(terminalreporter):
    if not _timings:
        return
    terminalreporter.section("time a Slicer CLI run adds over the tool alone")
    for what, alone, through in _timings:
        terminalreporter.write_line(f"{what}: alone {alone:.2f} s, through Slicer's CLI logic {through:.2f} s "
                                    f"({through - alone:+.2f} s; timings on a busy machine vary)")
