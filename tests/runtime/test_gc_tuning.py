"""What a codemode process made at start-up is frozen out of the garbage collector's way."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from codemode.runtime.gc_tuning import KERNEL_YOUNG_THRESHOLD, YOUNG_THRESHOLD


@pytest.mark.parametrize("call, threshold", [("", YOUNG_THRESHOLD), ("KERNEL_YOUNG_THRESHOLD", KERNEL_YOUNG_THRESHOLD)])
def test_freezing_moves_what_is_alive_to_the_permanent_generation_and_slows_young_collections(call, threshold):
    probe = (
        "import gc, json\n"
        "import codemode.session\n"  # a few thousand objects, as a start-up makes
        "from codemode.runtime.gc_tuning import KERNEL_YOUNG_THRESHOLD, freeze_startup_objects\n"
        "before = gc.get_freeze_count()\n"
        f"freeze_startup_objects({call})\n"
        "print(json.dumps([before, gc.get_freeze_count(), gc.get_threshold()[0]]))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    before, after, young = json.loads(out)
    assert before == 0
    assert after > 10_000
    assert young == threshold
