"""Score signatures: every setting that can change a number, input digests, version last.

Like sacrebleu's ``nrefs:1|case:mixed|...|version:2.6.0``: printed in every report and stored in the
Parquet metadata, so a number can always be traced to how it was made.
"""

from __future__ import annotations

from collections.abc import Mapping

from iescore import __version__

#: The key under which an artifact's Parquet schema metadata holds its score signature.
SIGNATURE_KEY = b"iescore.signature"


def package_version() -> str:
    """The version every signature ends with: ``iescore.__version__``, the one place it is written."""
    return __version__


def make_signature(scorer: str, options: Mapping[str, object], digests: Mapping[str, str | None]) -> str:
    """``scorer:NAME|option:value|...|input:sha256-prefix|...|version:X`` in a fixed order."""
    parts = [f"scorer:{scorer}"]
    for name, value in options.items():
        if isinstance(value, (list, tuple, frozenset, set)):
            value = ",".join(sorted(str(v) for v in value)) or "none"
        elif isinstance(value, bool):
            value = "yes" if value else "no"
        parts.append(f"{name}:{value}")
    for name, digest in digests.items():
        parts.append(f"{name}:{digest[:12] if digest else 'none'}")
    parts.append(f"version:{package_version()}")
    return "|".join(parts)
