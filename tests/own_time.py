"""The processor time of a test's own work, for the tests that bound how long a refusal or an import takes."""

from __future__ import annotations

import gc
import time
from contextlib import contextmanager


@contextmanager
def own_processor_time():
    """Yields a function giving the processor seconds spent since the block began.

    Processor time rather than wall time: on a shared 2-core machine other jobs stretch the wall clock without
    changing how much work the test does. The garbage collector is collected before and held off during the
    block: in a test worker that keeps a whole site's pages, one full collection walks that heap for seconds,
    work of the worker's past and not of the code the test times.
    """
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    start = time.process_time()
    try:
        yield lambda: time.process_time() - start
    finally:
        if was_enabled:
            gc.enable()
