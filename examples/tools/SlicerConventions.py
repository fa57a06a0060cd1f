#!/usr/bin/env python3
"""Checks every tool against what Slicer's CLI machinery expects of a CLI module (README "3D Slicer"):

- `--xml` prints the module description on standard output only, starting with `<?xml`, well formed, with a
  category, title, description, contributor, license and documentation URL, in well under 5 seconds;
- every long flag has only letters, digits and underscores, and the program accepts every flag of its XML with
  the XML's default value, as Slicer passes them (booleans as bare flags, only when true), plus the files it needs;
- the same run with the hyphenated spellings gives the same output;
- progress goes to standard output as <filter-start>, <filter-progress> values rising from 0 to 1, <filter-end>.

usage: SlicerConventions.py BIN_DIR WORK_DIR
"""
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

BIN, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL " + what)


def tool(name):
    return os.path.join(BIN, name)


def describe(name):
    start = time.monotonic()
    run = subprocess.run([tool(name), "--xml"], capture_output=True, text=True)
    seconds = time.monotonic() - start
    check(run.returncode == 0, f"{name} --xml exits 0")
    check(run.stderr == "", f"{name} --xml writes nothing on stderr (got {run.stderr!r})")
    check(run.stdout.startswith("<?xml"), f"{name} --xml starts with <?xml")
    check(seconds < 2.0, f"{name} --xml takes {seconds:.2f} s (Slicer gives up after 5 s)")
    root = ET.fromstring(run.stdout)
    for field in ("category", "title", "description", "contributor", "license", "documentation-url", "version"):
        check((root.findtext(field) or "").strip() != "", f"{name}: <{field}> is set")
    parameters = []
    for group in root.findall("parameters"):
        check((group.findtext("label") or "").strip() != "", f"{name}: every group has a label")
        for p in group:
            if p.tag in ("label", "description"):
                continue
            flag = p.findtext("longflag")
            check(flag is not None and re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", flag) is not None,
                  f"{name}: long flag {flag!r} has only letters, digits and underscores")
            check(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", p.findtext("name") or "") is not None,
                  f"{name}: parameter name of {flag} is an identifier")
            if p.tag in ("image", "file", "directory"):
                check(p.findtext("channel") in ("input", "output"), f"{name}: {flag} has a channel")
            if p.tag == "string-enumeration":
                check(p.findtext("default") in [e.text for e in p.findall("element")],
                      f"{name}: the default of {flag} is one of its elements")
            parameters.append((p.tag, flag, p.findtext("default")))
    print(f"{name}: {len(parameters)} parameters, --xml in {seconds * 1000:.0f} ms")
    return parameters


def slicer_arguments(parameters, files, hyphens=False):
    """The command line Slicer builds: every parameter with a value (the files given, the other defaults)."""
    arguments = []
    for tag, flag, default in parameters:
        spelled = "--" + (flag.replace("_", "-") if hyphens else flag)
        if flag in files:
            arguments += [spelled, files[flag]]
        elif tag == "boolean":
            if default == "true":
                arguments.append(spelled)
        elif tag not in ("image", "file", "directory") and default not in (None, ""):
            arguments += [spelled, default]
    return arguments


def run_as_slicer(name, files, hyphens=False):
    parameters = describe(name)
    unknown = [f for f in files if f not in [p[1] for p in parameters]]
    check(not unknown, f"{name}: {unknown} are parameters of its XML")
    command = [tool(name)] + slicer_arguments(parameters, files, hyphens)
    # A pipe, as Slicer reads it, with the SLICER_HOME that Slicer sets for the programs it starts.
    run = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, SLICER_HOME="/opt/Slicer"))
    check(run.returncode == 0, f"{name} accepts every flag of its XML with its default ({' '.join(command)}): "
          f"{run.stderr.strip()}")
    return run.stdout


def check_progress(name, stdout):
    values = [float(v) for v in re.findall(r"<filter-progress>([^<]*)</filter-progress>", stdout)]
    check("<filter-start>" in stdout and "<filter-end>" in stdout, f"{name}: <filter-start> and <filter-end>")
    check(len(values) > 0 and all(0.0 <= v <= 1.0 for v in values), f"{name}: progress values in [0, 1]")
    check(values == sorted(values), f"{name}: progress rises ({values[:8]}...)")
    check(len(values) > 0 and values[-1] == 1.0, f"{name}: progress ends at 1")


def path(name):
    return os.path.join(WORK, name)


geometry = path("geometry.json")
run_as_slicer("mbir-geometry", {"output": geometry, "views": "48", "rows": "4", "channels": "48"})
run_as_slicer("mbir-phantom", {"geometry": geometry, "output": path("phantom.nrrd")})
check_progress("mbir-project", run_as_slicer("mbir-project", {"geometry": geometry, "input": path("phantom.nrrd"),
                                                               "output": path("projections.nrrd")}))
run_as_slicer("mbir-back-project", {"geometry": geometry, "input": path("projections.nrrd"),
                                    "output": path("back.nrrd")})
recon_output = run_as_slicer("mbir-recon", {"geometry": geometry, "input": path("projections.nrrd"),
                                            "output": path("recon.nrrd"), "reference": path("phantom.nrrd")})
check_progress("mbir-recon", recon_output)
hyphenated = subprocess.run([tool("mbir-recon")] + slicer_arguments(describe("mbir-recon"), {
    "geometry": geometry, "input": path("projections.nrrd"), "output": path("recon-hyphens.nrrd"),
    "reference": path("phantom.nrrd")}, hyphens=True), capture_output=True, text=True)
nrmse = re.findall(r"NRMSE ([0-9.]+)", recon_output)
check(hyphenated.returncode == 0 and nrmse and re.findall(r"NRMSE ([0-9.]+)", hyphenated.stdout) == nrmse,
      "the hyphenated spellings give the same recon")
check_progress("mbir-direct-recon", run_as_slicer("mbir-direct-recon", {
    "geometry": geometry, "input": path("projections.nrrd"), "output": path("direct.nrrd")}))
check_progress("mbir-denoise", run_as_slicer("mbir-denoise", {"input": path("recon.nrrd"),
                                                               "output": path("denoised.nrrd")}))
check_progress("mbir-preprocess", run_as_slicer("mbir-preprocess", {"input": path("projections.nrrd"),
                                                                     "output": path("line-integrals.nrrd")}))
run_as_slicer("mbir-compare", {"reference": path("phantom.nrrd"), "image": path("recon.nrrd")})
describe("mbir-import")  # it needs scan files; its runs are the import tests'

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("every tool follows Slicer's CLI conventions")
