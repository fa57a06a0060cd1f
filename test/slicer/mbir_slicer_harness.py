"""Runs Slicer CLI modules headlessly through Slicer's own CLI machinery, from the slicer-core wheel.

What runs is Slicer's code, not a re-implementation: vtkSlicerCLIModuleLogic builds the command line from
the module's parsed XML description and the parameter node, writes the input volume nodes to temporary NRRD
files through their storage nodes, starts the program on vtkSlicerApplicationLogic's processing thread,
parses <filter-progress> from its stdout, captures stdout and stderr, sets the node's status and queues the
outputs to be read back on the main thread. The harness only does what Slicer's application (Qt, absent
here) does around it:

- registers the module's description (the bridge library: ModuleDescriptionParser and
  vtkMRMLCommandLineModuleNode::RegisterModuleDescription are not in the wheel's Python wrapping);
- creates the scene with the command-line-module node class registered, the application logic with a
  temporary path (where the CLI logic writes its files: unset, it is "" and the files would go to "/"), the
  remote IO logic whose cache manager the scene needs (reading an output back asks the scene's cache manager
  whether the file is remote: without one it dereferences null), the data IO manager logic, and the
  processing thread (without it Apply cannot schedule, and every request from the thread is dropped);
- gives the CLI logic the application logic and the scene (it observes the application logic to set
  Completed once the outputs have been read back);
- pumps the application logic's queues on the main thread (ProcessModified, ProcessReadData), as Slicer's
  timers do, until the node is no longer busy.

Import it only where `import slicer` works (the slicer-core venv); load() reports why it cannot.
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

HERE = Path(__file__).resolve().parent


class Unavailable(Exception):
    """Slicer's machinery (the wheel or the bridge) cannot be used here: the reason says why."""


class NoXml(Exception):
    """The executable does not (yet) print a SlicerExecutionModel description on --xml."""


_slicer = None
_register = None


def load(bridge: str | os.PathLike | None = None):
    """Imports slicer-core and loads the bridge; returns the `slicer` module or raises Unavailable."""
    global _slicer, _register
    if _slicer is not None and _register is not None:
        return _slicer
    try:
        import slicer  # noqa: F401  (slicer-core: vtkSlicerCLIModuleLogic, MRML, volume storage)
        from vtkmodules.util import numpy_support  # noqa: F401
    except Exception as e:  # ImportError, or a library the wheel needs that is missing
        raise Unavailable(f"cannot import the slicer-core wheel ({type(e).__name__}: {e})") from e
    for name in ("vtkSlicerCLIModuleLogic", "vtkMRMLCommandLineModuleNode", "vtkSlicerApplicationLogic",
                 "vtkMRMLRemoteIOLogic", "vtkDataIOManagerLogic", "vtkMRMLVolumeArchetypeStorageNode"):
        if not hasattr(slicer, name):
            raise Unavailable(f"the slicer-core wheel has no {name}")
    where = bridge or os.environ.get("MBIR_SLICER_BRIDGE")
    if not where or not Path(where).is_file():
        what = f"{where} does not exist" if where else "MBIR_SLICER_BRIDGE is not set"
        raise Unavailable(f"the CLI registration bridge is not built ({what}); test/slicer/test-slicer-cli.sh "
                          "builds it")
    path = Path(where)
    try:
        # After `import slicer`, so that the bridge binds to the very libMRMLCLI.so the wrapping uses
        # (one registry of module descriptions).
        library = ctypes.CDLL(str(path))
        register = library.mbir_register_cli
    except (OSError, AttributeError) as e:
        raise Unavailable(f"cannot load the CLI registration bridge {path}: {e}") from e
    register.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                         ctypes.c_char_p, ctypes.c_size_t]
    register.restype = ctypes.c_int
    _slicer, _register = slicer, register
    return slicer


# Slicer's CLI factory gives `--xml` 5 s. The harness waits longer (MBIR_SLICER_XML_TIMEOUT, default 60 s), so
# that a busy test machine (ctest -j, an MBIR run beside it) does not turn into a failure; the time is in
# Module.xml_seconds, and the 5 s budget is the tools' conventions test's to check on a quiet machine.
SLICER_XML_TIMEOUT = 5.0


