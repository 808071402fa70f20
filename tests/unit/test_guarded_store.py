"""GuardedStore against the Store protocol, method by method, with a fake inner store that records what reaches it.

Every Store method must be GuardedStore's own (with the protocol's exact signature: mypy does not compare positional
parameter names), and every call about a work must be checked by core.services.access before the inner store is
reached, whether the work id comes by position or by keyword. The sign-in behaviour on a real database is in
tests/integration/test_sign_in.py.
"""
from __future__ import annotations

import inspect
from types import SimpleNamespace
from typing import Any, Callable

import pytest

from core.domain import WorkSharing
from core.services import access
from core.services.access import Access, ReadOnly
from core.services.guarded_store import GuardedStore, guarded
from core.store import NotFound, Store

ANN, EVE = "ann@example.com", "eve@example.com"
OWN, SHARED, OTHERS, GONE = 1, 2, 3, 4          # Ann's work, Eve's shared with Ann, Eve's alone, no such work
JOBS = {10: OWN, 20: SHARED, 30: OTHERS}        # job id -> its work
SHARING = {OWN: WorkSharing(OWN, ANN, ()), SHARED: WorkSharing(SHARED, EVE, (ANN,)),
           OTHERS: WorkSharing(OTHERS, EVE, ())}
LOOKUPS = {"work_sharing", "get_work", "get_job"}   # what the guard itself reads to decide


def _protocol() -> dict[str, inspect.Signature]:
    """Every Store method and its signature, from each part of the protocol (core.store.Store's bases)."""
    methods: dict[str, inspect.Signature] = {}
    for part in Store.__mro__:
        if part.__module__.startswith("core.") and part.__name__.endswith("Store"):
            for name, fn in vars(part).items():
                if not name.startswith("_") and inspect.isfunction(fn):
                    methods.setdefault(name, inspect.signature(fn))
    return methods


PROTOCOL = _protocol()
ABOUT_A_WORK = sorted(n for n, sig in PROTOCOL.items() if "work_id" in sig.parameters)


class RecordingStore:
    """A fake inner Store: answers the guard's look-ups from the tables above and records every call made to it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def work_sharing(self, work_id: int) -> WorkSharing:
        self.calls.append(("work_sharing", (work_id,), {}))
        if work_id not in SHARING:
            raise NotFound(f"No work with id {work_id}.")
        return SHARING[work_id]

    def get_work(self, work_id: int) -> SimpleNamespace:
        self.calls.append(("get_work", (work_id,), {}))
        return SimpleNamespace(id=work_id, title=f"Work {work_id}", owner=SHARING[work_id].owner)

    def get_job(self, job_id: int) -> SimpleNamespace:
        self.calls.append(("get_job", (job_id,), {}))
        return SimpleNamespace(id=job_id, work_id=JOBS[job_id])

    def __getattr__(self, name: str) -> Callable[..., str]:
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args: Any, **kwargs: Any) -> str:
            self.calls.append((name, args, kwargs))
            return f"{name} done"
        return call

    def reached(self, name: str) -> list[dict[str, Any]]:
        """The arguments of each call of `name` that reached this store, by parameter name (defaults filled in)."""
        sig = PROTOCOL[name]
        out = []
        for called, args, kwargs in self.calls:
            if called == name:
                bound = sig.bind(None, *args, **kwargs)
                bound.apply_defaults()
                out.append({k: v for k, v in bound.arguments.items() if k != "self"})
        return out


def _arguments(name: str, **given: Any) -> dict[str, Any]:
    """A distinct stand-in for every parameter of the method (the fake store never looks at them), plus `given`."""
    return {p: given.get(p, f"<{p}>") for p in PROTOCOL[name].parameters if p != "self"}


def _call(store: Store, name: str, arguments: dict[str, Any], keywords: bool) -> Any:
    """Call `name` with every argument by keyword, or the positional ones by position (as the services mostly do)."""
    if keywords:
        return getattr(store, name)(**arguments)
    params = PROTOCOL[name].parameters
    args = [v for k, v in arguments.items() if params[k].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    kwargs = {k: v for k, v in arguments.items() if params[k].kind is inspect.Parameter.KEYWORD_ONLY}
    return getattr(store, name)(*args, **kwargs)


def _need(name: str) -> Access:
    """What a call about one work needs: access.needs, except llm_usage, an unscoped read the guard checks too."""
    return Access.READ if name == "llm_usage" else access.needs(name)


def _stamped(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments the inner store should see: the guard puts the signed-in user in place of a given one."""
    if name in ("position_get", "position_set"):
        return {**arguments, "user": ANN}
    return arguments


def _result(name: str) -> str | None:
    """What the guard hands back from the fake store: its answer, or nothing for a call that returns nothing."""
    return None if PROTOCOL[name].return_annotation == "None" else f"{name} done"


