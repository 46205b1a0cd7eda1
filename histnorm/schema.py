"""JSON Schemas generated from histnorm's models, as committed under `schemas/`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import orjson

from histnorm.model import Transcript
from histnorm.report import report_schema

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def transcript_schema() -> dict[str, Any]:
    """The schema of a canonical transcript (`Transcript.model_dump(mode="json")`)."""
    schema = Transcript.model_json_schema(mode="serialization")
    return {"$schema": SCHEMA_DIALECT, "$id": "transcript.schema.json", **schema}


def _report() -> dict[str, Any]:
    return {"$schema": SCHEMA_DIALECT, "$id": "report.schema.json", **report_schema()}


SCHEMAS: Mapping[str, Callable[[], dict[str, Any]]] = MappingProxyType(
    {"transcript.schema.json": transcript_schema, "report.schema.json": _report}
)
"""Every committed schema by file name, with the function that generates it."""


def render(name: str) -> bytes:
    """The exact bytes of schema `name` as it should be committed."""
    return orjson.dumps(SCHEMAS[name](), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
