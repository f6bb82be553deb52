"""A registry of named declarations, each imported from its module the first time it is asked for.

The campaign kinds (``pipeline.campaign.kinds.KINDS``, ``tasks.campaign.kinds.TASK_KINDS``) are one list
of names, each with the module that declares it (``"package.module:NAME"``), as the command line's
table of sub-commands is (``tasks.cli.main``). A campaign of one kind imports that kind's family alone:
the eight others are a tenth of a second of imports (their regular expressions, dataclasses and
libraries) that a one-system rerun would pay for nothing. Asking for every entry (iterating values or
items) imports them all.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(MutableMapping[str, T], Generic[T]):
    """Names -> declarations; ``declared`` gives each name's ``"module:attribute"``. Entries can also be
    given as objects (``registry[name] = value``: tests declare kinds of their own)."""

    def __init__(self, what: str, declared: Mapping[str, str]) -> None:
        self._what = what
        self._declared = dict(declared)
        self._loaded: dict[str, T] = {}

    def __getitem__(self, name: str) -> T:
        if name not in self._loaded:
            module, _, attribute = self._declared[name].partition(":")  # KeyError: not declared
            self._loaded[name] = getattr(importlib.import_module(module), attribute)
        return self._loaded[name]

    def __setitem__(self, name: str, value: T) -> None:
        self._declared.pop(name, None)
        self._loaded[name] = value

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._declared.pop(name, None)
        self._loaded.pop(name, None)

    def __contains__(self, name: object) -> bool:
        return name in self._declared or name in self._loaded

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self._declared, *self._loaded]))

    def __len__(self) -> int:
        return len(set(self._declared) | set(self._loaded))

    def register(self, name: str, value: T) -> T:
        """Add ``value`` under ``name``; another value under a name already taken is an error."""
        if name in self and self[name] is not value:
            raise ValueError(f"{self._what} {name!r} is registered twice")
        self[name] = value
        return value

    def __repr__(self) -> str:
        return f"<{self._what} registry: {', '.join(self)}>"
