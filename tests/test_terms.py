"""Minting: the fast path for ids that need no escaping gives exactly what urllib's quote gives."""
import random
import string
from urllib.parse import quote

from kg.terms import _SEGMENT_SAFE, Minter, segment


def test_segment_is_quote_on_random_ids():
    rng = random.Random(3)  # deterministic: the same 20,000 ids on every run
    alphabet = string.printable + "éü/%#?[]:ß€"
    ids = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8))) for _ in range(20_000)]
    assert sum(segment(i) != i for i in ids) > 1000  # many of them do need escaping
    assert [segment(i) for i in ids] == [quote(i, safe=_SEGMENT_SAFE) for i in ids]


def test_minted_iris_escape_what_an_iri_cannot_hold():
    mint = Minter("https://kg.example/id/")
    assert mint.iri("case 1/a", "test") == "https://kg.example/id/test/case%201%2Fa"
    assert mint.iri("run-1.2_x~", "run") == "https://kg.example/id/run/run-1.2_x~"
