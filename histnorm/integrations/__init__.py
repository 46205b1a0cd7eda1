"""Adapters that run histnorm inside agent frameworks, dataset tools and corpus engines.

Each adapter is a module of its own and imports its framework only when it is itself
imported: neither `import histnorm` nor this package loads a framework, and importing an
adapter without its framework raises an ImportError that names the package to install.

- `langchain`: `repair_messages`, a pair-safe `trim_messages`, `RepairMiddleware`.
- `langgraph`: `RepairCheckpointer`, a checkpointer that repairs messages on read.
- `openai_agents`: `repair_model_input` / `RepairInputFilter`, `RepairSession`.
- `litellm`: `RepairLogger`, `repair_request`.
- `agent_framework`: `RepairHistoryProvider`, `RepairChatMiddleware`, `repair_messages`.
- `pydantic_ai`: `repair_history` for `ProcessHistory`, `repair_capability`.
- `adk`: `RepairPlugin`, `repair_callback` / `async_repair_callback`, `repair_llm_request`.
- `crewai`: `repair_hook`, a `before_llm_call` hook; `repair_messages`.
- `datasets`: `repairer` and `is_clean` for `Dataset.map` and `Dataset.filter`.
- `ray`, `dask`: lint and fix a corpus of files across workers, as `histnorm` does.
"""
