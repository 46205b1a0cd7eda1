"""Settings: which rules run, how severe they are, and how defects are repaired.

`Settings` is a frozen dataclass that checks and normalises its values as it is built
(a list becomes a tuple, a policy's name its enum member, a profile alias its profile);
a value it cannot take raises `SettingsError`. It loads nothing heavy: every command
reads settings, and most never need a validation library.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from enum import Enum, StrEnum
from typing import Any, ClassVar, NamedTuple, TypeVar

from histnorm._record import record
from histnorm.choices import Scope as Scope
from histnorm.choices import TailMode as TailMode
from histnorm.diagnostic import Severity


class OrphanCallPolicy(StrEnum):
    """What `fix` does with a tool call that has no result (HN001)."""

    DROP = "drop"
    SYNTHESIZE = "synthesize"
    FAIL = "fail"


class ApprovalPolicy(StrEnum):
    """What `fix` does with an approval request that has no response (HN003)."""

    DROP = "drop"
    DENY = "deny"
    FAIL = "fail"


class InvalidArgumentsPolicy(StrEnum):
    """What `fix` does with a call whose arguments are no JSON object (HN109)."""

    REPLACE = "replace"
    DROP = "drop"
    FAIL = "fail"


CLAUDE_CODE_LINE_LIMIT = 524_288
"""The default `Settings.claude_code_line_limit` (512 KiB): below the smallest single line
reported to hang a resume (675 KB, anthropics/claude-code#21067); see HN018."""


class SettingsError(ValueError):
    """A setting given a value it cannot take: `field` names it, `problem` says what is
    wrong (`expected ..., got ...` or the reason)."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


class FieldInfo(NamedTuple):
    """One field of `Settings`: its default and the docstring written under it."""

    default: Any
    description: str | None

    def get_default(self, call_default_factory: bool = True) -> Any:
        """The default (a fresh copy of a mutable one)."""
        return dict(self.default) if isinstance(self.default, dict) else self.default


class _Fields:
    """`Settings.model_fields`: the fields by name, their docstrings read on first use."""

    def __get__(self, instance: object, owner: type) -> dict[str, FieldInfo]:
        return _field_infos()


@record(frozen=True, kw_only=True)
class Settings:
    """Everything that changes what `lint` reports and what `fix` does.

    Rules are named by code (`HN001`) or name (`orphan-tool-call`) in `select`,
    `ignore` and `severity`; `select`, `extend_select`, `ignore`, `fixable` and
    `unfixable` also take a code prefix (`HN1`) or `ALL` (`histnorm.selection`).
    """

    model_fields: ClassVar[dict[str, FieldInfo]]
    """The fields by name, each with its default and docstring."""

    select: tuple[str, ...] | None = None
    """The rules to run: codes, names, prefixes (`HN1`) or `ALL` (default: every rule)."""
    extend_select: tuple[str, ...] = ()
    """Rules run on top of `select`."""
    ignore: tuple[str, ...] = ()
    """Rules not run, though selected."""
    fixable: tuple[str, ...] | None = None
    """The rules whose fixes `fix` may apply (default: all)."""
    unfixable: tuple[str, ...] = ()
    """Rules reported without a fix: `fix` never changes what they find."""
    severity: dict[str, Severity] = dataclasses.field(default_factory=dict)
    """A severity (`error`, `warning` or `info`) per rule, over the rule's own."""
    unsafe_fixes: bool = False
    """Whether `fix` applies unsafe fixes too (those that choose between values)."""
    orphan_tool_call: OrphanCallPolicy = OrphanCallPolicy.DROP
    """What `fix` does with a tool call that has no result (HN001)."""
    pending_approval: ApprovalPolicy = ApprovalPolicy.DROP
    """What `fix` does with an approval request that has no response (HN003)."""
    invalid_tool_arguments: InvalidArgumentsPolicy = InvalidArgumentsPolicy.REPLACE
    """What `fix` does with a call whose arguments are no JSON object (HN109): `replace`
    them with `{}` and keep the raw text in its result, `drop` the call and its results,
    or `fail` (report only)."""
    whitespace_is_empty: bool = True
    """Whether a message of nothing but whitespace counts as empty."""
    tail: TailMode | None = None
    """`keep`: calls still open at the end are a live state (HN011); `close`: defects;
    unset: `close` for a request body (`model`, `max_tokens`... beside the messages),
    `keep` otherwise (`histnorm.tail`)."""
    scope: Scope = Scope.ALL
    """Which messages are reported: `all`, `tail` (after the last user message) or `marked`."""
    profile: str | None = None
    """The replay target whose constraints apply (HN1xx); default: the input format's."""
    synthetic_result_text: str = "Tool call was interrupted before it produced a result."
    """The text of a tool result `fix` writes for a call that has none (`synthesize`)."""
    rejection_text: str = "Tool call invocation rejected."
    """The text of the denial `fix` writes for an approval request (`deny`)."""
    claude_code_line_limit: int = CLAUDE_CODE_LINE_LIMIT
    """The longest Claude Code session line, in bytes, that HN018 accepts."""

    def __post_init__(self) -> None:
        for name, check in _CHECKS.items():
            value = getattr(self, name)
            checked = check(name, value)
            if checked is not value:
                object.__setattr__(self, name, checked)

    def __hash__(self) -> int:
        return hash(tuple(_hashable(getattr(self, f.name)) for f in _FIELDS))

    def model_dump(self) -> dict[str, Any]:
        """The fields as a dict (what `model_validate` takes back)."""
        return {f.name: getattr(self, f.name) for f in _FIELDS}

    @classmethod
    def model_validate(cls, values: Mapping[str, Any]) -> Settings:
        """Settings from a mapping of field names; an unknown name is a `SettingsError`."""
        for name in values:
            if name not in _NAMES:
                raise SettingsError(name, f"unknown setting; the settings are: {_KNOWN}")
        return cls(**values)

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> Settings:
        """These settings with the fields in `update` changed (and checked)."""
        return dataclasses.replace(self, **(update or {}))


def _hashable(value: Any) -> Any:
    return tuple(sorted(value.items())) if isinstance(value, dict) else value


def _names(optional: bool) -> Any:
    def check(field: str, value: Any) -> tuple[str, ...] | None:
        if value is None and optional:
            return None
        if isinstance(value, tuple) and all(isinstance(v, str) for v in value):
            return value
        if isinstance(value, list | tuple | set | frozenset) and all(
            isinstance(v, str) for v in value
        ):
            return tuple(value)
        raise SettingsError(field, f"expected a list of rule names, got {value!r}")

    return check


def _flag(field: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in _BOOLEAN_WORDS:
        return _BOOLEAN_WORDS[value.lower()]
    raise SettingsError(field, f"expected a boolean, got {value!r}")


_BOOLEAN_WORDS = {
    **dict.fromkeys(("true", "1", "yes", "on", "t", "y"), True),
    **dict.fromkeys(("false", "0", "no", "off", "f", "n"), False),
}

E = TypeVar("E", bound=Enum)


def _choice(kind: type[E], optional: bool = False) -> Any:
    def check(field: str, value: Any) -> E | None:
        if value is None and optional:
            return None
        if isinstance(value, kind):
            return value
        try:
            return kind(value)
        except (ValueError, TypeError):
            names = [repr(str(member.value)) for member in kind]
            wanted = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]
            raise SettingsError(field, f"expected {wanted}, got {value!r}") from None

    return check


def _severities(field: str, value: Any) -> dict[str, Severity]:
    if not isinstance(value, Mapping):
        raise SettingsError(field, f"expected a table of rule: severity, got {value!r}")
    level = _choice(Severity)
    out: dict[str, Severity] = {}
    for name, given in value.items():
        if not isinstance(name, str):
            raise SettingsError(field, f"expected rule names as keys, got {name!r}")
        out[name] = level(f"{field}.{name}", given)
    return out


def _text(field: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    raise SettingsError(field, f"expected a string, got {value!r}")


def _profile(field: str, value: Any) -> str | None:
    from histnorm.errors import HistnormError
    from histnorm.profiles import get_profile

    if value is None:
        return None
    if not isinstance(value, str):
        raise SettingsError(field, f"expected a profile name, got {value!r}")
    try:
        return get_profile(value).name  # an alias names its profile
    except HistnormError as exc:
        raise SettingsError(field, exc.message) from None


def _positive(field: str, value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    raise SettingsError(field, f"expected an integer greater than 0, got {value!r}")


_CHECKS = {
    "select": _names(optional=True),
    "extend_select": _names(optional=False),
    "ignore": _names(optional=False),
    "fixable": _names(optional=True),
    "unfixable": _names(optional=False),
    "severity": _severities,
    "unsafe_fixes": _flag,
    "orphan_tool_call": _choice(OrphanCallPolicy),
    "pending_approval": _choice(ApprovalPolicy),
    "invalid_tool_arguments": _choice(InvalidArgumentsPolicy),
    "whitespace_is_empty": _flag,
    "tail": _choice(TailMode, optional=True),
    "scope": _choice(Scope),
    "profile": _profile,
    "synthetic_result_text": _text,
    "rejection_text": _text,
    "claude_code_line_limit": _positive,
}
"""How each field is checked and normalised, in field order."""

_FIELDS = dataclasses.fields(Settings)
_NAMES = frozenset(f.name for f in _FIELDS)
_KNOWN = ", ".join(sorted(_NAMES))
assert list(_CHECKS) == [f.name for f in _FIELDS], "every field is checked"
setattr(Settings, "model_fields", _Fields())  # noqa: B010 (read on first use)


@functools.cache
def _field_infos() -> dict[str, FieldInfo]:
    """Each field's default and docstring (read from this module's source, once)."""
    import ast
    import inspect

    docs: dict[str, str] = {}
    body = ast.parse(inspect.getsource(Settings)).body[0]
    assert isinstance(body, ast.ClassDef)
    for before, after in zip(body.body, body.body[1:], strict=False):
        if (
            isinstance(before, ast.AnnAssign)
            and isinstance(before.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[before.target.id] = inspect.cleandoc(after.value.value)
    return {
        f.name: FieldInfo(
            {} if f.default_factory is not dataclasses.MISSING else f.default,
            docs.get(f.name),
        )
        for f in _FIELDS
    }


DEFAULT_SETTINGS = Settings()


def check_options(options: Mapping[str, Any], caller: str) -> None:
    """Raise `TypeError` naming the first of `options` that is no field of `Settings`, as
    Python does for an unexpected keyword argument of `caller`."""
    for name in options:
        if name not in _NAMES:
            raise TypeError(
                f"{caller}() got an unexpected keyword argument {name!r}; "
                f"the settings it takes are: {_KNOWN}"
            )


def with_options(
    settings: Settings | None, options: Mapping[str, Any], caller: str = "histnorm"
) -> Settings:
    """`settings` (default: `DEFAULT_SETTINGS`) with `options` (keyword arguments named as
    the fields of `Settings`) set over it; an unknown name is a `TypeError`."""
    base = settings or DEFAULT_SETTINGS
    if not options:
        return base
    check_options(options, caller)
    return Settings.model_validate({**base.model_dump(), **options})