def test_every_store_method_is_the_guards_own_with_the_protocols_signature() -> None:
    own = vars(GuardedStore)
    assert "__getattr__" not in own, "GuardedStore must not forward unknown calls: define each Store method"
    assert len(PROTOCOL) > 60 and "kg_triples" in PROTOCOL and "bible_delete" in PROTOCOL
    missing = sorted(set(PROTOCOL) - set(own))
    assert not missing, f"define these Store methods on GuardedStore (checked): {missing}"
    differ = {n: (str(inspect.signature(own[n])), str(sig)) for n, sig in PROTOCOL.items()
              if inspect.signature(own[n]) != sig}
    assert not differ, f"GuardedStore's signature differs from the Store protocol's: {differ}"
    assert isinstance(guarded(RecordingStore(), ANN), GuardedStore)


@pytest.mark.parametrize("keywords", [False, True], ids=["positional", "keyword"])
@pytest.mark.parametrize("name", ABOUT_A_WORK)
def test_a_call_about_a_work_is_checked_before_the_inner_store_is_reached(name: str, keywords: bool) -> None:
    for work in (OTHERS, GONE):                     # not Ann's to open: as if it did not exist
        inner = RecordingStore()
        with pytest.raises(NotFound, match=f"No work with id {work}"):
            _call(GuardedStore(inner, ANN), name, _arguments(name, work_id=work, job_id=None), keywords)
        assert inner.calls == [("work_sharing", (work,), {})]   # the check's one look-up, nothing else

    inner = RecordingStore()                        # shared with Ann read-only: reads pass, changes are refused
    arguments = _arguments(name, work_id=SHARED, job_id=None)
    if _need(name) is Access.READ:
        _call(GuardedStore(inner, ANN), name, arguments, keywords)
        assert inner.reached(name)[-1] == _stamped(name, arguments)
    else:
        with pytest.raises(ReadOnly, match="Work 2” is shared with you read-only"):
            _call(GuardedStore(inner, ANN), name, arguments, keywords)
        assert inner.calls == [("work_sharing", (SHARED,), {}), ("get_work", (SHARED,), {})]  # + the title

    inner = RecordingStore()                        # Ann's own: everything, with every argument passed on
    arguments = _arguments(name, work_id=OWN, job_id=None)
    result = _call(GuardedStore(inner, ANN), name, arguments, keywords)
    assert inner.reached(name)[-1] == _stamped(name, arguments)
    assert result == (SHARING[OWN] if name == "work_sharing" else inner.get_work(OWN) if name == "get_work" else
                      _result(name))


@pytest.mark.parametrize("name", ["get_job", "update_job", "llm_usage", "record_llm_usage"])
def test_a_call_by_job_id_is_checked_on_the_jobs_work(name: str) -> None:
    inner = RecordingStore()
    with pytest.raises(NotFound, match=f"No work with id {OTHERS}"):
        getattr(GuardedStore(inner, ANN), name)(**_arguments(name, job_id=30, work_id=None))
    assert {c[0] for c in inner.calls} <= LOOKUPS and inner.reached(name) in ([], [{"job_id": 30}]), inner.calls

    inner = RecordingStore()
    arguments = _arguments(name, job_id=20, work_id=None)
    if name == "update_job":
        with pytest.raises(ReadOnly):
            GuardedStore(inner, ANN).update_job(**arguments)
        assert not inner.reached(name)
    else:
        getattr(GuardedStore(inner, ANN), name)(**arguments)
        assert inner.reached(name)[-1] == arguments


def test_the_unscoped_calls_reach_the_store_as_given_or_narrowed_to_the_user() -> None:
    inner = RecordingStore()
    store = GuardedStore(inner, ANN)
    for name in ("get_meta", "put_chunk_vectors", "text_vectors", "put_text_vectors"):
        arguments = _arguments(name)
        assert getattr(store, name)(**arguments) == _result(name)
        assert inner.reached(name)[-1] == arguments
    store.create_work(**_arguments("create_work", owner=EVE))
    assert inner.reached("create_work")[-1]["owner"] == ANN           # a new work is always one's own
    store.works_shared_with(EVE)
    assert inner.reached("works_shared_with")[-1] == {"user": ANN}    # only ever one's own shares
    with pytest.raises(ReadOnly, match="Only the admin"):
        store.set_meta("llm_roles", "{}")
    assert not inner.reached("set_meta")


def test_the_database_a_guarded_store_writes_to_is_its_inner_stores() -> None:
    """core.services.imports keys each user's imports, and qa_corpus its embedding locks, by the store's engine: a
    guarded store made afresh on every page run must name the same database as the plain one under it."""
    engine = object()
    assert GuardedStore(SimpleNamespace(engine=engine), ANN).engine is engine
    assert GuardedStore(SimpleNamespace(), ANN).engine is None
