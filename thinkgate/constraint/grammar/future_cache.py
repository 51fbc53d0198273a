"""A thread-safe LRU of futures: the first to ask for a key computes its value, the others wait
for that result (compiled grammars, for tool sets and for single tools)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import Future
from typing import Any


class FutureCache:
    def __init__(self, size: int):
        self.size = size
        self.entries: OrderedDict[Any, Future] = OrderedDict()
        self.lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def entry(self, key: Any) -> tuple[Future, bool]:
        """The future of ``key``, and whether it is new (the caller's to compute)."""
        with self.lock:
            fut = self.entries.get(key)
            if fut is not None:
                self.entries.move_to_end(key)
                self.hits += 1
                return fut, False
            fut = self.entries[key] = Future()
            self.misses += 1
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)
            return fut, True

    def drop(self, key: Any, fut: Future) -> None:
        """Forget ``key`` if ``fut`` is still its future (its computation failed)."""
        with self.lock:
            if self.entries.get(key) is fut:
                del self.entries[key]
