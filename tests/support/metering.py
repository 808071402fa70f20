"""What the metering tests' fake models answer (tests/app/test_metering_pages.py, tests/integration/
test_metering_cli.py): a chapter for the writer, one node for the grapher, a line for a continuation."""
from __future__ import annotations

import json

from core.llm.base import GenerationOptions, Message

CHAPTER = "Elena Voss found the dragon egg in her field.\n\nShe carried it home to Millbrook."
BOOK = ["Marley was dead, to begin with. Scrooge signed the register of his burial.\n\n"
        "Scrooge never painted out old Marley's name above the warehouse door.",
        "The ghost of Marley came through the heavy door and looked at Scrooge."]


def reply(messages: list[Message], options: GenerationOptions) -> str:
    """The FakeLLM reply function: the grapher's JSON, a continuation, or a chapter ending with the writer's marker."""
    system, user = messages[0].content, messages[-1].content
    if "KNOWLEDGE-GRAPH AGENT" in system:
        return json.dumps({"nodes": [{"id": "Elena_Voss", "label": "Elena Voss", "type": "character"}], "edges": []})
    if "Continue this text" in user:
        return "The egg cracked at midnight."
    return CHAPTER + "\nSTORY STATUS: CONTINUE"
