"""The general greedy mapping algorithm (seed 000, "General Greedy Mapping Algorithm").

Every level of the hierarchy (instance sets of unsegmented texts, instances, single fills) maps its
objects with this one function: score every (reference, hypothesis) pair, take the pair with the best
F, drop every pair sharing an object with it, repeat. A pair's score never depends on what else is
chosen at the same level, so sorting all pairs once and sweeping is the same algorithm.

Ties are broken without looking at input order, so that the same objects in any order map the same
way: higher F first, then more correct points, then the caller's canonical key of the reference
object, then that of the hypothesis object.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from iescore.pipeline.core.measures import Counts, f_measure

R = TypeVar("R")
H = TypeVar("H")
P = TypeVar("P")


@dataclass(frozen=True)
class Chosen(Generic[P]):
    """A chosen pair: indices into the reference and hypothesis sequences, and its payload."""

    ref: int
    hyp: int
    payload: P


def greedy_map(
    refs: Sequence[R],
    hyps: Sequence[H],
    score: Callable[[R, H], tuple[Counts, P] | None],
    ref_key: Callable[[R], Hashable],
    hyp_key: Callable[[H], Hashable],
) -> list[Chosen[P]]:
    """Map reference objects to hypothesis objects, one to one, greedily by F.

    ``score`` returns the pair's counts and a payload (what the caller needs to keep about the pair),
    or ``None`` when the two may not be mapped at all (say, fills of different kinds). A pair with
    nothing to score (undefined F) ranks as F = 0. Chosen pairs come back in reference order.
    """
    candidates = []
    hyp_keys: list[Hashable] | None = None  # each object's key computed once (keys are pure functions)
    for i, ref in enumerate(refs):
        key_of_ref = None
        for j, hyp in enumerate(hyps):
            scored = score(ref, hyp)
            if scored is None:
                continue
            counts, payload = scored
            f = f_measure(counts) or 0.0
            if key_of_ref is None:
                key_of_ref = (ref_key(ref),)
            if hyp_keys is None:
                hyp_keys = [hyp_key(h) for h in hyps]
            candidates.append(((-f, -counts.COR, key_of_ref[0], hyp_keys[j]), i, j, payload))
    candidates.sort(key=lambda candidate: candidate[0])
    used_refs: set[int] = set()
    used_hyps: set[int] = set()
    chosen: list[Chosen[P]] = []
    for _, i, j, payload in candidates:
        if i in used_refs or j in used_hyps:
            continue
        used_refs.add(i)
        used_hyps.add(j)
        chosen.append(Chosen(i, j, payload))
    chosen.sort(key=lambda pair: pair.ref)
    return chosen
