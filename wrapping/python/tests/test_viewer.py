"""itk_mbir.slice_viewer (matplotlib, drawn offscreen with Agg): the views show the slices they say, an object lands
where it is in every view of the rendered picture, the window, the linked point, differences and bad input."""

import numpy as np
import pytest

import itk_mbir


def ball_volume(shape=(40, 48, 24), centre=(10, 30, 16), radius=5):
    """0.1 background with a ball of 1 off the centre, so each view finds it at a known place."""
    r, c, s = np.indices(shape)
    volume = np.full(shape, 0.1, dtype=np.float32)
    volume[(r - centre[0]) ** 2 + (c - centre[1]) ** 2 + (s - centre[2]) ** 2 <= radius ** 2] = 1.0
    return volume


def test_each_view_shows_its_slice_through_the_linked_point(pyplot):
    volume = np.random.default_rng(1).random((20, 30, 10)).astype(np.float32)
    viewer = itk_mbir.slice_viewer(volume, show=False)
    assert viewer.point == [10, 15, 5]
    axial, coronal, sagittal = (image.get_array() for image in viewer.images[0])
    np.testing.assert_array_equal(axial, volume[:, :, 5])
    np.testing.assert_array_equal(coronal, volume[10, :, :].T)
    np.testing.assert_array_equal(sagittal, volume[:, 15, :].T)
    viewer.set_point(row=3, slice=99)  # clipped to the last slice
    assert viewer.point == [3, 15, 9]
    np.testing.assert_array_equal(viewer.images[0][0].get_array(), volume[:, :, 9])
    np.testing.assert_array_equal(viewer.images[0][1].get_array(), volume[3, :, :].T)
    assert viewer.axes[0][0].get_title().endswith("axial, slice 9")
    assert viewer.axes[0][1].get_title().endswith("coronal, row 3")
    assert [slider.val for slider in viewer.sliders] == [3, 15, 9]
    viewer.sliders[1].set_val(7)  # a slider moves the point
    assert viewer.point == [3, 7, 9]
    np.testing.assert_array_equal(viewer.images[0][2].get_array(), volume[:, 7, :].T)


def test_the_ball_appears_where_it_is_in_every_view_of_the_picture(pyplot, tmp_path):
    centre = (10, 30, 16)
    viewer = itk_mbir.slice_viewer(ball_volume(centre=centre), titles=["ball"], show=False)
    viewer.set_point(*centre)
    path = tmp_path / "ball.png"
    viewer.save(path)
    picture = pyplot.imread(path)[..., :3].mean(axis=2)  # grey levels, rows from the top
    height = picture.shape[0]
    # Where the ball's centre and a background voxel fall in each view, in pixels of the picture.
    places = {"axial": ((centre[1], centre[0]), (2, 2)), "coronal": ((centre[1], centre[2]), (2, 2)),
              "sagittal": ((centre[0], centre[2]), (35, 2))}
    for ax, view in zip(viewer.axes[0], ("axial", "coronal", "sagittal")):
        for (x, y), expect_bright in ((places[view][0], True), (places[view][1], False)):
            px, py = ax.transData.transform((x, y))
            grey = picture[int(round(height - py)), int(round(px))]
            assert (grey > 0.8) if expect_bright else (grey < 0.3), (view, x, y, grey)


def test_window_from_percentiles_and_set_by_hand(pyplot):
    volume = ball_volume()
    viewer = itk_mbir.slice_viewer(volume, show=False)
    expected = tuple(np.percentile(volume, [0.5, 99.5]))
    assert viewer.window == pytest.approx(expected)
    viewer.set_window(0.2, 0.6)
    assert viewer.images[0][2].get_clim() == (0.2, 0.6)
    viewer.window_slider.set_val((0.15, 0.5))  # the slider drives the same window
    assert viewer.images[0][0].get_clim() == pytest.approx((0.15, 0.5))
    with pytest.raises(ValueError, match="high > low"):
        viewer.set_window(1.0, 1.0)


def test_a_click_moves_the_other_views_to_the_point(pyplot):
    viewer = itk_mbir.slice_viewer(ball_volume(), show=False)

    class Click:
        inaxes = viewer.axes[0][0]  # axial: x is the column, y the row
        xdata, ydata = 30.2, 9.8

    viewer._clicked(Click())
    assert viewer.point[:2] == [10, 30]
    assert [slider.val for slider in viewer.sliders[:2]] == [10, 30]


def test_volumes_side_by_side_with_their_differences_from_a_reference(pyplot):
    reference = ball_volume()
    noisy = reference + np.random.default_rng(2).normal(0, 0.05, reference.shape).astype(np.float32)
    viewer = itk_mbir.slice_viewer([reference, noisy], titles=["truth", "recon"], reference=reference, show=False)
    assert np.asarray(viewer.axes).shape == (4, 3)
    assert viewer.titles == ["truth", "recon", "truth - reference", "recon - reference"]
    np.testing.assert_allclose(viewer.images[3][0].get_array(), (noisy - reference)[:, :, 12])
    low, high = viewer.images[3][0].get_clim()
    assert low == pytest.approx(-high) and high > 0  # a symmetric window for differences
    viewer.set_window(0.0, 2.0)  # moves the volumes' window, not the differences'
    assert viewer.images[3][0].get_clim() == (low, high)


def test_itk_images_in_their_axis_order_and_spacing(pyplot):
    itk = pytest.importorskip("itk", reason="the itk wheels are not installed")
    volume = ball_volume()
    image = itk.image_from_array(np.ascontiguousarray(np.transpose(volume, (2, 0, 1))))  # (slices, rows, cols)
    image.SetSpacing((0.5, 0.25, 2.0))  # x (cols), y (rows), z (slices)
    viewer = itk_mbir.slice_viewer(image, show=False)
    assert viewer.shape == volume.shape
    assert viewer.spacing == (0.25, 0.5, 2.0)
    np.testing.assert_array_equal(viewer.images[0][0].get_array(), volume[:, :, 12])
    assert "(2.50, 15.00, 24.00) mm" in viewer.axes[0][0].format_coord(30, 10)


@pytest.mark.parametrize("volumes, kwargs, message", [
    ([np.zeros((4, 4, 4)), np.zeros((4, 4, 5))], {}, "shape"),
    ([np.zeros((4, 4, 4))] * 5, {}, "1 to 4 volumes"),
    (np.zeros((4, 4)), {}, "3-D volume"),
    ([np.zeros((4, 4, 4))], {"titles": ["a", "b"]}, "2 titles for 1 volumes"),
    ([np.zeros((4, 4, 4))], {"reference": np.zeros((3, 4, 4))}, "reference has shape"),
])
def test_bad_input_is_refused_naming_the_problem(pyplot, volumes, kwargs, message):
    with pytest.raises(ValueError, match=message):
        itk_mbir.slice_viewer(volumes, show=False, **kwargs)
