"""An image of a media type the target rejects, or where it takes no image.

## What it does
Under profiles that name the image types they take, finds inline images whose declared
media type is not one of them (`image/bmp`, `image/tiff`, `image/jpg`, `image/gif` for
Gemini); under `openai-chat` and `portable`, finds images outside user messages: in a
tool result, an assistant or a system message. Images are read from each format's native
items: OpenAI Chat `image_url`, Responses `input_image`, Anthropic `image` and Gemini
`inlineData`, as parts and inside tool results.

## Why it breaks a replay
Anthropic: `messages.36.content.2.image.source.base64.media_type: Input should be
'image/jpeg', 'image/png', 'image/gif' or 'image/webp'` (anthropics/claude-code#8184);
Gemini: `MIME type must be image/png, image/jpeg, image/webp, image/heic, or image/heif.`
(EvanZhouDev/gemini-ai#3); OpenAI Chat Completions: `Invalid 'messages[234]'. Image URLs
are only allowed for messages with role 'user', but this message with role 'tool'
contains an image URL.` (OpenHands/OpenHands#7700). The image stays in the stored
history, so every later request fails the same way.

## Example
A BMP screenshot in a user message, replayed into Anthropic.

## Fix
Replace the image with a text placeholder that names what was removed and its size
(`[histnorm: removed image/bmp image, 2.1 MB]`), in the native form of the format: a
text part, or a text item inside the tool result, which stays a result.

## Fix safety
Unsafe: the model no longer sees the image. Converting it (or moving it to a user
message) is the caller's choice; the placeholder keeps the turn and says what was there.

## References
- https://docs.anthropic.com/en/docs/build-with-claude/vision
- https://platform.openai.com/docs/guides/images-vision
- https://ai.google.dev/gemini-api/docs/image-understanding#supported-formats
- `histnorm/profile_evidence.py`: the evidence of each profile's `image_types` and
  `user_images_only`, listed below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.profiles import Profile
from histnorm.rule import Example, Rule
from histnorm.rules._media import Image, images, may_hold_images, replace_images
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Transcript


def _problem(image: Image, limits: Profile) -> str | None:
    if limits.user_images_only and (image.in_result or image.role.casefold() != "user"):
        where = "a tool result" if image.in_result else f"a {image.role} message"
        return f"is in {where}; {limits.name} takes images only in user messages"
    types = limits.image_types
    if types is not None and image.media_type is not None and image.media_type not in types:
        return f"is not a type {limits.name} takes ({', '.join(sorted(types))})"
    return None


def check(context: Context) -> Iterable[Diagnostic]:
    """Report images of a type the target rejects, or where it takes none."""
    limits = context.profile
    transcript = may_hold_images(context)
    if transcript is None:
        return
    for image in images(transcript):
        why = _problem(image, limits)
        if why is not None:
            yield RULE.diagnostic(
                f"{image.describe()} {why}",
                message_index=image.position[0],
                part_index=image.position[1],
                fix_title="replace the image with a text placeholder",
                data=image,
            )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Replace each reported image with a text placeholder naming it."""
    return replace_images(transcript, diagnostics)


_BMP = "Qk06AAAAAAAAADYAAAAoAAAAAQAAAAEAAAABABgAAAAAAAQAAAATCwAAEwsAAAAAAAAAAAAAAAD/AA=="
"""A 1x1 BMP (58 bytes)."""


def _user(*content: Any) -> Any:
    return {"role": "user", "content": list(content)}


_TEXT: Any = {"type": "text", "text": "What is in this screenshot?"}

RULE = Rule(
    code="HN114",
    name="unsupported-media",
    summary="an image has a media type the target rejects, or sits where it takes none "
    "(profiles: openai-chat, openai-responses, anthropic, anthropic-thinking, "
    "bedrock-converse, gemini, gemini-3, vertex, portable)",
    severity=Severity.ERROR,
    applicability=Applicability.UNSAFE,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda p: p.image_types is not None or p.user_images_only,
    fix=fix,
    examples=(
        Example(
            bad=[
                _user(
                    _TEXT,
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/bmp", "data": _BMP},
                    },
                ),
            ],
            good=[
                _user(_TEXT, {"type": "text", "text": "[histnorm: removed image/bmp image, 58 B]"})
            ],
            format="anthropic",
            settings=Settings(unsafe_fixes=True),
            title="a BMP image replayed into Anthropic",
        ),
    ),
)
