"""Accuracy: mesh-based inertia (trimesh, MuJoCo) at several tessellations, and the naive
printed formulas in float64 for thin walls, against rigidparts and 50-digit references.

Meshes. A solid cone (R = 0.1 m, L = 1 m) and a tube (R = 0.1 m, r = 0.09 m, L = 1 m), steel,
tessellated by trimesh with ``sections`` segments around; trimesh integrates the mesh exactly
(so its error is the tessellation's), MuJoCo computes the mesh's inertia in the mode its
``<mesh inertia="...">`` attribute selects (default ``legacy``). The exact values are
rigidparts' closed forms (themselves within a few ulp of 50-digit references).

Thin walls. A tube (R_a = R_b = 0.05 m, L = 0.7 m) and a hollow box (0.2 x 0.1 m section,
L = 1.3 m) with walls 1e-3 .. 1e-12 of the outer size: relative error of the formulas printed
in spec/cone.txt and spec/box.txt evaluated in float64, of the textbook "outer minus inner"
in float64, and of rigidparts, against mpmath at 50 digits (tests/reference.py).
"""

from __future__ import annotations

import math
import warnings

import common  # noqa: F401  (puts tests/ on sys.path for reference)
import numpy as np

import rigidparts as rp
from reference import (
    box_formulas,
    box_reference,
    cone_formulas,
    cone_reference,
    printed_box,
    printed_cone,
    relative_error,
)

DENSITY = 7860.0
SECTIONS = (8, 16, 32, 64, 128, 256, 1024)


def _exact(body: rp.Cone) -> dict[str, float]:
    inertia = np.diag(body.inertia)  # axis along z: (transverse, transverse, axial)
    return {"mass": body.mass, "i_transverse": inertia[0], "i_axial": inertia[2]}


def _mesh_values(mass: float, inertia_diagonal: np.ndarray) -> dict[str, float]:
    return {"mass": mass, "i_transverse": inertia_diagonal[0], "i_axial": inertia_diagonal[2]}


def _mujoco(mesh, mode: str | None) -> dict[str, float] | None:
    import mujoco

    vertices = " ".join(repr(float(v)) for v in mesh.vertices.ravel())
    faces = " ".join(str(int(f)) for f in mesh.faces.ravel())
    attribute = f' inertia="{mode}"' if mode else ""
    xml = (
        f'<mujoco><asset><mesh name="m" vertex="{vertices}" face="{faces}"{attribute}/>'
        f'</asset><worldbody><body><freejoint/><geom type="mesh" mesh="m" density="{DENSITY}"/>'
        "</body></worldbody></mujoco>"
    )
    model = mujoco.MjModel.from_xml_string(xml)
    moments = np.sort(model.body_inertia[1])  # principal moments: axial is the smallest here
    return {"mass": float(model.body_mass[1]), "i_transverse": moments[2], "i_axial": moments[0]}


def meshes(sections: tuple[int, ...] = SECTIONS) -> dict[str, object]:
    import trimesh

    bodies = {
        "solid cone": (
            rp.Cone(length=1.0, radius_a=0.1, radius_b=0.0, axis=(0, 0, 1), density=DENSITY),
            lambda n: trimesh.creation.cone(radius=0.1, height=1.0, sections=n),
        ),
        "tube": (
            rp.Cone(
                length=1.0,
                radius_a=0.1,
                radius_b=0.1,
                inner_radius_a=0.09,
                inner_radius_b=0.09,
                axis=(0, 0, 1),
                density=DENSITY,
            ),
            lambda n: trimesh.creation.annulus(r_min=0.09, r_max=0.1, height=1.0, sections=n),
        ),
    }
    try:
        import mujoco  # noqa: F401

        modes: tuple[str | None, ...] = (None, "convex", "exact")
    except ImportError:
        modes = ()
    rows = []
    for name, (body, make) in bodies.items():
        exact = _exact(body)
        for n in sections:
            mesh = make(n)
            mesh.density = DENSITY
            candidates = {
                "trimesh": _mesh_values(mesh.mass, np.diag(mesh.moment_inertia)),
            }
            for mode in modes:
                label = f"MuJoCo inertia={mode or 'default (legacy)'}"
                candidates[label] = _mujoco(mesh, mode)
            for tool, values in candidates.items():
                rows.append(
                    {
                        "body": name,
                        "sections": n,
                        "tool": tool,
                        **{
                            f"{k}_relative_error": (values[k] - exact[k]) / exact[k]
                            for k in ("mass", "i_transverse", "i_axial")
                        },
                    }
                )
    return {"exact": {k: _exact(b) for k, (b, _) in bodies.items()}, "rows": rows}


def thin_walls() -> dict[str, object]:
    walls = [10.0**-k for k in range(3, 13)]
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for wall in walls:
            radius, length = 0.05, 0.7
            args = (length, radius, radius, radius - wall * radius, radius - wall * radius)
            ref = cone_reference(*args, DENSITY)
            body = rp.Cone(
                length=args[0],
                radius_a=args[1],
                radius_b=args[2],
                inner_radius_a=args[3],
                inner_radius_b=args[4],
                density=DENSITY,
            )
            ours = {"mass": body.mass, "i_xx": body.inertia[0, 0], "i_yy": body.inertia[1, 1]}
            candidates = {
                "printed (spec/cone.txt), float64": _safe(printed_cone, *args, DENSITY, math.pi),
                "outer minus inner, float64": _safe(cone_formulas, *args, DENSITY, math.pi),
                "rigidparts": ours,
            }
            for method, values in candidates.items():
                rows.append(_error_row("tube", wall, method, values, ref))

            box_args = (1.3, 0.1, 0.2, 0.1 - wall * 0.1, 0.2 - wall * 0.2)
            ref = box_reference(*box_args, DENSITY)
            body = rp.Box(
                length=box_args[0],
                width=box_args[1],
                height=box_args[2],
                inner_width=box_args[3],
                inner_height=box_args[4],
                density=DENSITY,
            )
            ours = {"mass": body.mass, "i_xx": body.inertia[0, 0], "i_yy": body.inertia[1, 1]}
            candidates = {
                "printed (spec/box.txt), float64": _safe(printed_box, *box_args, DENSITY),
                "outer minus inner, float64": _safe(box_formulas, *box_args, DENSITY),
                "rigidparts": ours,
            }
            for method, values in candidates.items():
                rows.append(_error_row("hollow box", wall, method, values, ref))
    return {"rows": rows}


def _safe(function, *args) -> dict[str, float]:
    try:
        return function(*args)
    except ZeroDivisionError:
        return {"mass": math.nan, "i_xx": math.nan, "i_yy": math.nan}


def _error_row(body: str, wall: float, method: str, values: dict, ref: dict) -> dict:
    return {
        "body": body,
        "wall": wall,
        "method": method,
        **{
            f"{k}_relative_error": relative_error(values[k], ref[k])
            if math.isfinite(values[k])
            else math.inf
            for k in ("mass", "i_xx", "i_yy")
        },
    }


if __name__ == "__main__":
    for row in meshes((32,))["rows"]:
        print(row)
    for row in thin_walls()["rows"][:6]:
        print(row)
