"""Multibody models: bodies joined by joints into a tree, loaded from TOML, exported and
simulated.

>>> import rigidparts as rp
>>> from rigidparts.model import Model, load_model
>>> model = load_model("examples/pendulum.toml")
>>> model.to_urdf("pendulum.urdf")          # also to_mjcf(), to_sdf()

See :mod:`.model` (the tree and its kinematics), :mod:`.joints` (joint types and conventions)
and :mod:`.toml_format` (the file format).
"""

from .joints import JOINT_TYPES, Joint
from .model import INTEGRATORS, Model, SimulationSettings
from .toml_format import load_model

__all__ = ["INTEGRATORS", "JOINT_TYPES", "Joint", "Model", "SimulationSettings", "load_model"]
