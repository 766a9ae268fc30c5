"""One fresh process: import time, then the first and later ``rp.batch.cone`` calls at N rows,
each next to ``np.copyto`` of an (N, 14) float64 array (the outputs' size).

Run by ``benchmarks/run.py`` in a subprocess (prints one JSON object); by hand:
``python benchmarks/first_call.py 1000000``.
"""

from __future__ import annotations

import json
import sys
import time

start = time.perf_counter()
import numpy as np  # noqa: E402

import rigidparts as rp  # noqa: E402

imported_core = time.perf_counter() - start
import rigidparts.batch  # noqa: E402

imported_batch = time.perf_counter() - start


def main() -> None:
    from common import hollow_cones

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    inputs = hollow_cones(n)
    source = np.ones((n, 14))
    target = np.empty_like(source)

    t = time.perf_counter()
    np.copyto(target, source)  # target's first touch: page faults included
    copy_first = time.perf_counter() - t
    t = time.perf_counter()
    rp.batch.cone(**inputs)  # the very first call in this process
    batch_first = time.perf_counter() - t
    copies, batches = [], []
    for _ in range(5):
        t = time.perf_counter()
        np.copyto(target, source)
        copies.append(time.perf_counter() - t)
        t = time.perf_counter()
        rp.batch.cone(**inputs)
        batches.append(time.perf_counter() - t)
    print(
        json.dumps(
            {
                "n": n,
                "import_rigidparts_s": imported_core,
                "import_rigidparts_batch_s": imported_batch,
                "copy_first_s": copy_first,
                "batch_first_s": batch_first,
                "copy_warm_best_s": min(copies),
                "batch_warm_best_s": min(batches),
                "first_call_ratio_to_warm_copy": batch_first / min(copies),
                "warm_ratio": min(batches) / min(copies),
            }
        )
    )


if __name__ == "__main__":
    main()
