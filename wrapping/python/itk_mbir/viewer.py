"""A slice viewer for volumes with matplotlib: one to four volumes side by side, each in axial, coronal and sagittal
slices through one linked point, a shared window, a colour bar, and the position (mm) and value under the cursor."""

import numpy as np

VIEWS = ("axial", "coronal", "sagittal")


def _as_volume(volume, name):
    """(rows, cols, slices) float array and its voxel spacing (row, col, slice) in mm; an itk.Image is turned from
    its (z, y, x) array order into that."""
    if type(volume).__module__.startswith("itk"):
        import itk
        spacing = tuple(float(s) for s in volume.GetSpacing())  # (x, y, z)
        array = np.transpose(itk.array_from_image(volume), (1, 2, 0))
        return np.asarray(array, dtype=np.float32), (spacing[1], spacing[0], spacing[2])
    array = np.asarray(volume)
    if array.ndim != 3:
        raise ValueError(f"{name} must be a 3-D volume (rows, cols, slices), got shape {array.shape}")
    if not np.issubdtype(array.dtype, np.number):
        raise ValueError(f"{name} must hold numbers, got dtype {array.dtype}")
    return array.astype(np.float32, copy=False), (1.0, 1.0, 1.0)


def _percentile_window(volumes, low=0.5, high=99.5):
    """The display range that the (low, high) percentiles of every finite voxel give."""
    values = np.concatenate([v[np.isfinite(v)].ravel() for v in volumes])
    if values.size == 0:
        return 0.0, 1.0
    lo, hi = (float(p) for p in np.percentile(values, [low, high]))
    return (lo, hi) if hi > lo else (lo, lo + 1.0)