def read_xml(executable: str | os.PathLike, timeout: float | None = None) -> tuple[str, str, float]:
    """Runs `executable --xml` as Slicer's CLI factory does (its folder as the working directory,
    ITK_AUTOLOAD_PATH empty); returns (stdout, stderr, seconds) or raises NoXml."""
    if timeout is None:
        timeout = float(os.environ.get("MBIR_SLICER_XML_TIMEOUT", "60"))
    executable = Path(executable)
    if not (executable.is_file() and os.access(executable, os.X_OK)):
        raise NoXml(f"{executable} is not an executable file")
    env = dict(os.environ, ITK_AUTOLOAD_PATH="")
    start = time.monotonic()
    try:
        done = subprocess.run([str(executable), "--xml"], cwd=executable.parent, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise NoXml(f"{executable.name} --xml did not finish within {timeout:g} s (Slicer allows "
                    f"{SLICER_XML_TIMEOUT:g} s)")
    seconds = time.monotonic() - start
    if done.returncode != 0 or "<?xml" not in done.stdout or "<executable" not in done.stdout:
        first = (done.stderr.strip() or done.stdout.strip()).splitlines()[:1]
        raise NoXml(f"{executable.name} --xml prints no SlicerExecutionModel XML yet "
                    f"(exit status {done.returncode}: {first[0] if first else 'no output'})")
    return done.stdout, done.stderr, seconds


@dataclasses.dataclass
class Parameter:
    name: str
    tag: str  # image, file, float, integer, boolean, string-enumeration, ...
    longflag: str  # without dashes
    flag: str
    channel: str  # input, output or '' (simple parameters)
    default: str | None
    file_extensions: str
    index: str | None


@dataclasses.dataclass
class Module:
    title: str
    executable: Path
    xml: str
    xml_seconds: float
    xml_stderr: str
    parameters: list[Parameter]

    def parameter(self, flag_or_name: str) -> Parameter:
        """The parameter with this long flag (with or without '--') or this name."""
        key = flag_or_name.lstrip("-")
        for p in self.parameters:
            if p.longflag == key:
                return p
        for p in self.parameters:
            if p.name == key:
                return p
        raise KeyError(f"{self.title} has no parameter with long flag or name '{flag_or_name}'")

    def has(self, flag_or_name: str) -> bool:
        try:
            self.parameter(flag_or_name)
            return True
        except KeyError:
            return False


def _parameters(xml: str) -> list[Parameter]:
    """The parameters of an SEM description, read with ElementTree for the harness's own bookkeeping
    (which name a flag has, which images are outputs); Slicer's parser is what runs the module."""
    root = ElementTree.fromstring(xml.encode() if xml.lstrip().startswith("<?xml") else xml)
    result = []
    for group in root.findall("parameters"):
        for element in group:
            if element.tag in ("label", "description"):
                continue

            def text(child):
                node = element.find(child)
                return node.text.strip() if node is not None and node.text else None

            result.append(Parameter(
                name=text("name") or "",
                tag=element.tag,
                longflag=(text("longflag") or "").lstrip("-"),
                flag=(text("flag") or "").lstrip("-"),
                channel=text("channel") or "",
                default=text("default"),
                file_extensions=element.get("fileExtensions", ""),
                index=text("index"),
            ))
    return result


@dataclasses.dataclass
class Result:
    status: str  # as Slicer's panel shows it: "Completed", "Completed with errors", "Cancelled", ...
    status_code: int  # vtkMRMLCommandLineModuleNode.Completed, .CompletedWithErrors, ...
    output_text: str  # the program's stdout, progress tags removed (as Slicer shows it)
    error_text: str  # the program's stderr, or the logic's own message
    outputs: dict  # parameter name -> output volume node (read back by the application logic)
    progress: list  # GetProgress() (0..100) at every node Modified seen on the main thread
    statuses: list  # status strings in the order the main thread saw them
    seconds: float
    node: object  # the vtkMRMLCommandLineModuleNode

    @property
    def completed(self) -> bool:
        return self.status == "Completed"


class Harness:
    """A scene and the logics Slicer's application would create around it; one per test session."""

    def __init__(self, workdir: str | os.PathLike | None = None, bridge: str | os.PathLike | None = None,
                 delete_temporary_files: bool = True):
        slicer = load(bridge)
        self.slicer = slicer
        # Slicer's application sets SLICER_HOME for what it starts (qSlicerCoreApplicationPrivate::init); the
        # tools tell from it that Slicer reads their progress.
        os.environ.setdefault("SLICER_HOME", str(Path(getattr(slicer, "__file__", None) or __file__).parent))
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="mbir-slicer-"))
        self.temporary_path = self.workdir / "slicer-temp"
        self.cache_path = self.workdir / "slicer-cache"
        self.temporary_path.mkdir(parents=True, exist_ok=True)
        self.cache_path.mkdir(parents=True, exist_ok=True)

        # Application logic (qSlicerCoreApplicationPrivate::init): temporary path, then the processing
        # thread (the CLI logic schedules its task on it, and its requests back to the main thread are
        # queued only while it runs).
        self.app = slicer.vtkSlicerApplicationLogic()
        self.app.SetTemporaryPath(str(self.temporary_path))
        self.app.CreateProcessingThread()

        # Data IO (initDataIO): remote IO logic with its cache manager, data IO manager logic.
        self.remote_io = slicer.vtkMRMLRemoteIOLogic()
        self.remote_io.GetCacheManager().SetRemoteCacheDirectory(str(self.cache_path))
        self.data_io = slicer.vtkDataIOManagerLogic()
        self.data_io.SetMRMLApplicationLogic(self.app)
        self.data_io.SetAndObserveDataIOManager(self.remote_io.GetDataIOManager())

        # The scene (qSlicerCoreApplication::setMRMLScene): the command-line-module node class registered,
        # handed to the application logic (which adds the selection and interaction singletons), and the
        # data IO attached (AddDataIOToScene gives the scene its cache manager and data IO manager).
        self.scene = slicer.vtkMRMLScene()
        self.scene.SetRootDirectory(str(self.workdir))
        self.scene.RegisterNodeClass(slicer.vtkMRMLCommandLineModuleNode())
        self.app.SetMRMLScene(self.scene)
        self.app.SetMRMLSceneDataIO(self.scene, self.remote_io, self.data_io)

        # The CLI logic (qSlicerCLIModule::createLogic and the module manager's setup).
        self.cli = slicer.vtkSlicerCLIModuleLogic()
        self.cli.SetMRMLApplicationLogic(self.app)
        self.cli.SetMRMLScene(self.scene)
        self.cli.SetDeleteTemporaryFiles(1 if delete_temporary_files else 0)
        self.modules: dict[str, Module] = {}

    def close(self):
        if self.app is not None:
            self.app.TerminateProcessingThread()
            self.cli.SetMRMLScene(None)
            self.app.SetMRMLSceneDataIO(None, self.remote_io, self.data_io)
            self.app.SetMRMLScene(None)
            self.scene.Clear(1)
            self.app = None

    # -- modules -------------------------------------------------------------------------------------

    def register(self, executable: str | os.PathLike) -> Module:
        """Reads the executable's --xml (NoXml when it prints none), parses and registers it with Slicer's
        parser; returns the module. Raises RuntimeError when Slicer's parser rejects the XML or it has no title."""
        executable = Path(os.path.abspath(executable))
        xml, stderr, seconds = read_xml(executable)
        # Slicer drops anything before '<?xml' (with a warning); so does the harness, and tests check it.
        xml_from_declaration = xml[xml.index("<?xml"):]
        title = ctypes.create_string_buffer(4096)
        error = ctypes.create_string_buffer(65536)
        status = _register(xml_from_declaration.encode(), str(executable).encode(), title, len(title),
                           error, len(error))
        if status != 0:
            raise RuntimeError(f"registering {executable.name} as a Slicer CLI module fails: "
                               f"{error.value.decode(errors='replace').strip()}")
        module = Module(title=title.value.decode(), executable=executable, xml=xml, xml_seconds=seconds,
                        xml_stderr=stderr, parameters=_parameters(xml_from_declaration))
        if not self.slicer.vtkMRMLCommandLineModuleNode.HasRegisteredModule(module.title):
            raise RuntimeError(f"{module.title} was registered but Slicer's registry does not list it")
        self.modules[module.title] = module
        return module

    def create_node(self, module: Module):
        """A parameter node for the module, as vtkSlicerCLIModuleLogic::CreateNodeInScene makes it (by
        class through the scene, the registered description copied in)."""
        node = self.scene.AddNewNodeByClass("vtkMRMLCommandLineModuleNode",
                                            self.scene.GetUniqueNameByString(module.title))
        node.SetModuleDescription(module.title)
        if node.GetModuleTitle() != module.title:
            raise RuntimeError(f"the parameter node did not take the registered description of {module.title}")
        return node

    # -- volumes -------------------------------------------------------------------------------------

    def load_volume(self, path: str | os.PathLike, name: str | None = None):
        """A scalar volume node read from a file by Slicer's volume archetype storage node."""
        path = Path(path)
        node = self.scene.AddNewNodeByClass("vtkMRMLScalarVolumeNode", name or path.stem)
        storage = self.scene.AddNewNodeByClass("vtkMRMLVolumeArchetypeStorageNode")
        storage.SetFileName(str(path))
        node.SetAndObserveStorageNodeID(storage.GetID())
        if not storage.ReadData(node) or node.GetImageData() is None:
            raise RuntimeError(f"Slicer's volume storage node cannot read {path}")
        return node

    def new_volume(self, name: str):
        return self.scene.AddNewNodeByClass("vtkMRMLScalarVolumeNode", name)

    # -- running -------------------------------------------------------------------------------------

    def _pump(self):
        # Slicer's timers call these on the main thread; ProcessModified takes one object per call.
        for _ in range(64):
            self.app.ProcessModified()
        while self.app.GetReadDataQueueSize():
            self.app.ProcessReadData()

    def run(self, module: Module, parameters: dict, timeout: float = 900.0, wait_for_thread: bool = True,
            update_display: bool = False) -> Result:
        """Runs the module as Slicer's Apply button does: a parameter node, its parameters set (volume nodes
        by ID; an `<image>` output that is not given gets a new scalar volume node), Apply on the processing
        thread, the main-thread queues pumped until the node is no longer busy.

        `parameters` maps long flags (or names) to values: str/int/float, bool, a volume node, or None
        (left unset: for an `<image>` output, no node, so Slicer passes no flag)."""
        node = self.create_node(module)
        outputs = {}
        unset = set()
        for key, value in parameters.items():
            p = module.parameter(key)
            if value is None:
                unset.add(p.name)
                continue
            if hasattr(value, "GetID"):
                value = value.GetID()
                if p.channel == "output":
                    outputs[p.name] = self.scene.GetNodeByID(value)
            elif isinstance(value, bool):
                value = "true" if value else "false"
            node.SetParameterAsString(p.name, str(value))
        for p in module.parameters:
            if p.tag == "image" and p.channel == "output" and p.name not in outputs and p.name not in unset:
                volume = self.new_volume(f"{module.title} {p.name}")
                node.SetParameterAsString(p.name, volume.GetID())
                outputs[p.name] = volume

        progress, statuses = [], []

        def observe(caller, event):
            status = caller.GetStatusString()
            if not statuses or statuses[-1] != status:
                statuses.append(status)
            progress.append(caller.GetProgress())

        tag = node.AddObserver("ModifiedEvent", observe)
        start = time.monotonic()
        self.cli.Apply(node, update_display)
        observe(node, None)
        while True:
            self._pump()
            if not node.IsBusy():
                # One more pass, so that the last Modified requests and read-backs are seen.
                self._pump()
                break
            if time.monotonic() - start > timeout:
                # Cancel as the panel's Cancel button does. Slicer's logic loses a cancel that comes while it
                # writes the inputs (it then sets Running and clears the abort flag): cancel again until the
                # node is no longer busy.
                deadline = time.monotonic() + 30
                while node.IsBusy() and time.monotonic() < deadline:
                    if node.GetStatus() not in (node.Cancelling, node.Cancelled):
                        node.Cancel()
                    self._pump()
                    time.sleep(0.05)
                node.RemoveObserver(tag)
                raise TimeoutError(f"{module.title} still {node.GetStatusString()} after {timeout:g} s "
                                   f"(cancelled); stderr so far: {node.GetErrorText()}")
            time.sleep(0.01)
        seconds = time.monotonic() - start
        node.RemoveObserver(tag)
        observe(node, None)
        return Result(status=node.GetStatusString(), status_code=node.GetStatus(),
                      output_text=node.GetOutputText() or "", error_text=node.GetErrorText() or "",
                      outputs=outputs, progress=progress, statuses=statuses, seconds=seconds, node=node)


