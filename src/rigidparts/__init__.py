"""rigidparts: exact parametric rigid bodies for multibody models.

>>> import rigidparts as rp
>>> cone = rp.Cone(length="250 mm", radius_a=0.05, radius_b=0.02, material="aluminium")
>>> cone.mass, cone.center_of_mass, cone.inertia   # kg, m (frame_a), kg m^2 (about the COM)
"""

from .bodies import Box, Cone
from .component import Component
from .errors import ModelError, ParameterError
from .frames import Frame
from .inertia import INERTIA_TOLERANCE, MassProperties

__all__ = [
    "INERTIA_TOLERANCE",
    "Box",
    "Component",
    "Cone",
    "Frame",
    "MassProperties",
    "ModelError",
    "ParameterError",
]

__version__ = "0.1.0"
