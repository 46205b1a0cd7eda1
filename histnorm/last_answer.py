"""`LastAnswer`: what a codec computed for the lines it was last asked about.

Session codecs answer several questions about one file's parsed lines during one check
(which lines shadow others, where a payload's line is). Each keeps its last answer, keyed
by the identity of the lines. It holds them weakly when it can (the lines the document
layer reads, `ReadLines`), so a file's parsed lines are let go once its check is done and
never outlive it into the next file's.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class ReadLines(list[Any]):
    """The parsed lines of a session file, with the byte length of each as the file holds
    it (`sizes`, without line endings), and weakly referable."""

    __slots__ = ("__weakref__", "sizes")

    def __init__(self, lines: list[Any], sizes: tuple[int, ...]) -> None:
        super().__init__(lines)
        self.sizes = sizes


class LastAnswer(Generic[T]):
    """The answer for the last key, by identity (see the module docstring)."""

    __slots__ = ("_answer", "_key")

    def __init__(self) -> None:
        self._key: Callable[[], object] | None = None
        self._answer: T | None = None

    def get(self, key: object, compute: Callable[[], T]) -> T:
        """The answer for `key`: the one kept if `key` is the last key, else `compute()`."""
        if self._key is not None and self._key() is key:
            return self._answer  # type: ignore[return-value]
        answer = compute()
        try:
            self._key = weakref.ref(key)
        except TypeError:  # a plain list: held until the next key replaces it
            self._key = _Strong(key)
        self._answer = answer
        return answer


class _Strong:
    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __call__(self) -> object:
        return self.value
