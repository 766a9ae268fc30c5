"""``rigidparts mesh SHAPE [body options] -o FILE [--sections N]``: a body's surface mesh.

One subcommand per shape whose specification has a mesh builder, named by its ``command``
(``rigidparts mesh meshbody part.stl --units mm -o part.obj`` writes a mesh body's checked
surface, in metres); the mesh is
:func:`rigidparts.mesh.body_mesh` (frame_a coordinates, metres), written by
:func:`rigidparts.mesh.export_mesh` in the format of the suffix (atomically). trimesh loads in
the handler only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..shapes import SHAPES
from ._options import (
    UsageError,
    add_body_options,
    add_output_options,
    body_from_args,
    body_inputs,
    check_not_input,
    check_output,
    check_suffix,
    sections,
    shape_parsers,
    warn_large_coordinates,
)

__all__ = ["register", "run"]

MESH_EPILOG = """\
The mesh is in frame_a coordinates, in metres: frame_a at the origin, the axis from frame_a
to frame_b. Formats: .stl (binary, float32), .obj (text, 17 significant digits), .glb
(binary glTF, float32), .ply (binary, float32). Walls thinner than about 1e-7 of the body's
size do not survive float32 files; use .obj for those.
"""


def _examples() -> str:
    """Example command lines for the first shapes with a mesh builder (valid by construction:
    they use the specifications' own options)."""
    meshed = [spec for spec in SHAPES.values() if spec.mesh is not None]
    lines = [f"  rigidparts mesh {spec.command} -o {spec.name}.stl" for spec in meshed[:1]]
    for spec in meshed[1:2] or meshed[:1]:
        lines.append(f"  rigidparts mesh {spec.command} --sections 128 -o {spec.name}.obj")
    return "\nExamples:\n" + "\n".join(lines) + "\n" if lines else ""


def run(args: argparse.Namespace) -> int:
    """Write the mesh of the body of ``args.shape`` to ``args.output``; print what was written
    (and a warning on stderr when float32 vertices may close thin walls). The output and the
    mesh extra are checked before the body is built. Returns 0."""
    from ..mesh import FLOAT32_FORMATS, MESH_FORMATS, body_mesh, export_mesh

    check_suffix(args.output, tuple(MESH_FORMATS), "mesh")
    check_not_input(args.output, "-o", body_inputs(SHAPES[args.shape], args))
    check_output(args.output, "-o", force=args.force)
    try:
        import trimesh  # noqa: F401
    except ImportError as exc:
        raise UsageError(
            f"rigidparts mesh needs the mesh extra: pip install 'rigidparts[mesh]' ({exc})"
        ) from None
    body = body_from_args(args.shape, args)
    warn_large_coordinates(body)
    mesh = body_mesh(body, sections=args.sections)
    suffix = Path(args.output).suffix.lower()
    export_mesh(mesh, args.output, force=args.force)
    error = mesh.volume / body.volume - 1.0
    print(
        f"wrote {args.output}: {len(mesh.faces)} triangles, {len(mesh.vertices)} vertices, "
        f"mesh volume {mesh.volume:.9g} m^3 (exact {body.volume:.9g} m^3, {error:+.3g} relative)"
    )
    if suffix in FLOAT32_FORMATS:
        shortest = float(mesh.edges_unique_length.min())
        if shortest < 1e-6 * float(mesh.scale):
            print(
                f"warning: {args.output} stores float32 vertices; the shortest edge "
                f"({shortest:.3g} m) is below 1e-6 of the body's size, so thin walls may collapse "
                "when the file is read back: use .obj (full float64 precision)",
                file=sys.stderr,
            )
    return 0


def register(subparsers: Any) -> None:
    """Add ``mesh`` with one subcommand per shape that has a mesh builder."""
    epilog = MESH_EPILOG + _examples()
    parser = subparsers.add_parser(
        "mesh",
        help="write a body's surface mesh (.stl, .obj, .glb, .ply)",
        description="Write the watertight surface mesh of a body, in frame_a (m).",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for spec, p in shape_parsers(
        parser,
        [spec for spec in SHAPES.values() if spec.mesh is not None],
        help_text="the mesh of {summary}",
        description="Write the surface mesh of {summary} (frame_a coordinates, m).",
        epilog=epilog,
    ):
        out = p.add_argument_group("output")
        out.add_argument(
            "-o",
            "--output",
            required=True,
            metavar="FILE",
            help="the mesh file: .stl, .obj, .glb or .ply (format from the suffix)",
        )
        out.add_argument(
            "--sections",
            type=sections,
            default=64,
            metavar="N",
            help="segments around round surfaces, integer >= 3 (default 64; shapes without "
            "round surfaces ignore it, and a STEP body, whose mesh is its certificate's "
            "tessellation, within 1e-3 of its size)",
        )
        add_output_options(out)
        add_body_options(p, spec)
        p.set_defaults(handler=run, shape=spec.name)
