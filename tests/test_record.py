"""`histnorm._record.record` gives the class `dataclasses.dataclass` gives, with shared
methods: each behaviour is held to a twin built by `dataclass` from the same body, and
every record class of histnorm to the signature, fields and hashing its twin has."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
import pkgutil
from collections.abc import Callable
from dataclasses import FrozenInstanceError, field
from typing import Any

import histnorm_cli
import pytest

import histnorm
from histnorm._record import record

OPTIONS = [
    {"frozen": frozen, "slots": slots, "kw_only": kw_only}
    for frozen in (False, True)
    for slots in (False, True)
    for kw_only in (False, True)
]


def _body(decorate: Callable[[type], type]) -> type:
    """One class body, decorated: required, default, factory, hidden, uncompared,
    not-in-init and keyword-only fields, and a `__post_init__`."""

    @decorate
    class Sample:
        name: str
        count: int = 1
        items: list[int] = field(default_factory=list)
        secret: str = field(default="s", repr=False)
        note: str = field(default="n", compare=False)
        made: int = field(default=7, init=False)
        late: list[str] = field(default_factory=lambda: ["x"], init=False)
        tag: str = field(default="t", kw_only=True)

        def __post_init__(self) -> None:
            if self.count < 0:
                raise ValueError("count")

    return Sample


def _twins(options: dict[str, bool]) -> tuple[type, type]:
    """The record and its dataclass twin, as classes of this module (pickle finds them)."""
    key = "_".join(name for name, on in options.items() if on) or "plain"
    made = []
    for kind, decorate in (("Record", record), ("Dataclass", dataclasses.dataclass)):
        name = f"{kind}_{key}"
        if name not in globals():
            cls = _body(decorate(**options))
            cls.__name__ = cls.__qualname__ = name
            globals()[name] = cls
        made.append(globals()[name])
    return made[0], made[1]


def _outcome(make: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "ok", make()
    except Exception as exc:  # the kind of failure is compared, not its wording
        return "raised", type(exc)


CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    (("a",), {}),
    (("a", 2), {}),
    (("a", 2, [3], "x", "y"), {"tag": "u"}),
    ((), {"name": "a", "count": 3, "note": "z"}),
    (("a",), {"name": "b"}),
    (("a", 2, [3], "x", "y", "extra"), {}),
    ((), {}),
    (("a",), {"made": 1}),
    (("a",), {"nonesuch": 1}),
    (("a", -1), {}),
    (("a",), {"tag": "v", "count": 5}),
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(k for k, v in o.items() if v))
@pytest.mark.parametrize("call", range(len(CALLS)))
def test_a_record_is_made_as_its_dataclass_twin_is(options: dict[str, bool], call: int) -> None:
    mine, twin = _twins(options)
    args, kwargs = CALLS[call]
    if options["kw_only"] and args:  # the same values, by name
        named = dict(zip(("name", "count", "items", "secret", "note"), args, strict=False))
        args, kwargs = (), {**named, **kwargs}
    got = _outcome(lambda: mine(*args, **dict(kwargs)))
    expected = _outcome(lambda: twin(*args, **dict(kwargs)))
    assert got[0] == expected[0], (got, expected)
    if got[0] == "raised":
        assert got[1] is expected[1]
        return
    made, twinned = got[1], expected[1]
    assert repr(made).replace("Record_", "") == repr(twinned).replace("Dataclass_", "")
    assert dataclasses.asdict(made) == dataclasses.asdict(twinned)
    assert dataclasses.astuple(made) == dataclasses.astuple(twinned)


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(k for k, v in o.items() if v))
def test_a_record_compares_hashes_copies_and_freezes_as_its_twin(
    options: dict[str, bool],
) -> None:
    mine, twin = _twins(options)
    kinds = (mine, twin)
    one = [kind(name="a", count=2, note="x") for kind in kinds]
    same = [kind(name="a", count=2, note="y") for kind in kinds]  # `note` is not compared
    other = [kind(name="b", count=2) for kind in kinds]
    for a, b, c in zip(one, same, other, strict=True):
        assert (a == b, a == c, a != b, a == ("a",)) == (True, False, False, False)
    assert (mine.__hash__ is None) == (twin.__hash__ is None)
    hashed = [_outcome(lambda made=made: hash(made)) for made in (*one, *same)]
    assert hashed[0] == hashed[2] and hashed[1] == hashed[3]  # a list field: both raise
    assert hashed[0][0] == hashed[1][0]
    for kind, made in zip(kinds, one, strict=True):
        assert dataclasses.is_dataclass(made)
        assert kind.__match_args__ == twin.__match_args__
        assert [f.name for f in dataclasses.fields(kind)] == [
            f.name for f in dataclasses.fields(twin)
        ]
        changed = dataclasses.replace(made, count=9)
        assert (changed.count, changed.name, type(changed)) == (9, "a", kind)
        for again in (pickle.loads(pickle.dumps(made)), copy.copy(made), copy.deepcopy(made)):
            assert again == made
            assert repr(again) == repr(made)
    for made in one:
        outcome = _outcome(lambda made=made: setattr(made, "count", 5))
        deleted = _outcome(lambda made=made: delattr(made, "name"))
        if options["frozen"]:
            assert outcome == ("raised", FrozenInstanceError)
            assert deleted == ("raised", FrozenInstanceError)
        else:
            assert outcome[0] == "ok" and made.count == 5
    assert (hasattr(one[0], "__dict__"), hasattr(one[1], "__dict__")) == (
        not options["slots"],
        not options["slots"],
    )


def _hashable(decorate: Callable[[type], type]) -> type:
    @decorate
    class Key:
        name: str
        weight: int = field(default=0, hash=False)  # compared, not hashed
        note: str = field(default="", compare=False)
        extra: str = field(default="", compare=False, hash=True)  # hashed, not compared

    return Key


@pytest.mark.parametrize("slots", [False, True])
def test_a_frozen_record_hashes_the_fields_its_twin_hashes(slots: bool) -> None:
    mine = _hashable(record(frozen=True, slots=slots))
    twin = _hashable(dataclasses.dataclass(frozen=True, slots=slots))
    for args in [("a",), ("a", 1), ("a", 2, "x"), ("a", 2, "x", "y"), ("b", 0, "", "y")]:
        assert hash(mine(*args)) == hash(twin(*args))
        assert (mine(*args) == mine("a")) == (twin(*args) == twin("a"))


def test_a_record_keeps_the_methods_its_class_writes() -> None:
    @record(frozen=True)
    class Own:
        value: int

        def __repr__(self) -> str:
            return "own"

        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return 7

    assert (repr(Own(1)), Own(1) == Own(2), hash(Own(3))) == ("own", True, 7)


def _records() -> list[type]:
    """Every record class histnorm and its command line define."""
    found: dict[str, type] = {}
    for package in (histnorm, histnorm_cli):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if ".integrations" in info.name or info.name.endswith("__main__"):
                continue
            module = importlib.import_module(info.name)
            for value in vars(module).values():
                if isinstance(value, type) and "__record__" in value.__dict__:
                    found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[name] for name in sorted(found)]


RECORDS = _records()


def test_the_classes_that_load_with_every_command_are_records() -> None:
    names = {f"{cls.__module__}.{cls.__qualname__}" for cls in RECORDS}
    for name in (
        "histnorm.diagnostic.Diagnostic",
        "histnorm.settings.Settings",
        "histnorm.profiles.Profile",
        "histnorm.rule.Rule",
        "histnorm_cli.run.Request",
    ):
        assert name in names
    assert len(RECORDS) > 50


@pytest.mark.parametrize("cls", RECORDS, ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_every_record_class_has_the_signature_and_hashing_of_its_twin(cls: type) -> None:
    fields = dataclasses.fields(cls)
    frozen = cls.__setattr__ is not object.__setattr__ and "__setattr__" in cls.__dict__
    twin = dataclasses.make_dataclass(
        cls.__name__,
        [
            (
                f.name,
                f.type,
                field(
                    default=f.default,
                    default_factory=f.default_factory,
                    init=f.init,
                    repr=f.repr,
                    compare=f.compare,
                    hash=f.hash,
                    kw_only=f.kw_only,
                ),
            )
            for f in fields
        ],
        frozen=frozen,
        slots="__slots__" in cls.__dict__,
    )
    mine = cls.__record__  # type: ignore[attr-defined]
    expected = [
        (name, parameter.kind, parameter.default)
        for name, parameter in inspect.signature(twin.__init__).parameters.items()
        if name != "self"
    ]
    kind = inspect.Parameter
    got = [
        (name, kind.POSITIONAL_OR_KEYWORD if index < mine.positional else kind.KEYWORD_ONLY)
        for index, (name, _, _) in enumerate(mine.params)
    ]
    assert got == [(name, k) for name, k, _ in expected]
    assert mine.shown == tuple(f.name for f in fields if f.repr)
    assert mine.compared == tuple(f.name for f in fields if f.compare)
    explicit = "__hash__" in cls.__dict__ and cls.__dict__["__hash__"] not in (None,)
    if not explicit or cls.__dict__["__hash__"].__module__ == "histnorm._record":
        assert (cls.__hash__ is None) == (twin.__hash__ is None)


def test_a_copy_with_changes_is_what_replace_makes() -> None:
    """`copied` gives `dataclasses.replace`'s copy (without running `__post_init__`), and
    refuses a name that is no field, as `replace` does."""
    from histnorm._record import copied
    from histnorm.diagnostic import Diagnostic, Location, Severity

    found = Diagnostic("HN001", "orphan-tool-call", "é", Severity.ERROR, Location(3, 1), data=[1])
    for changes in ({}, {"pointer": "/3"}, {"line": 7, "message_index": None}):
        moved = found.at(**changes)
        twin = dataclasses.replace(found, location=dataclasses.replace(found.location, **changes))
        assert moved == twin
        assert [getattr(moved, f.name) for f in dataclasses.fields(Diagnostic)] == [
            getattr(twin, f.name) for f in dataclasses.fields(Diagnostic)
        ]
        assert moved.data is found.data
    assert copied(found.location, {"line": 2}) == Location(3, 1, line=2)
    with pytest.raises(TypeError, match="no field 'row'"):
        found.at(row=2)
