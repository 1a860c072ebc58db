"""Bandwidth ceilings: how fast a card can possibly decode.

Decoding one token reads every resident weight once, so memory bandwidth ÷
resident bytes bounds single-stream tokens per second from above.
"""

from __future__ import annotations

from .figure import BANDWIDTH, COUNT, THROUGHPUT, Figure, given, product, quotient


def decode_ceiling(bandwidth: Figure, resident: Figure) -> Figure:
    """GB/s ÷ GB = tokens per second, at most."""
    return quotient(bandwidth, resident, unit="tokens/s", kind=THROUGHPUT, label="decode ceiling")


def combined_bandwidth(card_bandwidth: Figure, count: int) -> Figure:
    """What ``count`` cards read together when a model is split across them by tensor."""
    if count == 1:
        return card_bandwidth
    return product(given(count, "cards", COUNT), card_bandwidth, unit="GB/s", kind=BANDWIDTH,
                   label="combined bandwidth")
