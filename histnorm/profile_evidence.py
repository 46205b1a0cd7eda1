"""The evidence behind each provider profile's constraints (see `histnorm.profiles`).

Provider error texts are quoted with the public report they come from (`owner/repo#N`,
a GitHub issue or pull request); recorded verdicts link the pydantic-ai test cassette
whose request body the provider answered.
"""

from __future__ import annotations

PYDANTIC_AI = "https://github.com/pydantic/pydantic-ai/blob/4fda389/"
CASSETTES = PYDANTIC_AI + "tests/models/cassettes/"
PREFILL = (
    "`This model does not support assistant message prefill. The conversation must end with "
    "a user message.`"
)
"""The error Anthropic (and Bedrock) gives a final assistant message on models without
prefill."""
"""Recorded verdicts: request bodies pydantic-ai's tests sent to the live APIs."""

OPENAI_VISION = "https://platform.openai.com/docs/guides/images-vision"
OPENAI_STRING = (
    "OpenAI 400 `string_above_max_length`: `Invalid 'messages[7].content': string too long. "
    "Expected a string with maximum length 10485760, but got a string with length 10624990 "
    "instead.` (FlowiseAI/Flowise#5085; Responses: `Invalid 'input[0].content': string too "
    "long. Expected a string with maximum length 10485760 …`, VectorlyApp/bluebox#31)"
)
OPENAI_IMAGES = (
    f"PNG, JPEG, WEBP and non-animated GIF only ({OPENAI_VISION}, Image input requirements)"
)
OPENAI_TOOL_IMAGES = (
    "OpenAI 400: `Invalid 'messages[234]'. Image URLs are only allowed for messages with role "
    "'user', but this message with role 'tool' contains an image URL.` "
    "(OpenHands/OpenHands#7700); `… but this message with role 'assistant' contains an image "
    "URL.` (openai/openai-node#1030)"
)
ANTHROPIC_VISION = "https://docs.anthropic.com/en/docs/build-with-claude/vision"
ANTHROPIC_IMAGE_SIZE = (
    "Anthropic 400: `messages.0.content.2.image.source.base64: image exceeds 5 MB maximum: "
    "15908784 bytes > 5242880 bytes` (anthropics/claude-code#10612), measured on the base64 "
    "text (lobehub/lobehub#14711)"
)
ANTHROPIC_IMAGE_SIDE = (
    "Anthropic 400: `messages.7.content.3.image.source.base64.data: At least one of the image "
    "dimensions exceed max allowed size: 8000 pixels` (anthropics/claude-code#5147; "
    f"{ANTHROPIC_VISION})"
)
ANTHROPIC_MANY_IMAGES = (
    "Anthropic 400: `At least one of the image dimensions exceed max allowed size for "
    "many-image requests: 2000 pixels` (anomalyco/opencode#12068): more than 20 images in "
    f"one request take at most 2000 px a side ({ANTHROPIC_VISION})"
)
BEDROCK_IMAGES = (
    "Converse: up to 20 images, each no more than 3.75 MB (5 MiB of base64), 8,000 px high and "
    "wide, in png, jpeg, gif or webp "
    "(https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html, "
    "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html)"
)

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
    "instructions_between_results": "a Codex rollout whose 33 `function_call_output` items "
    "each sat after a `developer` message (an approval notice) that followed its "
    "`function_call` was answered 200 by OpenAI on every later turn (histnorm's issue 23): "
    "instructions between a call and its output do not separate them",
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
    "empty_text": "lone-blank: Anthropic 400: `messages: text content blocks must be "
    "non-empty` (aliasrobotics/cai#182) for empty text anywhere, and `messages: text content "
    "blocks must contain non-whitespace text` (anthropics/claude-code#3196) for a message "
    "whose only block is whitespace; `[text: ' ', text: 'real']` was accepted "
    '(LibreChat-AI/agents#124, calling `messages.create`), and so was `{"type": "text", '
    '"text": " "}` before a `tool_use` in an earlier assistant message (histnorm\'s '
    "issue 23)",
    "final_assistant": f"some-models: Anthropic 400 {PREFILL} "
    "(smallmain/vscode-unify-chat-provider#249); claude-sonnet-4-6, claude-opus-4-6 and "
    "newer reject a final assistant message, the `*-4-5` models take it as a prefill "
    "(ericc-ch/copilot-api#261)",
    "final_text_trimmed": "Anthropic 400: `messages: final assistant content cannot end with "
    "trailing whitespace` (tailcallhq/forgecode#1872, anomalyco/opencode#1295)",
    "max_request_bytes": "`413 request_too_large`: the Messages API takes requests of at most "
    "32 MB (https://docs.anthropic.com/en/api/overview#request-size-limits); Claude Code: "
    "`Request too large (max 32MB)` (anthropics/claude-code#56674)",
    "max_image_base64": ANTHROPIC_IMAGE_SIZE,
    "max_image_side": ANTHROPIC_IMAGE_SIDE,
    "many_images": ANTHROPIC_MANY_IMAGES,
    "max_image_side_many": ANTHROPIC_MANY_IMAGES,
    "image_types": "Anthropic 400: `messages.36.content.2.image.source.base64.media_type: Input "
    "should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'` "
    "(anthropics/claude-code#8184)",
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
    "final_assistant": f"some-models: Bedrock ConverseStream ValidationException {PREFILL} "
    "on Claude Sonnet and Opus 4.6 and newer (NousResearch/hermes-agent#101401)",
    "final_text_trimmed": "Bedrock ValidationException: `messages: final assistant content "
    "cannot end with trailing whitespace` (langchain-ai/langchain-aws#599)",
    "error_result_content": "Bedrock 400: `The content field at "
    "messages.N.content.0.toolResult cannot be empty when status value is error.` "
    "(aws-samples/sample-multi-agent-orchestration-chat-on-agentcore#15); an empty "
    "`toolResult` content with status success was answered 200 "
    "(NousResearch/hermes-agent#55092)",
    "max_image_base64": BEDROCK_IMAGES,
    "max_image_side": BEDROCK_IMAGES,
    "image_types": BEDROCK_IMAGES,
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
    "(google-gemini/gemini-cli#4217); responses in consecutive user contents are merged into "
    "one turn first (see `merges_same_role`), so only responses with another content between "
    "them are split",
    "merges_same_role": "Gemini answered 200 to two model contents with one functionCall each, "
    "answered by one user content with both functionResponses "
    f"({CASSETTES}test_tool_search/test_cross_provider_capability_replay%5Bgoogle-gemini-3-"
    "flash-preview-openai-responses-gpt-5.4%5D.yaml); the Gemini API answered 200 to a "
    "parallel call's functionResponses split over consecutive user contents on "
    "gemini-2.5-flash and gemini-2.5-flash-lite (Oaklight/llm-rosetta#300, split and merged "
    "both 200), so consecutive response contents are one response turn (HN102)",
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
    "call_after_user": "Gemini 400: `Please ensure that function call turn comes immediately "
    "after a user turn or after a function response turn.` when the history starts with a "
    "function call (google-gemini/gemini-cli#11814), or with a model functionCall once the "
    "system message went to systemInstruction (lbjlaq/Antigravity-Manager#3396); a call "
    "turn after another model content of the same step was answered 200 (the "
    "`merges_same_role` cassette)",
    "final_assistant": "some-models: Gemini 400 `Requests ending with a model turn are not "
    "supported.` on gemini-3.8-flash (anomalyco/opencode#47034); crewAI appends a user turn "
    "for it (crewAIInc/crewAI#6973); every recorded body Gemini answered 200 ends on a user "
    "content",
    "image_types": "Gemini 400: `GenerateContentRequest.contents[0].parts[1].inline_data."
    "mime_type: MIME type must be image/png, image/jpeg, image/webp, image/heic, or "
    "image/heif.` (EvanZhouDev/gemini-ai#3; no GIF: "
    "https://ai.google.dev/gemini-api/docs/image-understanding#supported-formats)",
}
VERTEX = {
    "equal_call_counts": "Vertex AI 400: `Please ensure that the number of function response "
    "parts is equal to the number of function call parts of the function call turn. "
    "INVALID_ARGUMENT` when each response of a parallel call sat in its own user content "
    "(docker/docker-agent#2959; epam/ai-dial-adapter-vertexai#214): Vertex does not merge "
    "them as the Gemini API does",
    "empty_text": "Vertex AI 400: `Unable to submit request because it has an empty text "
    'parameter.` for a model content whose only part was `{"text": ""}` '
    "(google/adk-python#338; FoundationAgents/OpenManus#876), the very history the Gemini "
    "API answered 200 (see `gemini`)",
}
"""Gemini on Vertex AI (`aiplatform.googleapis.com`), where it differs from the Gemini API;
the other constraints are the `gemini` profile's, with its evidence."""
MISTRAL = {
    "call_id_pattern": "Mistral 400: `Tool call id was call_PTLP8xhu3uwZk4l3nlnrrJha but must "
    "be a-z, A-Z, 0-9, with a length of 9.` (anomalyco/opencode#1680; code 3280 for `turn1_0`, "
    "nearai/ironclaw#1241); Mistral answered 200 to ids such as `FI5qQGzDE` "
    f"({CASSETTES}test_mistral/test_image_as_binary_content_tool_response.yaml)",
    "answer_after_results": "Mistral 400: `Unexpected role 'user' after role 'tool'` "
    "(`invalid_request_message_order`, code 3230; datapizza-labs/datapizza-ai#98, "
    "NousResearch/hermes-agent#20154); `mistral_common`'s validator takes only an assistant "
    "or tool message after a tool message (mistralai/mistral-common#169), so Devstral and "
    "other Mistral models on vLLM with Mistral's tokenizer answer the same 400 "
    "(mistralai/mistral-vibe#454, aliou/pi-neuralwatt#12). Not in the `vllm` profile: vLLM "
    "validates this only for models it serves with `mistral_common`, other chat templates "
    "accept the shape; use `--profile mistral` for Mistral models on vLLM",
}
OLLAMA = {
    "result_names": "paired: Ollama tool calls carry no id and a result names its tool: "
    '`{"role": "tool", "tool_name": "get_temperature", "content": "22°C"}` '
    "(https://docs.ollama.com/capabilities/tool-calling); without `tool_name` parallel "
    "results cannot be matched to their calls (agentscope-ai/agentscope#2006); the result "
    "of a lone call is paired by position: Ollama answered 200 to a tool message with "
    "neither an id nor a name after a single call (histnorm's issue 23)",
}
PORTABLE = "the strictest value any profile takes; see that profile's evidence"
VLLM = {
    "tool_arguments": "vLLM json.loads the `function.arguments` of every history call for the "
    "chat template (`_postprocess_messages` in vLLM's `chat_utils`) and answered 400 "
    "`Expecting ',' delimiter: line 1 column 54 (char 53)` to arguments that are not valid "
    "JSON (vllm-project/vllm#43995; later versions replace them with {} and a warning, "
    "vllm-project/vllm#48922); a string the template needs as an object: `TypeError: Can only "
    "get item pairs from a mapping.` (QwenLM/Qwen3#1894); an object where the OpenAI form "
    "needs a string: `Input should be a valid string` (bytedance/deer-flow#4445); SGLang "
    "rejects history arguments that parse to no object (sgl-project/sglang#28035)",
    "no_empty_tool_calls": "the Llama 3.1 and 3.2 tool templates assert one call in a message "
    "that has `tool_calls`, so `tool_calls: []` in a history message makes vLLM reject the "
    "request (vllm-project/vllm#13978, vllm-project/vllm#12937); vLLM strips empty arrays "
    "from incoming messages since vllm-project/vllm#14054 and vllm-project/vllm#30648, so "
    "HN110 is a warning",
    "alternating_roles": "vLLM 400 from the model's chat template: `Error in applying chat "
    "template from request: Conversation roles must alternate "
    "user/assistant/user/assistant/...` (microsoft/graphrag#564)",
}
OPENAI_ARGUMENTS = (
    "any: no OpenAI error text rejects history arguments that are not valid JSON "
    "(xuzhougeng/wisp-science#775: strict OpenAI-compatible gateways 400 with `Unterminated "
    "string starting at …`, the official endpoint does not re-parse them); an object in "
    "place of the string is rejected (`Invalid type for "
    "'messages[2].tool_calls[0].function.arguments': expected a string, but got an object "
    "instead.`, aaif-goose/goose-mobile#20), but such a file reads as chat-template, and "
    "checking it would decode every record"
)
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
