"""``pipeline.core.lazy``: a module imported the first time one of its names is used."""

from __future__ import annotations

import subprocess
import sys

from iescore.pipeline.core.lazy import LazyModule


def test_a_lazy_module_is_imported_when_first_used_then_keeps_its_names() -> None:
    lazy = LazyModule("json")
    assert "imported when first used" in repr(lazy)
    assert lazy.dumps([1]) == "[1]"
    assert "dumps" in vars(lazy)  # kept: asked again, found without a call


def test_pandas_is_not_imported_until_a_name_is_used() -> None:
    program = (
        "import sys\n"
        "from iescore.pipeline.core.lazy import pd\n"
        "print('pandas' in sys.modules)\n"
        "pd.DataFrame\n"
        "print('pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]
