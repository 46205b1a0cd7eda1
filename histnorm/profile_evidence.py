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
    "empty_text": "beside-result: Gemini 400 `…contents[2].parts[1].data: required oneof field "
    "'data' must have one initialized field` for a blank text part beside a functionResponse "
    '(54xzh/FLIT#69); Gemini answered 200 to {"text": ""} parts in user and model '
    f"contents ({CASSETTES}test_google/test_google_model_empty_assistant_response.yaml, "
    f"{CASSETTES}test_google/test_google_instructions_only_with_tool_calls.yaml)",
}
PORTABLE = "the strictest value any profile takes; see that profile's evidence"
ANTHROPIC_THINKING = {
    "reasoning_carry": "Anthropic 400: `messages.1.content.0.type: Expected `thinking` or "
    "`redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final "
    "`assistant` message must start with a thinking block (preceeding the lastmost set of "
    "`tool_use` and `tool_result` blocks).` (Kilo-Org/kilocode#5219, anomalyco/opencode#3077)",
    "model_bound_thinking": "Anthropic 400: `messages.19.content.0: Invalid `signature` in "
    "`thinking` block` after the model was switched mid-session (anomalyco/opencode#6418); "
    "thinking-block signatures are model-specific (vybestack/llxprt-code#2335)",
}
GEMINI_3 = {
    "reasoning_carry": "Gemini 3 400: `Function call is missing a thought_signature in "
    "functionCall parts. This is required for tools to work correctly, and missing "
    "thought_signature may lead to degraded model performance.` (nanbingxyz/5ire#405: "
    "gemini-3-pro-preview, not gemini-2.5); the first functionCall part of each step of "
    "the current turn must carry its signature, earlier turns are not validated "
    "(https://ai.google.dev/gemini-api/docs/thought-signatures)",
}
DEEPSEEK = {
    "reasoning_carry": "DeepSeek 400: `The reasoning_content in the thinking mode must be "
    "passed back to the API` (anomalyco/opencode#25356); for turns that made tool calls "
    "the reasoning_content must be passed back in all later requests, and thinking mode is "
    "on by default (https://api-docs.deepseek.com/guides/thinking_mode, quoted in "
    "anomalyco/opencode#24722); Chat wire only: DeepSeek's Responses endpoint answered 200 "
    "to function calls without reasoning items "
    f"({CASSETTES}test_deepseek_responses/test_deepseek_responses%5Bfunction_tool%5D.yaml, "
    "interaction 1)",
}
GROQ = {
    "rejects_reasoning": "Groq 400: `'messages.1' : for 'role:assistant' the following must "
    "be satisfied[('messages.1' : property 'reasoning_content' is unsupported)]` "
    "(janhq/jan#8136), and `property 'reasoning' is unsupported` on models without "
    "reasoning (musistudio/claude-code-router#1204); Groq answered 200 to reasoning kept as "
    f"`<think>` text in content ({CASSETTES}test_groq/test_tool_use_failed_error.yaml, "
    "interaction 2)",
}
PORTABLE_CARRY = (
    "optional: DeepSeek needs reasoning on every tool-call turn and Groq rejects it, so no "
    "history with tool calls meets both; each carry requirement holds only in a mode the "
    "request chooses (DeepSeek and Anthropic thinking can be disabled, and Anthropic's own "
    "error says `To avoid this requirement, disable `thinking``), so portable takes the "
    "history every target accepts in some mode: one without reasoning (rejects_reasoning); "
    "Gemini 3's signatures are its own, so that need stays with the `gemini-3` profile"
)
