"""Write ties.ref and ties.hyp (see README.md): ``python3 make_inputs.py 26``."""

import random
import sys

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 26)
VOCABULARY = ["a", "b", "c", "d", "e", "f"]


def utterance() -> list[str]:
    return [rng.choice(VOCABULARY) for _ in range(rng.randint(0, 14))]


def edited(words: list[str]) -> list[str]:
    """``words`` with about 30 % substitutions, deletions and insertions."""
    out = []
    for word in words:
        roll = rng.random()
        if roll < 0.15:
            out.append(rng.choice(VOCABULARY))
        elif roll >= 0.25:
            out.append(word)
        if rng.random() < 0.1:
            out.append(rng.choice(VOCABULARY))
    return out


N = 3000
pairs = [(ref := utterance(), utterance() if d % 2 else edited(ref)) for d in range(N)]
pairs[0] = (["c", "b", "d", "e", "a", "f", "e", "a", "b", "e", "a"], ["a", "e", "a", "f", "c"])
with open("ties.ref", "w") as ref_file, open("ties.hyp", "w") as hyp_file:
    for d, (ref, hyp) in enumerate(pairs):
        ref_file.write(" ".join(ref) + f" (t{d:04d}-x)\n")
        hyp_file.write(" ".join(hyp) + f" (t{d:04d}-x)\n")