class SliceViewer:
    """The figure `slice_viewer` draws. `point` is the (row, col, slice) index the three views go through; `set_point`
    and `set_window` change them (and the sliders and mouse clicks call them)."""

    def __init__(self, volumes, titles=None, reference=None, window=None, spacing=None, figure_size=None):
        import matplotlib.pyplot as plt
        from matplotlib.widgets import RangeSlider, Slider

        if not isinstance(volumes, (list, tuple)):
            volumes = [volumes]
        if not 1 <= len(volumes) <= 4:
            raise ValueError(f"slice_viewer shows 1 to 4 volumes, got {len(volumes)}")
        converted = [_as_volume(v, f"volume {i}") for i, v in enumerate(volumes)]
        self.volumes = [array for array, _ in converted]
        self.titles = list(titles) if titles is not None else [f"volume {i}" for i in range(len(volumes))]
        if len(self.titles) != len(self.volumes):
            raise ValueError(f"{len(self.titles)} titles for {len(self.volumes)} volumes")
        shape = self.volumes[0].shape
        for title, array in zip(self.titles, self.volumes):
            if array.shape != shape:
                raise ValueError(f"'{title}' has shape {array.shape}, the first volume {shape}: all must match")
        if reference is not None:
            reference, _ = _as_volume(reference, "reference")
            if reference.shape != shape:
                raise ValueError(f"the reference has shape {reference.shape}, the volumes {shape}")
            self.volumes += [v - reference for v in self.volumes]
            self.titles += [f"{t} - reference" for t in self.titles]
        self.volume_count = len(converted)  # the rows after them are differences from the reference
        self.spacing = tuple(spacing) if spacing is not None else converted[0][1]
        self.shape = shape
        self.point = [n // 2 for n in shape]
        originals = self.volumes[: len(converted)]
        self.window = tuple(window) if window is not None else _percentile_window(originals)
        self.difference_window = None
        if reference is not None:
            extent = max(abs(x) for x in _percentile_window(self.volumes[len(converted):], 1.0, 99.0))
            self.difference_window = (-extent, extent) if extent > 0 else (-1.0, 1.0)

        rows = len(self.volumes)
        self.figure, axes = plt.subplots(rows, 3, squeeze=False, figsize=figure_size or (11, 3.4 * rows + 1.2))
        self.figure.subplots_adjust(bottom=0.1 + 0.1 / rows, top=0.95, wspace=0.25, hspace=0.3)
        self.axes = axes
        self.images = []
        for r, (title, array) in enumerate(zip(self.titles, self.volumes)):
            difference = r >= len(converted)
            low, high = self.difference_window if difference else self.window
            row_images = []
            for c, view in enumerate(VIEWS):
                ax = axes[r][c]
                image = ax.imshow(self._slice(array, view), cmap="RdBu_r" if difference else "gray", vmin=low,
                                  vmax=high, origin="lower", aspect=self._aspect(view), interpolation="nearest")
                ax.set_title(f"{title}: {view}", fontsize=9)
                ax.format_coord = self._coordinates(array, view)
                row_images.append(image)
            self.images.append(row_images)
            self.figure.colorbar(row_images[-1], ax=list(axes[r]), shrink=0.8)
        self._update_titles()

        # Sliders: the three slice indices, then the window.
        self.sliders = []  # set_point keeps them in step
        width = 0.8 / 4
        for i, (label, n) in enumerate(zip(("row", "col", "slice"), shape)):
            slider_axes = self.figure.add_axes([0.08 + i * (width + 0.02), 0.02, width - 0.05, 0.025])
            slider = Slider(slider_axes, label, 0, n - 1, valinit=self.point[i], valstep=1)
            slider.on_changed(lambda value, axis=i: self.set_point(**{("row", "col", "slice")[axis]: int(value)}))
            self.sliders.append(slider)
        lo, hi = _percentile_window(originals, 0.0, 100.0)
        window_axes = self.figure.add_axes([0.08 + 3 * (width + 0.02), 0.02, width - 0.05, 0.025])
        self.window_slider = RangeSlider(window_axes, "window", min(lo, self.window[0]), max(hi, self.window[1]),
                                         valinit=self.window)
        self.window_slider.on_changed(lambda value: self.set_window(*value))
        self.figure.canvas.mpl_connect("button_press_event", self._clicked)

    def _slice(self, array, view):
        row, col, slice_ = self.point
        if view == "axial":
            return array[:, :, slice_]  # rows up, cols across
        if view == "coronal":
            return array[row, :, :].T  # slices up, cols across
        return array[:, col, :].T  # sagittal: slices up, rows across

    def _aspect(self, view):
        dr, dc, ds = self.spacing
        return {"axial": dr / dc, "coronal": ds / dc, "sagittal": ds / dr}[view]

    def _coordinates(self, array, view):
        """The status line under the cursor: position in mm from the volume's first voxel, and the value."""
        def text(x, y):
            i, j = int(round(x)), int(round(y))
            row, col, slice_ = self.point
            index = {"axial": (j, i, slice_), "coronal": (row, i, j), "sagittal": (i, col, j)}[view]
            if not all(0 <= k < n for k, n in zip(index, self.shape)):
                return ""
            mm = ", ".join(f"{k * d:.2f}" for k, d in zip(index, self.spacing))
            return f"voxel {index}, ({mm}) mm, value {array[index]:.5g}"
        return text

    def _update_titles(self):
        row, col, slice_ = self.point
        where = {"axial": f"slice {slice_}", "coronal": f"row {row}", "sagittal": f"col {col}"}
        for r, title in enumerate(self.titles):
            for c, view in enumerate(VIEWS):
                self.axes[r][c].set_title(f"{title}: {view}, {where[view]}", fontsize=9)

    def set_point(self, row=None, col=None, slice=None):
        """Moves the linked point; each index is clipped to the volume."""
        for axis, value in enumerate((row, col, slice)):
            if value is not None:
                self.point[axis] = int(np.clip(value, 0, self.shape[axis] - 1))
        for array, row_images in zip(self.volumes, self.images):
            for view, image in zip(VIEWS, row_images):
                image.set_data(self._slice(array, view))
        self._update_titles()
        for slider, value in zip(self.sliders, self.point):  # quietly, since a slider may be what called
            if slider.val != value:
                slider.eventson = False
                slider.set_val(value)
                slider.eventson = True
        self.figure.canvas.draw_idle()

    def set_window(self, low, high):
        """The display range of the volumes (not of the difference rows)."""
        if not high > low:
            raise ValueError(f"the window must have high > low, got ({low}, {high})")
        self.window = (float(low), float(high))
        for row_images in self.images[: self.volume_count]:
            for image in row_images:
                image.set_clim(*self.window)
        self.figure.canvas.draw_idle()

    def _clicked(self, event):
        """A click in a view moves the other two views' slices to the point clicked."""
        for row_axes in self.axes:
            for view, ax in zip(VIEWS, row_axes):
                if event.inaxes is ax and event.xdata is not None:
                    i, j = int(round(event.xdata)), int(round(event.ydata))
                    moves = {"axial": dict(row=j, col=i), "coronal": dict(col=i, slice=j),
                             "sagittal": dict(row=i, slice=j)}[view]
                    self.set_point(**moves)
                    return

    def save(self, path, dpi=100):
        """Writes the figure (PNG, PDF, SVG, ... by extension)."""
        self.figure.savefig(path, dpi=dpi)


def slice_viewer(volumes, titles=None, reference=None, window=None, spacing=None, show=True, figure_size=None):
    """Shows one to four volumes side by side in linked axial, coronal and sagittal slices (matplotlib).

    volumes: an array (rows, cols, slices), as the models return, an itk.Image, or a list of up to four of them,
    all of one shape. titles: one per volume. reference: a volume of the same shape; adds a row per volume with its
    difference from it. window: (low, high) display range (default: the 0.5 and 99.5 percentiles of all volumes).
    spacing: (row, col, slice) voxel size in mm (default: an itk.Image's, else 1). show: call matplotlib's show().

    Sliders move the slices and the window; a click in one view moves the other two to that point; the status line
    gives the voxel, its position in mm and its value. Returns the SliceViewer (its figure, set_point, set_window,
    save)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as error:
        raise ImportError("slice_viewer needs matplotlib: pip install matplotlib") from error
    viewer = SliceViewer(volumes, titles=titles, reference=reference, window=window, spacing=spacing,
                         figure_size=figure_size)
    if show:
        import matplotlib.pyplot as plt
        plt.show()
    return viewer
