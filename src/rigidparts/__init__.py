"""rigidparts: exact parametric rigid bodies for multibody models.

>>> import rigidparts as rp
>>> cone = rp.Cone(length="250 mm", radius_a=0.05, radius_b=0.02, material="aluminium")
>>> cone.mass, cone.center_of_mass, cone.inertia   # kg, m (frame_a), kg m^2 (about the COM)

The core (bodies, MassProperties, materials, units, the shape registry ``rp.SHAPES``) imports
only numpy. The rest loads on first use, one obvious way each: ``rp.batch`` (numba),
``rp.Model`` / ``rp.load_model`` (models), ``rp.export_model(model, path)`` (MJCF, URDF, SDF),
``rp.simulate`` (MuJoCo), ``rp.plot(body_or_model)`` (matplotlib),
``rp.view(body_or_model, "scene.html", result=None)`` (an interactive viewer in one HTML file;
a picture or an animation by the suffix).
"""

from importlib import import_module
from typing import Any

from .bodies import (
    Ball,
    Box,
    Capsule,
    Cone,
    Cylinder,
    Disk,
    Ellipsoid,
    IBeam,
    Linkage,
    MeshBody,
    RigidBody,
    StepBody,
    body_class,
)
from .component import Component
from .errors import ModelError, ParameterError
from .frames import Frame
from .inertia import INERTIA_TOLERANCE, MassProperties
from .shapes import SHAPES

__all__ = [
    "INERTIA_TOLERANCE",
    "SHAPES",
    "Ball",
    "Box",
    "Capsule",
    "Component",
    "Cone",
    "Cylinder",
    "Disk",
    "Ellipsoid",
    "Frame",
    "IBeam",
    "Joint",
    "Linkage",
    "MassProperties",
    "MeshBody",
    "Model",
    "ModelError",
    "ParameterError",
    "RigidBody",
    "SimulationError",
    "SimulationResult",
    "StepBody",
    "batch",
    "body_class",
    "check",
    "export_model",
    "load_model",
    "plot",
    "report",
    "simulate",
    "tolerance",
    "view",
]

__version__ = "0.1.0"

#: Public names that live in subpackages with heavier imports: name -> (module, attribute).
_LAZY = {
    "batch": ("rigidparts.batch", None),
    "Model": ("rigidparts.model", "Model"),
    "Joint": ("rigidparts.model", "Joint"),
    "load_model": ("rigidparts.formats", "load_model"),
    "simulate": ("rigidparts.sim", "simulate"),
    "SimulationResult": ("rigidparts.sim", "SimulationResult"),
    "SimulationError": ("rigidparts.sim", "SimulationError"),
    "export_model": ("rigidparts.export", "export"),
    "plot": ("rigidparts.viz", "plot"),
    "view": ("rigidparts.viz", "view"),
    "report": ("rigidparts.report", "report"),
    "tolerance": ("rigidparts.model_tolerance", "tolerance"),
    "randomize": ("rigidparts.variation", "randomize"),
    "check": ("rigidparts.checking", "check"),
}


def __getattr__(name: str) -> Any:
    try:
        module_name, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'rigidparts' has no attribute {name!r}") from None
    module = import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
