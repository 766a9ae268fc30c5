"""Animations of simulation results: GIF (Pillow) or MP4 (imageio-ffmpeg), headless.

``animate(model, result, path)`` draws every body of ``model`` at its simulated poses
(``result.body_rotations[name][k]`` = ``R_WA``, ``result.body_positions[name][k]`` = ``p_WAo``)
with the same drawing as :func:`rigidparts.viz.plot_model` (each body in its appearance,
:meth:`~rigidparts.model.Model.appearance`), one picture per frame:

- frames are sampled at ``fps`` frames per second of simulated time (the sample nearest each
  frame time; no interpolation), at most ``max_frames`` of them (beyond that the frames are
  spread evenly over the run and each is shown for longer, so playback stays in real time);
- the camera and the axis limits are fixed over the whole run (they hold every pose);
- a tqdm progress bar on stderr while the frames render (``progress=False`` to hide it).

GIF frames are reduced to 256 colours each and kept as palette images (1 byte per pixel); MP4
frames stream to ffmpeg, so memory stays small either way. Files are written atomically.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ParameterError
from .figure import new_axes
from .geometry import PlacedBody
from .plotting import draw_scene
from .scene import joint_marks, make_scene, model_title, scene_limits
from .trajectory import check_number, result_arrays, sample_indices

__all__ = ["ANIMATION_FORMATS", "DEFAULT_ANIMATION_SIZE", "animate", "check_animation_path"]

#: Animation formats by suffix.
ANIMATION_FORMATS = (".gif", ".mp4")
#: Default frame size, pixels (smaller than a still picture: many frames).
DEFAULT_ANIMATION_SIZE = (800, 600)


def _mp4_writer_available() -> bool:
    try:
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        return False
    return True


def check_animation_path(path: Any) -> Path:
    """The path of an animation file, or :class:`ParameterError`: the suffix must be .gif or
    .mp4, and .mp4 needs an encoder (``pip install imageio-ffmpeg``). Call it before a long
    simulation so a bad name fails at once."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in ANIMATION_FORMATS:
        raise ParameterError(
            "animate", str(path), "must end in .gif or .mp4 (the format is taken from the suffix)"
        )
    if suffix == ".mp4" and not _mp4_writer_available():
        raise ParameterError(
            "animate",
            str(path),
            "writing .mp4 needs an ffmpeg encoder: pip install imageio-ffmpeg, or write a .gif",
        )
    return target  # a missing folder is created when the file is written (fileio.atomic_path)


def frame_samples(time: np.ndarray, fps: float, max_frames: int) -> tuple[np.ndarray, float]:
    """``(sample indices (F,), seconds per frame)``: the samples of ``time`` nearest to the
    frame times ``t_0 + k / fps``, at most ``max_frames`` of them spread evenly
    (:func:`.trajectory.sample_indices`)."""
    return sample_indices(time, fps, max_frames)


def animate(
    model: Any,
    result: Any,
    path: Any,
    *,
    fps: float = 25.0,
    progress: bool = True,
    size: tuple[int, int] = DEFAULT_ANIMATION_SIZE,
    max_frames: int = 250,
    view: Sequence[float] | None = None,
    title: str | None = None,
    force: bool | None = None,
    **options: Any,
) -> Path:
    """Render ``result`` (a :class:`rigidparts.sim.SimulationResult` of ``model``) to ``path``
    (.gif or .mp4); returns the path.

    Parameters
    ----------
    fps : frames per second of simulated time (0.1 .. 100; default 25).
    progress : show a progress bar on stderr.
    size : frame size in pixels (default 800 x 600; MP4 needs even numbers).
    max_frames : the most frames to render (1 .. 10000; default 250).
    view : ``(elevation, azimuth)`` in degrees.
    title : the title (default: the model's name, bodies and mass); the simulated time is
        shown at the top right.
    force : replace a read-only file (default: :func:`rigidparts.fileio.forcing`).
    options : the drawing options of :func:`rigidparts.viz.plot_body` (``inertia``,
        ``labels``, ``frames``, ``sections``, ...).
    """
    target = check_animation_path(path)
    fps = check_number("fps", fps, 0.1, 100.0, "must be a number from 0.1 to 100 frames per second")
    if force is not None and not isinstance(force, bool):
        raise ParameterError("force", force, "must be True, False or None")
    if not isinstance(progress, bool):
        raise ParameterError("progress", progress, "must be True or False")
    from ..fileio import check_output

    check_output(target, force=force)  # a read-only file fails before any work
    if (
        isinstance(max_frames, bool)
        or not isinstance(max_frames, int)
        or not (1 <= max_frames <= 10000)
    ):
        raise ParameterError("max_frames", max_frames, "must be an integer from 1 to 10000")
    time, rotations, positions, _ = result_arrays(model, result)
    indices, seconds_per_frame = frame_samples(time, fps, max_frames)
    suffix = target.suffix.lower()
    if suffix == ".mp4" and (size[0] % 2 or size[1] % 2):
        raise ParameterError("size", size, "must be even numbers of pixels for .mp4")

    heading = title if title is not None else model_title(model)
    template = make_scene([], heading, options)  # the option checks of plot_body
    scenes = []
    for k in indices:
        bodies = [
            PlacedBody(body, name, rotations[name][k], positions[name][k], model.appearance(name))
            for name, body in model.bodies.items()
        ]
        joints = joint_marks(model, {n: (rotations[n][k], positions[n][k]) for n in rotations})
        # posed() keeps the template's mesh cache: one mesh per body for every frame.
        scenes.append(template.posed(bodies, joints, note=f"t = {time[k] - time[0]:.3f} s"))
    limits = scene_limits(scenes)

    ax = new_axes(size, pyplot=False)
    canvas = ax.figure.canvas

    def frames() -> Any:
        from tqdm import tqdm

        bar = tqdm(
            scenes,
            desc=f"rendering {target.name}",
            unit="frame",
            file=sys.stderr,
            disable=not progress,
            leave=True,
        )
        for scene in bar:
            ax.cla()
            draw_scene(ax, scene, limits=limits, view=view)
            canvas.draw()
            yield np.asarray(canvas.buffer_rgba())[..., :3].copy()

    from ..fileio import atomic_path

    with atomic_path(target, force=force) as tmp:
        if suffix == ".gif":
            _write_gif(tmp, frames(), seconds_per_frame)
        else:
            _write_mp4(tmp, frames(), 1.0 / seconds_per_frame)
    ax.figure.clear()
    return target


def _write_gif(path: Path, frames: Any, seconds_per_frame: float) -> None:
    from PIL import Image

    # GIF delays are whole centiseconds; Pillow takes milliseconds.
    delay = max(20, round(seconds_per_frame * 100) * 10)
    images = [
        Image.fromarray(frame).quantize(colors=256, dither=Image.Dither.NONE) for frame in frames
    ]
    images[0].save(
        path, format="GIF", save_all=True, append_images=images[1:], duration=delay, loop=0
    )


def _write_mp4(path: Path, frames: Any, fps: float) -> None:
    import imageio.v2 as imageio

    writer = imageio.get_writer(
        path, format="FFMPEG", mode="I", fps=fps, codec="libx264", quality=8, macro_block_size=2
    )
    try:
        for frame in frames:
            writer.append_data(frame)
    finally:
        writer.close()
