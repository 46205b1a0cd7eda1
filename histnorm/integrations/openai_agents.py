"""histnorm for the OpenAI Agents SDK: repair what each model call is sent, and a session
that repairs its history when it is read.

    from histnorm.integrations.openai_agents import RepairSession, repair_model_input
    config = RunConfig(call_model_input_filter=repair_model_input)
    result = await Runner.run(agent, items, run_config=config)
    session = RepairSession(SQLiteSession("user-42", "chats.db"))

Needs `openai-agents`.
"""

from __future__ import annotations

from histnorm.integrations._openai_agents_items import (
    RepairInputFilter,
    repair_items,
    repair_model_input,
)
from histnorm.integrations._openai_agents_session import RepairSession

__all__ = ["RepairInputFilter", "RepairSession", "repair_items", "repair_model_input"]
