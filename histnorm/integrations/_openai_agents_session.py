"""An Agents SDK session that repairs its history when it is read and stores writes as given."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from agents.memory import OpenAIConversationsSession

from histnorm.integrations._openai_agents_items import repair_items
from histnorm.settings import Settings, with_options

if TYPE_CHECKING:
    from agents.items import TResponseInputItem
    from agents.memory import Session, SessionSettings


def _takes_wrapper(method: Any) -> bool:
    """Whether a session method takes the SDK's run context as a `wrapper=` keyword."""
    try:
        parameter = inspect.signature(method).parameters.get("wrapper")
    except (TypeError, ValueError):
        return False
    return parameter is not None and parameter.kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    )


async def _call(method: Any, *args: Any, wrapper: Any = None) -> Any:
    """`method(*args)`, passing `wrapper` on when it is given and the method takes it."""
    if wrapper is not None and _takes_wrapper(method):
        result = method(*args, wrapper=wrapper)
    else:
        result = method(*args)
    return await result if inspect.isawaitable(result) else result


class RepairSession:
    """Wraps an Agents SDK session (`SQLiteSession`, `SQLAlchemySession`, any `Session`):
    `get_items` returns its history repaired, as `repair_items` does with `options` set
    over `settings` (default: histnorm's, `tail="keep"`: the SDK stores a call awaiting
    approval before its output, so an open call at the end of a stored history is live);
    `add_items`, `pop_item` and `clear_session` go to the wrapped session unchanged, so
    what is stored is never rewritten. With a `limit`, the window read is what is
    repaired: it never starts with a result whose call lies before it, and may hold fewer
    than `limit` items. A context-aware session gets the SDK's `wrapper=` passed on; other
    attributes are on `.session`.

    An `OpenAIConversationsSession` is refused (`TypeError`): the server holds that history
    and the SDK treats such a session apart, which a wrapper would hide; repair what each
    call is sent with `RepairInputFilter(server_managed=True)` instead."""

    def __init__(self, session: Session, settings: Settings | None = None, **options: Any) -> None:
        if isinstance(session, OpenAIConversationsSession):
            raise TypeError(
                "RepairSession cannot wrap an OpenAIConversationsSession: its history is held "
                "on the server; use RunConfig(call_model_input_filter="
                "RepairInputFilter(server_managed=True)) instead"
            )
        self.session = session
        self.settings: Settings = with_options(settings, options, "RepairSession")

    @property
    def session_id(self) -> str:
        """The wrapped session's id."""
        return self.session.session_id

    @session_id.setter
    def session_id(self, value: str) -> None:
        self.session.session_id = value

    @property
    def session_settings(self) -> SessionSettings | None:
        """The wrapped session's settings (its default `limit`)."""
        return self.session.session_settings

    @session_settings.setter
    def session_settings(self, value: SessionSettings | None) -> None:
        self.session.session_settings = value

    async def get_items(
        self, limit: int | None = None, *, wrapper: Any = None
    ) -> list[TResponseInputItem]:
        """The latest `limit` items (all when None and the session sets no limit), repaired."""
        items = await _call(self.session.get_items, limit, wrapper=wrapper)
        return repair_items(items, self.settings)

    async def add_items(self, items: list[TResponseInputItem], *, wrapper: Any = None) -> None:
        """Stores `items` in the wrapped session as they are."""
        await _call(self.session.add_items, items, wrapper=wrapper)

    async def pop_item(self, *, wrapper: Any = None) -> TResponseInputItem | None:
        """Removes and returns the wrapped session's latest item, as stored."""
        item: TResponseInputItem | None = await _call(self.session.pop_item, wrapper=wrapper)
        return item

    async def clear_session(self, *, wrapper: Any = None) -> None:
        """Clears the wrapped session."""
        await _call(self.session.clear_session, wrapper=wrapper)
