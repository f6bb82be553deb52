"""Write random.ref and random.hyp (see README.md): ``python3 make_inputs.py 11``."""

import random
import sys

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 11)
VOCABULARY = ["a", "b", "c", "d", "e", "f", "ab", "abc"]


def word(alternations: bool) -> str:
    x = rng.random()
    if alternations and x < 0.1:
        return "{ " + " / ".join(rng.sample(VOCABULARY, 2) + (["@"] if rng.random() < 0.5 else [])) + " }"
    if x < 0.18:
        return "(" + rng.choice(VOCABULARY) + ")"
    if x < 0.25:
        return rng.choice(["a-", "ab-", "-c", "-bc"])
    return rng.choice(VOCABULARY)


N = 500
refs = [" ".join(word(True) for _ in range(rng.randint(0, 9))) for _ in range(N)]
hyps = [" ".join(word(rng.random() < 0.5) for _ in range(rng.randint(0, 9))) for _ in range(N)]
with open("random.ref", "w") as ref_file, open("random.hyp", "w") as hyp_file:
    for d, (ref, hyp) in enumerate(zip(refs, hyps, strict=True)):
        ref_file.write(ref + f" (r{d:04d}-x)\n")
        hyp_file.write(hyp + f" (r{d:04d}-x)\n")
