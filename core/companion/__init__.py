"""The reading companion (issue 33): a reader's place in a work, and what is shown beside the text as of that place:
the X-Ray of the people, places and things on the page, the "Previously…" recap, and the timeline of a character or
a pair. Everything here is pure and spoiler-safe by construction: each function takes the position (a chapter) and
reads nothing from after it; the use cases (storage, caching, the LLM rewrite) are core.services.companion_service.
"""
