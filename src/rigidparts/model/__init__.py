"""Multibody models: bodies joined by joints into a tree, and the TOML model file (library
only: this package imports nothing from export, sim, viz or the command line).

>>> import rigidparts as rp
>>> from rigidparts.model import Model, load_model
>>> model = load_model("examples/pendulum.toml")
>>> rp.export_model(model, "pendulum.urdf")  # rigidparts.export.export: MJCF, URDF, SDF

Modules: :mod:`.model` (the tree, its kinematics and mass properties), :mod:`.joints` (joint
types, conventions and the Joint value type), :mod:`.joint_builder` (validation of a joint's
fields), :mod:`.rods` (massless spring-dampers between two frames), :mod:`.values` (user
values as SI arrays), :mod:`.toml_format` (the file reader) and :mod:`.toml_lines` (line
numbers for its errors).
"""

from .joints import JOINT_TYPES, Joint
from .model import INTEGRATORS, Model, SimulationSettings
from .rods import Rod
from .toml_format import load_model, model_from_dict

__all__ = [
    "INTEGRATORS",
    "JOINT_TYPES",
    "Joint",
    "Model",
    "Rod",
    "SimulationSettings",
    "load_model",
    "model_from_dict",
]
