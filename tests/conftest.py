"""Shared test configuration: hypothesis profiles.

``ci`` (the default) keeps property tests fast enough for the whole suite's 5-minute budget;
``dev`` explores much more (``HYPOTHESIS_PROFILE=dev pytest tests/test_properties.py``).
Under CI (``CI`` set, as ``.ci/run`` runs) the examples are derandomised, so whether a
submission lands never depends on the draw; on a developer's machine every run explores anew.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
    derandomize=bool(os.environ.get("CI")),
)
settings.register_profile("dev", max_examples=1000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
