"""The evidence behind each provider profile's constraints (see `histnorm.profiles`).

Provider error texts are quoted with the public report they come from (`owner/repo#N`,
a GitHub issue or pull request); recorded verdicts link the pydantic-ai test cassette
whose request body the provider answered.
"""

from __future__ import annotations

PYDANTIC_AI = "https://github.com/pydantic/pydantic-ai/blob/4fda389/"
CASSETTES = PYDANTIC_AI + "tests/models/cassettes/"
"""Recorded verdicts: request bodies pydantic-ai's tests sent to the live APIs."""

RESPONSES = {
    "reasoning_needs_next": "Responses API 400: `Item 'rs_…' of type 'reasoning' was provided "
    "without its required following item.` (vercel/ai#10638; recorded for a reasoning item "
    "followed by an assistant message without an id: "
    f"{CASSETTES}test_openai_responses/test_openai_responses_thinking_with_modified_history"
    ".yaml, interaction 1)",
    "max_call_id_length": "Responses API 400: `Invalid 'input[95].call_id': string too long. "
    "Expected a string with maximum length 64 …` (and OpenAI's OpenAPI specification, "
    "https://github.com/openai/openai-openapi)",
    "unique_call_ids": "Responses API 400: `Duplicate item found with id …. Remove duplicate "
    "items from your input and try again.`",
    "severity": "HN008 is a warning: the Responses API pairs outputs with calls by call_id "
    "wherever they sit",
    "empty_text": 'accepted: OpenAI answered 200 to an assistant message with content "" and '
    f'an output_text part with text "" ({CASSETTES}test_openai_responses/'
    f"test_native_output.yaml, {CASSETTES}test_openai_responses/"
    "test_openai_responses_image_generation_with_tool_output.yaml)",
}
ANTHROPIC = {
    "results_first": "Anthropic 400: `messages.N: Did not find 1 `tool_result` block(s) at the "
    "beginning of this message. Messages following `tool_use` blocks must begin with a "
    "matching number of `tool_result` blocks.` (Zoo-Code-Org/Zoo-Code#1705)",
    "call_id_pattern": "Anthropic 400: `messages.1.content.1.tool_use.id: String should match "
    "pattern '^[a-zA-Z0-9_-]+$'` (anomalyco/opencode#1279)",
    "unique_call_ids": "not unique after resolution: Anthropic answered 200 to a tool_use id "
    f"reused after its tool_result ({CASSETTES}test_tool_search/"
    "test_cross_provider_capability_replay%5Bgoogle-gemini-3-flash-preview-anthropic-claude-"
    "sonnet-4-5%5D.yaml); `tool_use ids must be unique` (anthropics/claude-code#28515) is met by "
    "an id pending twice, which HN006/HN007 report under every profile",
    "merges_same_role": "the SDK's `messages` docstring: consecutive user or assistant turns "
    "are combined into one turn; Anthropic answered 200 to two "
    "assistant messages with one tool_use each, answered by one user message "
    f"({CASSETTES}test_tool_search/test_cross_provider_capability_replay%5Bopenai-responses-"
    "gpt-5.4-anthropic-claude-sonnet-4-5%5D.yaml)",
    "system_placement": 'inline: Anthropic answered 200 to role "system" messages in the '
    f"middle of `messages` (claude-opus-4-8: {CASSETTES.replace('/blob/', '/tree/')}"
    "test_anthropic_mid_conversation_system); older models and Bedrock/Vertex clients "
    "take system text only in the top-level `system` (pydantic-ai's "
    "`_INLINE_SYSTEM_PROMPT_MODEL_PREFIXES`, "
    f"{PYDANTIC_AI}pydantic_ai_slim/pydantic_ai/providers/anthropic.py)",
    "empty_text": "Anthropic 400: `messages: text content blocks must be non-empty` "
    "(aliasrobotics/cai#182) and `messages: text content blocks must contain non-whitespace "
    "text` (anthropics/claude-code#3196)",
}
_OPENAI_NAME_DOC = (
    "OpenAI API reference, function `name`: `Must be a-z, A-Z, 0-9, or contain underscores "
    "and dashes, with a maximum length of 64.` "
    "(https://platform.openai.com/docs/api-reference/chat/create); a call names a declared "
    "function, so its name is held to the same limit"
)
OPENAI_CHAT_TOOL_NAMES = {
    "tool_name_pattern": "OpenAI 400 on a replayed call: `Invalid "
    "'messages[9].tool_calls[0].function.name': string does not match pattern. Expected a "
    "string that matches the pattern '^[a-zA-Z0-9_-]+$'.` (mcp-use/mcp-use#90)",
    "max_tool_name_length": _OPENAI_NAME_DOC,
}
RESPONSES_TOOL_NAMES = {
    "tool_name_pattern": "Responses API 400 on a resumed Codex session whose stored "
    "function_call name held NUL bytes: `Invalid 'input[646].name': string does not match "
    "pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.` "
    "(openai/codex#24369)",
    "max_tool_name_length": _OPENAI_NAME_DOC,
}
BEDROCK = {
    "results_first": "Bedrock 400: `Expected toolResult blocks at messages.N.content for the "
    "following Ids: …` (zeroclaw-labs/zeroclaw#1476)",
    "max_call_id_length": "Bedrock: `toolUseId` must be 1 to 64 characters matching "
    "`[a-zA-Z0-9_.:-]+` (run-llama/llama_index#22775)",
    "call_id_pattern": "Bedrock: `toolUseId` must be 1 to 64 characters matching "
    "`[a-zA-Z0-9_.:-]+` (run-llama/llama_index#22775)",
    "unique_call_ids": "Bedrock carries Anthropic's checks: `messages.N.content.M: tool_use ids "
    "must be unique` (anthropics/claude-code#28515, anthropics/claude-code#20573); no Bedrock "
    "verdict accepts reuse",
    "first_message_user": "Anthropic 400 in 2024 API versions: "
    '`messages: first message must use the "user" role` (lobehub/lobehub#1601, '
    "langchain4j/langchain4j#940)",
    "alternating_roles": 'Bedrock 400: `messages: roles must alternate between "user" and '
    '"assistant", but found multiple "user" roles in a row` '
    "(modelcontextprotocol/quickstart-resources#20)",
    "system_placement": "Converse takes system text only in its top-level `system` field "
    "(https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html)",
    "empty_text": "Bedrock 400: `The text field in the ContentBlock object at "
    "messages.N.content.0 is blank.` (aws-samples/bedrock-engineer#8)",
    "tool_name_pattern": "Bedrock ValidationException on a replayed call: `Value at "
    "'...toolUse.name' failed to satisfy constraint: Member must satisfy regular expression "
    "pattern: [a-zA-Z0-9_-]+` (openclaw/openclaw#12949; a hallucinated `$READFILE` in "
    "history, vercel/ai#17769)",
    "max_tool_name_length": "Bedrock validates `toolSpec.name` / `toolUse.name` against "
    "`^[a-zA-Z0-9_-]{1,64}$`, in replayed history too (NousResearch/hermes-agent#90016)",
}
GEMINI = {
    "equal_call_counts": "Gemini 400: `Please ensure that the number of function response parts "
    "is equal to the number of function call parts of the function call turn.` "
    "(google-gemini/gemini-cli#4217)",
    "merges_same_role": "Gemini answered 200 to two model contents with one functionCall each, "
    "answered by one user content with both functionResponses "
    f"({CASSETTES}test_tool_search/test_cross_provider_capability_replay%5Bgoogle-gemini-3-"
    "flash-preview-openai-responses-gpt-5.4%5D.yaml)",
    "system_placement": "roles are user and model only: `Role must be user or model, but got "
    "system` (google-genai, "
    "https://github.com/googleapis/python-genai/blob/main/google/genai/chats.py); system text "
    "goes in `systemInstruction`",
    "result_names": "checked: Vertex Gemini 3 answered a bare 400 `INVALID_ARGUMENT` to a "
    "functionResponse whose name was not its call's, and 200 to the same request with the "
    "call's name (archestra-ai/archestra#7583); an empty one: "
    "`…function_response.name: Name cannot be empty.` (langflow-ai/langflow#9437)",
    "empty_text": "beside-result: Gemini 400 `…contents[2].parts[1].data: required oneof field "
    "'data' must have one initialized field` for a blank text part beside a functionResponse "
    '(54xzh/FLIT#69); Gemini answered 200 to {"text": ""} parts in user and model '
    f"contents ({CASSETTES}test_google/test_google_model_empty_assistant_response.yaml, "
    f"{CASSETTES}test_google/test_google_instructions_only_with_tool_calls.yaml)",
}
MISTRAL = {
    "call_id_pattern": "Mistral 400: `Tool call id was call_PTLP8xhu3uwZk4l3nlnrrJha but must "
    "be a-z, A-Z, 0-9, with a length of 9.` (anomalyco/opencode#1680; code 3280 for `turn1_0`, "
    "nearai/ironclaw#1241); Mistral answered 200 to ids such as `FI5qQGzDE` "
    f"({CASSETTES}test_mistral/test_image_as_binary_content_tool_response.yaml)",
}
OLLAMA = {
    "result_names": "paired: Ollama tool calls carry no id and a result names its tool: "
    '`{"role": "tool", "tool_name": "get_temperature", "content": "22°C"}` '
    "(https://docs.ollama.com/capabilities/tool-calling); without `tool_name` parallel "
    "results cannot be matched to their calls (agentscope-ai/agentscope#2006)",
}
PORTABLE = "the strictest value any profile takes; see that profile's evidence"
