"""Our CPU tools against CPU peers on the same problems, same machine, same cores, one after another.

For each problem (parallel and cone beam, 128-class and, without --quick, 256-class) it writes a noisy
Shepp-Logan scan with our tools (mbir-geometry, mbir-phantom, mbir-project --snr-db 30) and reconstructs it with
  ours      build/bin/mbir-recon (MBIR) and build/bin/mbir-direct-recon (FBP / FDK)
  MBIRJAX   CPU jax, parallel and cone beam
  svmbir    C/OpenMP, parallel beam only
  RTK       itk-rtk's CPU FDK, cone beam only
MBIR runs at each tool's defaults and at equal parameters (sharpness 0, SNR 30 dB, 15 iterations with no early
stop, positivity off). Every NRMSE is computed here, against the phantom file, by the same function. Times are
of the reconstruction alone: the time on our tools' summary line (no file I/O; the median of three runs, since
one run of a few seconds moves by up to 20 % on a shared machine, where a peer's run of a minute averages that
out), the recon call of the Python peers after a warm-up call (MBIRJAX compiles in a first recon at its
defaults, svmbir computes its system matrix in a one-iteration recon: that first call is reported in the note
column). Each peer runs in a subprocess of its own, so that a missing or broken peer is skipped with the reason
and the others still run; no number is ever made up for a peer that did not run. With --time-to-target, ours
also runs at sharpness 0 and SNR 30 dB with 1, 2, 3, 4, 6, ... iterations until its NRMSE is no worse than each
MBIR peer's at its defaults.

Usage: compare_cpu_peers.py [--quick] [--geometry parallel|cone|both] [--time-to-target] [--size VxRxC ...]
                            [--peers mbirjax,svmbir,rtk] [--bin DIR] [--output DIR]
       (run with the Python of build/peers-venv; compare_cpu_peers.sh sets it up)
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

from peers_common import make_mbirjax_model, nrmse, read_sinogram, read_volume

# Equal parameters for every MBIR: the neutral sharpness, the default assumed SNR, a fixed iteration count.
EQUAL_SHARPNESS, EQUAL_SNR_DB, EQUAL_ITERATIONS = 0.0, 30.0, 15
EQUAL_LABEL = f"equal (sharpness {EQUAL_SHARPNESS:g}, snr_db {EQUAL_SNR_DB:g}, {EQUAL_ITERATIONS} it)"
PEER_TIMEOUT_S = 3600


def package_version(name):
    from importlib.metadata import version
    return version(name)


def problem_sizes(quick):
    sizes = [(128, 64, 128)]
    if not quick:
        sizes.append((256, 128, 256))
    return sizes


# Our tools take every core, as the peers do: by default they leave out the cores other work keeps busy, which on a
# shared machine made some of our runs take one thread while the peers took all (README "CPU threads and speed").
OUR_THREADS = os.environ.get("MBIR_NUM_THREADS") or str(len(os.sched_getaffinity(0)))


def run_tool(command):
    environment = {**os.environ, "MBIR_PROGRESS": "none", "MBIR_NUM_THREADS": OUR_THREADS}
    result = subprocess.run(command, capture_output=True, text=True, env=environment)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stdout}{result.stderr}")
    return result.stdout.strip().splitlines()[-1]


def make_problem(tools, directory, geometry_type, views, rows, channels):
    """A noisy scan of the Shepp-Logan phantom, as scripts/demo.sh makes it."""
    os.makedirs(directory, exist_ok=True)
    geometry, phantom, sinogram = (f"{directory}/{name}" for name in ("geometry.json", "phantom.nrrd", "sinogram.nrrd"))
    run_tool([f"{tools}/mbir-geometry", "--type", geometry_type, "--views", str(views), "--rows", str(rows),
              "--channels", str(channels), "--output", geometry])
    run_tool([f"{tools}/mbir-phantom", "--geometry", geometry, "--output", phantom])
    run_tool([f"{tools}/mbir-project", "--geometry", geometry, "--input", phantom, "--snr-db", "30", "--seed", "0",
              "--output", sinogram])


OUR_RUNS = 3  # ours takes seconds, where one run moves by up to 20 % on a shared machine; a peer's run takes minutes


def run_ours(tools, directory, tool, setting, options, phantom):
    """Our tool run OUR_RUNS times: its row, with the median of the times on its summary lines and the NRMSE computed
    here (the same volume every run)."""
    output = f"{directory}/ours-{tool}.nrrd"
    seconds, walls = [], []
    for _ in range(OUR_RUNS):
        start = time.perf_counter()
        line = run_tool([f"{tools}/{tool}", "--geometry", f"{directory}/geometry.json", "--input",
                         f"{directory}/sinogram.nrrd", "--output", output] + options)
        walls.append(time.perf_counter() - start)
        seconds.append(float(re.search(r" ([0-9.]+) s on ", line).group(1)))
    iterations = re.search(r"MBIR: ([0-9]+) iterations", line)
    note = f"{iterations.group(1)} iterations; " if iterations else ""
    note += (f"median of {OUR_RUNS} runs ({min(seconds):.2f}-{max(seconds):.2f} s); "
             f"process wall {statistics.median(walls):.2f} s with file I/O")
    return dict(tool="ours", setting=setting, seconds=statistics.median(seconds),
                nrmse=nrmse(read_volume(output), phantom), note=note)


def ours(tools, directory):
    """mbir-recon at its defaults and at equal parameters, and mbir-direct-recon."""
    phantom = read_volume(f"{directory}/phantom.nrrd")
    equal = ["--sharpness", str(EQUAL_SHARPNESS), "--snr-db", str(EQUAL_SNR_DB), "--no-noise-estimate",
             "--max-iterations", str(EQUAL_ITERATIONS), "--stop-threshold", "0"]
    return [run_ours(tools, directory, "mbir-recon", "defaults", [], phantom),
            run_ours(tools, directory, "mbir-recon", EQUAL_LABEL, equal, phantom),
            run_ours(tools, directory, "mbir-direct-recon", "direct", [], phantom)]


def ours_time_to_target(tools, directory, peer_rows):
    """For each peer's MBIR at its defaults: ours with the equal parameters' regularisation (sharpness 0, SNR 30 dB)
    and the fewest iterations of a rising series whose NRMSE is no worse than the peer's, and its time: the image
    quality is the target, whichever regularisation reaches it (ours at its defaults, sharpness 1, stays above
    svmbir's NRMSE). The ratio is the peer's time over this."""
    phantom = read_volume(f"{directory}/phantom.nrrd")
    regularisation = ["--sharpness", str(EQUAL_SHARPNESS), "--snr-db", str(EQUAL_SNR_DB), "--no-noise-estimate"]
    runs = {}  # iteration count -> row, shared between the targets
    rows = []
    for peer in [r for r in peer_rows if r["setting"] == "defaults" and r["nrmse"] is not None]:
        found = None
        for count in (1, 2, 3, 4, 6, 8, 12, 16, 24, 32):
            if count not in runs:
                runs[count] = run_ours(tools, directory, "mbir-recon", "", regularisation + [
                    "--max-iterations", str(count), "--stop-threshold", "0"], phantom)
            if runs[count]["nrmse"] <= peer["nrmse"]:
                found = dict(runs[count])
                break
        setting = f"to {peer['tool']}'s NRMSE {peer['nrmse']:.4f} (sharpness 0)"
        if found:
            found.update(setting=setting, peer_seconds=peer["seconds"])
            rows.append(found)
        else:
            rows.append(dict(tool="ours", setting=setting, seconds=None, nrmse=None,
                             note="not reached in 32 iterations"))
    return rows


def mbirjax_peer(directory):
    import mbirjax

    geometry = json.load(open(f"{directory}/geometry.json"))
    sinogram = read_sinogram(f"{directory}/sinogram.nrrd")
    phantom = read_volume(f"{directory}/phantom.nrrd")
    model = make_mbirjax_model(mbirjax, geometry, sinogram.shape)
    # A first, untimed recon at the defaults compiles (each iteration's partition size is a kernel of its own);
    # changing sharpness and snr_db afterwards does not compile again (checked: no slower than a repeat).
    start = time.perf_counter()
    np.asarray(model.recon(sinogram, print_logs=False)[0])
    warm_up = time.perf_counter() - start
    note = f"first call (compiling) {warm_up:.1f} s"
    if os.environ.get("XLA_FLAGS"):
        note += f"; XLA_FLAGS={os.environ['XLA_FLAGS']}"
    rows = []
    for setting, params, options in [
            ("defaults", {}, {}),
            (EQUAL_LABEL, dict(sharpness=EQUAL_SHARPNESS, snr_db=EQUAL_SNR_DB),
             dict(max_iterations=EQUAL_ITERATIONS, stop_threshold_change_pct=0))]:
        if params:
            model.set_params(**params)
        start = time.perf_counter()
        recon, _ = model.recon(sinogram, print_logs=False, **options)
        recon = np.asarray(recon)  # waits for JAX's asynchronous dispatch to finish
        seconds = time.perf_counter() - start
        rows.append(dict(tool=f"MBIRJAX {package_version('mbirjax')}", setting=setting, seconds=seconds,
                         nrmse=nrmse(recon, phantom), note=note))
    return rows


def svmbir_angles(angles):
    """svmbir's view angles for ours. Found by projecting our phantom with svmbir.project and comparing with our
    projections (relative difference 0.003 with this map, 0.03 to 0.45 with the other sign and quarter-turn
    choices): svmbir's angle 0 projects along the other in-plane axis and turns the other way."""
    return -(np.asarray(angles, dtype=np.float64) + np.pi / 2)


def svmbir_peer(directory):
    import shutil

    import svmbir

    geometry = json.load(open(f"{directory}/geometry.json"))
    if geometry["geometry"] != "parallel":
        raise SystemExit("svmbir: parallel beam only here")
    if geometry["det_channel_offset"] != 0:
        raise SystemExit("svmbir: a channel offset is not mapped here (its center_offset sign is unchecked)")
    sinogram = read_sinogram(f"{directory}/sinogram.nrrd")  # (views, slices, channels): svmbir's layout too
    phantom = read_volume(f"{directory}/phantom.nrrd")
    rows_, cols, _ = geometry["recon_shape"]
    # A cache of system matrices of this run's own, so that the first call's time is a true cold start.
    cache = f"{directory}/svmbir-cache"
    shutil.rmtree(cache, ignore_errors=True)
    common = dict(angles=svmbir_angles(geometry["angles"]), delta_channel=geometry["delta_det_channel"],
                  delta_pixel=geometry["delta_voxel"], num_rows=rows_, num_cols=cols, svmbir_lib_path=cache,
                  verbose=0)
    start = time.perf_counter()
    svmbir.recon(sinogram, max_iterations=1, **common)  # computes and caches the system matrix
    warm_up = time.perf_counter() - start
    rows = []
    for setting, options in [("defaults", {}),
                             (EQUAL_LABEL, dict(sharpness=EQUAL_SHARPNESS, snr_db=EQUAL_SNR_DB,
                                                max_iterations=EQUAL_ITERATIONS, stop_threshold=0.0,
                                                positivity=False))]:
        start = time.perf_counter()
        recon = svmbir.recon(sinogram, **common, **options)  # (slices, rows, columns)
        seconds = time.perf_counter() - start
        rows.append(dict(tool=f"svmbir {package_version('svmbir')}", setting=setting, seconds=seconds,
                         nrmse=nrmse(recon.transpose(1, 2, 0), phantom),
                         note=f"first call (1 iteration, system matrix) {warm_up:.1f} s; multi-resolution"))
    return rows


def rtk_fdk_peer(directory):
    """RTK's CPU FDK. RTK turns about its y axis, so our (columns x, rows y, slices z) are RTK's (x, z, y); with
    that, RTK's gantry angle in degrees is ours, its projection u and v are our channels and rows, and both
    centre the detector at the central ray (checked: RTK's FDK is 0.11 from ours, NRMSE 0.32 against 0.31 vs the
    phantom; a flipped u axis gives 0.69, other angle maps 0.63 to 1.04). Our detector offsets move the
    projections' origin; the problems here have none."""
    import itk
    from itk import RTK as rtk

    geometry = json.load(open(f"{directory}/geometry.json"))
    if geometry["geometry"] != "cone" or geometry["curved_detector"] or geometry["helical_z_shifts"]:
        raise SystemExit("RTK FDK: circular flat-detector cone beam only here")
    sinogram = read_sinogram(f"{directory}/sinogram.nrrd")
    phantom = read_volume(f"{directory}/phantom.nrrd")
    views, det_rows, channels = sinogram.shape
    pitch_u, pitch_v = geometry["delta_det_channel"], geometry["delta_det_row"]
    projections = itk.image_from_array(np.ascontiguousarray(sinogram))  # ITK index (u = channel, v = row, view)
    projections.SetSpacing([pitch_u, pitch_v, 1.0])
    projections.SetOrigin([-(channels - 1) / 2 * pitch_u - geometry["det_channel_offset"],
                           -(det_rows - 1) / 2 * pitch_v - geometry["det_row_offset"], 0.0])
    scan = rtk.ThreeDCircularProjectionGeometry.New()
    for angle in np.degrees(np.asarray(geometry["angles"], dtype=np.float64)):
        scan.AddProjection(geometry["source_iso_dist"], geometry["source_detector_dist"], float(angle), 0.0, 0.0)
    n_rows, n_cols, n_slices = geometry["recon_shape"]
    dx = geometry["delta_voxel"]
    dy, dz = dx * geometry["voxel_row_aspect"], dx * geometry["voxel_slice_aspect"]
    volume = itk.image_from_array(np.zeros((n_rows, n_slices, n_cols), np.float32))  # ITK index (x, z, y)
    volume.SetSpacing([dx, dz, dy])
    volume.SetOrigin([-(n_cols - 1) / 2 * dx, -(n_slices - 1) / 2 * dz + geometry["recon_slice_offset"],
                      -(n_rows - 1) / 2 * dy])
    fdk = rtk.FDKConeBeamReconstructionFilter[itk.Image[itk.F, 3]].New()
    fdk.SetInput(0, volume)
    fdk.SetInput(1, projections)
    fdk.SetGeometry(scan)
    start = time.perf_counter()
    fdk.Update()
    seconds = time.perf_counter() - start
    recon = itk.array_from_image(fdk.GetOutput()).transpose(0, 2, 1)  # (rows, slices, cols) -> ours
    return [dict(tool=f"RTK FDK (itk-rtk {package_version('itk-rtk')})",
                 setting="direct", seconds=seconds, nrmse=nrmse(recon, phantom),
                 note=f"{itk.MultiThreaderBase.GetGlobalDefaultNumberOfThreads()} ITK threads")]


PEERS = {"mbirjax": mbirjax_peer, "svmbir": svmbir_peer, "rtk": rtk_fdk_peer}
PEER_GEOMETRIES = {"mbirjax": ("parallel", "cone"), "svmbir": ("parallel",), "rtk": ("cone",)}
PEER_NAMES = {"mbirjax": "MBIRJAX", "svmbir": "svmbir", "rtk": "RTK FDK"}


def run_peer(name, directory):
    """One peer in a subprocess: its rows, or one row that says why there are none."""
    environment = dict(os.environ)
    if name == "mbirjax" and "XLA_FLAGS" not in environment:
        # MBIRJAX shards over virtual CPU devices, one per core, whose all-reduce XLA aborts after 40 s when a
        # device's thread has not arrived: seen on every problem on a loaded 2-core machine. One device avoids it.
        environment["XLA_FLAGS"] = "--xla_force_host_platform_device_count=1"
    try:
        result = subprocess.run([sys.executable, __file__, "--peer", name, directory], capture_output=True, text=True,
                                timeout=PEER_TIMEOUT_S, env=environment)
    except subprocess.TimeoutExpired:
        return [dict(tool=PEER_NAMES[name], setting="-", seconds=None, nrmse=None,
                     note=f"skipped: no result within {PEER_TIMEOUT_S} s")]
    lines = result.stdout.strip().splitlines()
    if result.returncode == 0 and lines and lines[-1].startswith("["):
        return json.loads(lines[-1])
    output = result.stderr.strip().splitlines() or lines or ["no output"]
    messages = [line for line in output if re.search(r"Error|Exception|timeout|Killed", line)]
    message = (messages or output)[-1].strip()
    if "ModuleNotFoundError" in message or "ImportError" in message:
        message = f"not installed ({message})"
    print(f"{PEER_NAMES[name]} failed:\n{result.stderr[-3000:]}", file=sys.stderr)
    return [dict(tool=PEER_NAMES[name], setting="-", seconds=None, nrmse=None, note=f"skipped: {message}")]


def format_table(rows):
    header = ["problem", "tool", "setting", "seconds", "NRMSE", "ratio vs ours", "note"]
    cells = [[r["problem"], r["tool"], r["setting"], "-" if r["seconds"] is None else f"{r['seconds']:.2f}",
              "-" if r["nrmse"] is None else f"{r['nrmse']:.4f}",
              "-" if r["ratio"] is None else f"{r['ratio']:.2f}", r["note"]] for r in rows]
    widths = [max(len(line[i]) for line in [header] + cells) for i in range(len(header) - 1)]
    lines = []
    for line in [header] + cells:
        lines.append("  ".join(c.ljust(w) for c, w in zip(line, widths)) + "  " + line[-1])
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="the 128-class problems only")
    parser.add_argument("--geometry", choices=("parallel", "cone", "both"), default="both")
    parser.add_argument("--size", action="append", metavar="VxRxC",
                        help="views x rows x channels instead of the standard sizes (repeatable), e.g. 32x8x32")
    parser.add_argument("--time-to-target", action="store_true",
                        help="also the time ours takes to reach each MBIR peer's NRMSE (more runs of ours)")
    parser.add_argument("--peers", default=",".join(PEERS), help="the peers to run (default %(default)s)")
    parser.add_argument("--bin", default="build/bin", help="our tools")
    parser.add_argument("--output", default="build/peers/cpu", help="problems, recons and the CSV")
    parser.add_argument("--peer", nargs=2, metavar=("NAME", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peer:  # the subprocess of run_peer
        print(json.dumps(PEERS[args.peer[0]](args.peer[1])))
        return

    geometries = ("parallel", "cone") if args.geometry == "both" else (args.geometry,)
    csv_path = f"{args.output}/cpu-peers{'-quick' if args.quick else ''}.csv"
    os.makedirs(args.output, exist_ok=True)
    print(f"{os.cpu_count()} CPUs; {time.strftime('%Y-%m-%d %H:%M %Z')}; load {os.getloadavg()[0]:.1f}")
    table = []
    with open(csv_path, "w", newline="") as f:
        writer = csv.DictWriter(f, ["problem", "tool", "setting", "seconds", "nrmse", "ratio", "note"])
        writer.writeheader()
        sizes = [tuple(int(n) for n in size.split("x")) for size in args.size] if args.size else \
            problem_sizes(args.quick)
        for views, det_rows, channels in sizes:
            for geometry in geometries:
                problem = f"{geometry} {views}x{det_rows}x{channels}"
                directory = f"{args.output}/{geometry}-{views}-{det_rows}-{channels}"
                print(f"== {problem}: writing the scan", flush=True)
                make_problem(args.bin, directory, geometry, views, det_rows, channels)
                rows = ours(args.bin, directory)
                for name in PEERS:
                    if name in args.peers.split(",") and geometry in PEER_GEOMETRIES[name]:
                        print(f"== {problem}: {PEER_NAMES[name]}", flush=True)
                        rows += run_peer(name, directory)
                if args.time_to_target:
                    print(f"== {problem}: ours to the peers' NRMSE", flush=True)
                    rows += ours_time_to_target(args.bin, directory, [r for r in rows if r["tool"] != "ours"])
                ours_seconds = {r["setting"]: r["seconds"] for r in rows if r["tool"] == "ours"}
                for row in rows:
                    row["problem"] = problem
                    row["ratio"] = None
                    if "peer_seconds" in row:  # a time-to-target row: the peer's time over ours
                        peer_seconds = row.pop("peer_seconds")
                        if peer_seconds and row["seconds"]:
                            row["ratio"] = peer_seconds / row["seconds"]
                    elif row["seconds"] is not None and ours_seconds.get(row["setting"]):
                        row["ratio"] = row["seconds"] / ours_seconds[row["setting"]]
                    print(f"   {row['tool']}, {row['setting']}: {row['seconds']} s, NRMSE {row['nrmse']}", flush=True)
                    writer.writerow(row)
                    f.flush()
                table += rows
    print()
    print(format_table(table))
    print("ratio vs ours: the peer's seconds / ours at the same setting, or / ours to the peer's NRMSE "
          f"(> 1: ours is faster). -> {csv_path}")


if __name__ == "__main__":
    main()