# -- reading volume nodes -------------------------------------------------------------------------------

def volume_array(node):
    """The voxels of a scalar volume node as a NumPy array indexed [k, j, i] (slice, row, column)."""
    from vtkmodules.util import numpy_support

    image = node.GetImageData()
    if image is None or image.GetPointData().GetScalars() is None:
        raise ValueError(f"volume node {node.GetName()} holds no image")
    nx, ny, nz = image.GetDimensions()
    return numpy_support.vtk_to_numpy(image.GetPointData().GetScalars()).reshape(nz, ny, nx)


def volume_geometry(node):
    """(size, spacing, origin, directions) of a volume node in the file's (ITK's) LPS convention, so that it
    compares with what the tools write: MRML keeps RAS, and Slicer's storage flips x and y on the way."""
    import numpy as np
    from vtkmodules.vtkCommonMath import vtkMatrix4x4

    size = tuple(node.GetImageData().GetDimensions())
    spacing = tuple(node.GetSpacing())
    ras = vtkMatrix4x4()
    node.GetIJKToRASDirectionMatrix(ras)
    directions = np.array([[ras.GetElement(r, c) for c in range(3)] for r in range(3)])
    flip = np.diag([-1.0, -1.0, 1.0])
    origin = tuple(float(v) for v in flip @ np.array(node.GetOrigin()))
    return size, spacing, origin, flip @ directions


def nrmse(x, reference):
    """||x - reference|| / ||reference||, the NRMSE the MBIR tools print (mbir/Metrics.h)."""
    import numpy as np

    x = np.asarray(x, dtype=np.float64)
    reference = np.asarray(reference, dtype=np.float64)
    if x.shape != reference.shape:
        raise ValueError(f"shapes differ: {x.shape} vs {reference.shape}")
    return float(np.linalg.norm(x - reference) / np.linalg.norm(reference))
