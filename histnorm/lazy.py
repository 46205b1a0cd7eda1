"""`model`: the canonical model module (`histnorm.model`), imported on first use.

A module that builds or tests model parts only in some code paths (a codec's decode
and encode, a rule's fix) writes `from histnorm.lazy import model` and `model.TextPart`:
importing it costs nothing, and pydantic is loaded only when a model is needed, never
when the outline alone proves a transcript clean. Annotations import the model's names
under `TYPE_CHECKING`. For type checkers `model` is `histnorm.model` itself.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = ["model"]


class _Lazy:
    """A module imported (through the import system, so once, under its lock) the first
    time one of its names is read; each name is then kept as an attribute of this object."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        value = getattr(importlib.import_module(self._name), attr)
        setattr(self, attr, value)
        return value

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


if TYPE_CHECKING:
    import histnorm.model as model
else:
    model = _Lazy("histnorm.model")
