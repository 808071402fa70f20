"""The continuation job (issue 37): a continuation run by the background worker through the one job runner, so that
KID, minutes for 150 tokens on the embedded model, shows its progress in tokens, the time left and a Stop, goes on
while the user is on another page, and leaves its result in the work until it is saved or discarded.

    background.submit(store, work_id, "continuation", {"mode": "kid", "tokens": 150, "chapter": 3, "text": kept,
                                                       "revision": 2, "kid": {"seed": 0, ...}})
    saved = saved_continuation(store, work_id)    # SavedContinuation: the Continuation, the text it continued, ...
    discard_continuation(store, work_id, saved.id)

Every mode may run here; the generation itself goes through continuation_service.continue_work like every continuation.
A Stop ends KID at the next word: what was written is kept (and says so), the job row is marked stopped.
"""
from __future__ import annotations

import time
import uuid
from dataclasses import asdict, dataclass
from typing import Any

from core.services import llm_service
from core.services.job_kinds import Controls, job_kind
from core.services.jobs import JobRunner, JobStopped
from core.services.continuation_service import Continuation, continue_work
from core.store import Store
from core.write import ContinueParams
from core.write.kid import KidParams, Step

RESULT_KEY = "continuation"   # work setting: the last background continuation, kept until saved or discarded
REPORT_S = 0.5                # progress (and the text so far) goes to the task row at most this often
PREPARING = "Loading the model and reading the text…"


@dataclass(frozen=True)
class SavedContinuation:
    """A background continuation waiting in its work: `id` tells a new one from one already shown; `kept` is the text
    it continues (saved before it), `revision` the chapter's revision that text came from."""

    id: str
    chapter: int
    revision: int
    kept: str
    asked: int
    result: Continuation


def continuation_params(*, mode: str, tokens: int, temperature: float, chapter: int, text: str, revision: int,
                        kid: KidParams | None = None) -> dict[str, Any]:
    """The job's JSON params (what Resume submits again); `kid`: a KidParams or None."""
    return {"mode": mode, "tokens": int(tokens), "temperature": float(temperature), "chapter": int(chapter),
            "text": text, "revision": int(revision), "kid": asdict(kid) if kid is not None else None}


@job_kind("continuation", "Continuation", "tokens")
def continue_in_background(store: Store, work_id: int, params: dict[str, Any], controls: Controls) -> str:
    """params: see continuation_params. The result goes to the work's settings (RESULT_KEY), a stopped one too."""
    work = store.get_work(work_id)
    kid = KidParams(**params["kid"]) if params.get("kid") else None
    cont = ContinueParams(mode=str(params.get("mode", "plain")), tokens=int(params.get("tokens", 120)),
                          temperature=float(params.get("temperature", 0.0)), kid=kid)
    chapter = int(params["chapter"])
    controls.on_progress(0, 0, PREPARING)  # total 0: the rate (and the time left) is measured from the first token
    runner = JobRunner(store, work_id, "continuation", on_progress=controls.on_progress,
                       should_stop=controls.should_stop)
    reported = [0.0, 0.0]  # when progress was last written, when the stop request was last read

    def on_tokens(done: int, asked: int, text: str) -> None:
        if done == 1 or time.monotonic() - reported[0] >= REPORT_S:
            reported[0] = time.monotonic()
            controls.show(done, asked, text)
            run.advance(done)

    def should_stop() -> bool:  # the task row is read at most every REPORT_S (on_tokens' writes read it too)
        if time.monotonic() - reported[1] >= REPORT_S:
            reported[1] = time.monotonic()
            return controls.should_stop()
        return controls.stopping.is_set()

    try:
        with runner.start(cont.tokens, {"mode": cont.mode, "chapter": chapter}) as run:
            llm = run.metered(llm_service.build_llm(store, "writing", work.settings.get("llm"), work_id=work_id),
                              "writing")
            result = continue_work(store, work_id, cont, llm, text=str(params.get("text") or "") or None,
                                   chapter=chapter, on_tokens=on_tokens, should_stop=should_stop)
            written, unit = (len(result.steps), "tokens") if result.steps else (len(result.text.split()), "words")
            run.advance(written)
            _keep(store, work_id, params, result)
            if result.stopped:
                raise JobStopped(run.job)  # the job row says stopped; the task's outcome says what was kept
    except JobStopped:
        return f"Stopped after {written} of {cont.tokens} {unit}: what was written is kept below, to save or discard."
    return f"A continuation of {written} {unit} is ready below ({result.seconds:.0f} s)."


def _keep(store: Store, work_id: int, params: dict[str, Any], result: Continuation) -> None:
    steps = [{"token_id": s.token_id, "piece": s.piece, "p_before": s.p_before, "p_after": s.p_after,
              "fact": s.fact} for s in result.steps]
    data = {k: v for k, v in result.as_dict().items() if k != "boosted"}
    store.update_work_settings(work_id, {RESULT_KEY: {
        "id": uuid.uuid4().hex, "chapter": int(params["chapter"]), "revision": int(params.get("revision", 0)),
        "kept": str(params.get("text") or ""), "asked": int(params.get("tokens", 0)), "result": data,
        "steps": steps}})


def saved_continuation(store: Store, work_id: int) -> SavedContinuation | None:
    """The work's waiting background continuation; None when there is none (or it cannot be read)."""
    raw = store.get_work(work_id).settings.get(RESULT_KEY)
    if not isinstance(raw, dict) or not isinstance(raw.get("result"), dict):
        return None
    try:
        data = raw["result"]
        steps = [Step(int(s["token_id"]), str(s["piece"]), float(s["p_before"]), float(s["p_after"]), s.get("fact"))
                 for s in raw.get("steps") or []]
        result = Continuation(str(data["text"]), str(data["mode"]), list(data.get("facts") or []),
                              str(data.get("prompt", "")), float(data.get("seconds", 0.0)),
                              list(data.get("notes") or []), float(data.get("tokens_per_second", 0.0)), steps,
                              bool(data.get("stopped")), bool(data.get("talk_only")))
        return SavedContinuation(str(raw["id"]), int(raw["chapter"]), int(raw["revision"]), str(raw.get("kept", "")),
                                 int(raw.get("asked", 0)), result)
    except (KeyError, TypeError, ValueError):
        return None


def discard_continuation(store: Store, work_id: int, result_id: str) -> None:
    """Drop the waiting continuation `result_id` (saved or discarded); a newer one is left alone."""
    raw = store.get_work(work_id).settings.get(RESULT_KEY)
    if isinstance(raw, dict) and raw.get("id") == result_id:
        store.update_work_settings(work_id, {RESULT_KEY: None})
