"""torch's CPU threads for one piece of work: `with torch_threads(1): ...`.

On these 2-core machines a small torch job (one question's MiniLM embedding, KID's filtering and sampling over one
vocabulary) waits for a second OpenMP thread whenever the other core is busy (a background job, another process):
one question's embedding took 480-520 ms on 2 threads beside a busy core and 20-24 ms on 1 (Intel Xeon model 207,
load 2.7); KID's multinomial over 49k logits 24 ms against 2.3 ms at load 8. Large batches (a book's passages) keep
every thread.

The count is torch's (`torch.set_num_threads`): it holds for the calling thread and for threads that start meanwhile;
threads already running keep theirs. It is restored on leaving.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def torch_threads(count: int | None) -> Iterator[None]:
    """torch on `count` threads inside the block (None: unchanged)."""
    import torch
    before = torch.get_num_threads()
    if count is not None and count != before:
        torch.set_num_threads(count)
    try:
        yield
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)
