"""``python -m rigidparts.batch``: compile every shape's batch kernels ahead of their first use
(the mass properties' and the sensitivities', :mod:`._sensitivity`).

numba compiles a shape's kernel on its first batch call after rigidparts is installed or
edited (10-30 s each) and keeps it in its disk cache; run this once after installing (or in a
container image's build) so that no later call waits. Kernels already cached are only loaded.
"""

from __future__ import annotations

import sys
import time

from ..shapes import SHAPES
from .evaluate import compiled_engine


def main() -> int:
    """Build (or load from numba's cache) the kernels of every tier-1 shape; exit status 0, or
    2 without numba."""
    engine = compiled_engine()
    if engine is None:
        print(
            "error: the compiled batch kernels need numba: pip install 'rigidparts[batch]'",
            file=sys.stderr,
        )
        return 2
    from . import _sensitivity

    for spec in SHAPES.values():
        if spec.tier != 1:
            continue
        start = time.perf_counter()
        engine.kernel_for(spec)
        _sensitivity.kernel_for(spec)
        print(f"{spec.name}: ready ({time.perf_counter() - start:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
