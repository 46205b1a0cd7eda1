"""`record`: `dataclasses.dataclass` with methods shared by every class instead of compiled
for each one.

On Python 3.11 `dataclass` writes the source of `__init__`, `__repr__`, `__eq__`,
`__hash__` and a frozen class's `__setattr__` and `__delattr__`, and compiles each: about
4 M instructions a frozen class, a fifth of what `histnorm lint` of a small file executes
in all. `record` takes `dataclass`'s `frozen`, `slots` and `kw_only` and gives the same
class (a dataclass: `fields`, `replace`, `asdict` and pickling work as before, and so do
`field`'s `default`, `default_factory`, `init`, `repr`, `compare`, `hash` and `kw_only`),
with those methods read from the fields instead. They behave as `dataclass` writes them
(`tests/test_record.py` holds every record to a twin built by `dataclass`), and an
instance takes about 2 µs longer to make, which no histnorm class is made often enough
to notice.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import MISSING, FrozenInstanceError
from typing import Any, TypeVar, dataclass_transform, overload

_T = TypeVar("_T", bound=type)
_set = object.__setattr__
_NONE: Any = object()


class _Plan:
    """What the shared methods read from a record class's fields. A default or a factory
    is `MISSING` when the field has none."""

    __slots__ = ("compared", "fields", "hashed", "late", "name", "params", "positional", "shown")

    def __init__(self, cls: type) -> None:
        fields = dataclasses.fields(cls)
        taken = [f for f in fields if f.init]
        ordered = [f for f in taken if not f.kw_only] + [f for f in taken if f.kw_only]
        self.name = cls.__qualname__
        self.params: tuple[tuple[str, Any, Any], ...] = tuple(
            (f.name, f.default, f.default_factory) for f in ordered
        )
        self.positional = sum(1 for f in taken if not f.kw_only)
        self.late: tuple[tuple[str, Any, Any], ...] = tuple(
            (f.name, f.default, f.default_factory)
            for f in fields
            if not f.init and (f.default is not MISSING or f.default_factory is not MISSING)
        )
        self.shown = tuple(f.name for f in fields if f.repr)
        self.compared = tuple(f.name for f in fields if f.compare)
        self.hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
        self.fields = tuple(f.name for f in fields)


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    plan: _Plan = self.__record__
    given = len(args)
    if given > plan.positional:
        raise TypeError(
            f"{plan.name}.__init__() takes {plan.positional + 1} positional arguments "
            f"but {given + 1} were given"
        )
    for index, (name, default, factory) in enumerate(plan.params):
        if index < given:
            if name in kwargs:
                raise TypeError(f"{plan.name}.__init__() got multiple values for argument {name!r}")
            value = args[index]
        else:
            value = kwargs.pop(name, _NONE)
            if value is _NONE:
                if default is not MISSING:
                    value = default
                elif factory is not MISSING:
                    value = factory()
                else:
                    raise TypeError(f"{plan.name}.__init__() missing required argument {name!r}")
        _set(self, name, value)
    if kwargs:
        raise TypeError(
            f"{plan.name}.__init__() got an unexpected keyword argument {next(iter(kwargs))!r}"
        )
    for name, default, factory in plan.late:
        _set(self, name, default if default is not MISSING else factory())
    post_init = getattr(self, "__post_init__", None)
    if post_init is not None:
        post_init()


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record__.shown)
    return f"{type(self).__qualname__}({shown})"


def _compared(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, name) for name in self.__record__.compared)


def _eq(self: Any, other: object) -> Any:
    if other is self:
        return True  # as the tuples compare: each field is itself
    if other.__class__ is self.__class__:
        return _compared(self) == _compared(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(tuple(getattr(self, name) for name in self.__record__.hashed))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, name) for name in self.__record__.fields]


def _setstate(self: Any, state: list[Any]) -> None:
    for name, value in zip(self.__record__.fields, state, strict=True):
        _set(self, name, value)


def copied(obj: Any, changes: dict[str, Any]) -> Any:
    """A copy of the record `obj` with the fields in `changes` set to their values, made
    as `dataclasses.replace` makes it but without running `__init__` or `__post_init__`:
    for a caller whose copy needs no check the class makes (a field no check reads)."""
    plan: _Plan = obj.__record__
    new = object.__new__(type(obj))
    for name in plan.fields:
        _set(new, name, changes.pop(name) if name in changes else getattr(obj, name))
    if changes:
        raise TypeError(f"{plan.name} has no field {next(iter(changes))!r}")
    return new


def _finish(cls: type, frozen: bool, slots: bool) -> None:
    """Give `cls` the methods `dataclass(cls, frozen=frozen, slots=slots)` would write."""
    own = cls.__dict__
    explicit_hash = own.get("__hash__", MISSING)
    has_explicit_hash = not (
        explicit_hash is MISSING or (explicit_hash is None and "__eq__" in own)
    )
    cls.__record__ = _Plan(cls)  # type: ignore[attr-defined]
    methods: dict[str, Callable[..., Any]] = {"__init__": _init, "__repr__": _repr, "__eq__": _eq}
    for name, method in methods.items():
        if name not in own:
            setattr(cls, name, method)
    if frozen:
        if "__setattr__" in own or "__delattr__" in own:
            raise TypeError(f"cannot overwrite attribute __setattr__ in class {cls.__name__}")
        cls.__setattr__ = _frozen_setattr  # type: ignore[method-assign,assignment]
        cls.__delattr__ = _frozen_delattr  # type: ignore[method-assign,assignment]
        if slots:
            if "__getstate__" not in own:
                setattr(cls, "__getstate__", _getstate)  # noqa: B010 (not a method of type)
            if "__setstate__" not in own:
                setattr(cls, "__setstate__", _setstate)  # noqa: B010
    if not has_explicit_hash:
        cls.__hash__ = _hash if frozen else None  # type: ignore[assignment]


@overload
def record(
    cls: None = None, /, *, frozen: bool = False, slots: bool = False, kw_only: bool = False
) -> Callable[[_T], _T]: ...
@overload
def record(cls: _T, /) -> _T: ...
@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def record(
    cls: _T | None = None,
    /,
    *,
    frozen: bool = False,
    slots: bool = False,
    kw_only: bool = False,
) -> _T | Callable[[_T], _T]:
    """`@dataclass`, `@dataclass(frozen=..., slots=..., kw_only=...)`, with shared methods."""

    def wrap(cls: _T) -> _T:
        made: _T = dataclasses.dataclass(  # type: ignore[assignment]
            cls, init=False, repr=False, eq=False, slots=slots, kw_only=kw_only
        )
        _finish(made, frozen, slots)
        return made

    return wrap if cls is None else wrap(cls)
