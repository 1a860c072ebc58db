"""How fast a card, or a set of cards, decodes and prefills a model, from what each step reads and computes.

A decode step gives each sequence of a batch one token. The step

  reads     the weights its tokens route to (``weights_read``: every expert
            some token of the batch picks) and each sequence's cache and
            state, at the card's achieved bandwidth: its spec sheet's
            bandwidth × the share a measured run reached (data/throughput.yaml
            ``bandwidth``);
  computes  two operations per active parameter per token, at the card's
            achieved dense rate in the number format it computes in
            (gpus.yaml ``dense_tflops`` × a measured matmul share);

and takes the longer of the two, plus a fixed cost per layer (kernel launches
and synchronisation: data/throughput.yaml ``layer_step``), plus, under tensor
parallelism, two all-reduces per layer of each token's hidden state over the
set's link (a ring all-reduce moves 2 (n − 1) / n of it through each card,
one way; on a mesh, where each pair of cards has a link of its own, a card of
n reaches the others over n − 1 of them).
Tensor parallelism splits the reads and the arithmetic among the cards; an
engine that splits a model by layers (llama.cpp) runs its cards one after
another, so a step takes what it would on one card of the set.

Prefill is the same step for every token of a prompt at once: its time is
the time to the first token. The arithmetic of attention over the prompt is
left out, which understates prefill at long contexts.

With the figures of ``Rates`` and ``Work`` these are the ceilings the
estimate never passes: tokens per second ≤ the batch ÷ (the reads ÷ the
bandwidth), and ≤ the batch ÷ (the operations ÷ the dense rate).

Pure: no I/O, no formatting, no locale.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from decimal import Decimal

from ..load.model import Gpu, MeasuredMatmul, WeightFormat
from .cost import card_bandwidth
from .figure import BANDWIDTH, COUNT, FACTOR, SECONDS, THROUGHPUT, Figure, Formula, given, product, quotient, total

BYTES_PER_ACTIVATION = given(2, "B", FACTOR, "bytes per activation")
"""Hidden states travel between cards in 16 bits."""
OPERATIONS_PER_PARAMETER = given(2, "", FACTOR, "operations per parameter (a multiply and an add)")
ALL_REDUCES_PER_LAYER = given(2, "", FACTOR, "all-reduces per layer (attention, MLP)")
COMPUTE_FORMATS = ("fp4", "fp8")
"""Formats a card may compute in instead of BF16, where the weights' format needs that feature and the card has it."""


# -- what a card achieves --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rates:
    """What one card of a set achieves: bytes read, operations and bytes exchanged per second."""

    bandwidth: Figure
    """Achieved memory bandwidth, in GB/s."""
    matmul: Figure | None
    """Achieved dense rate in the compute format, in TFLOPS; None where no rate is known for the card."""
    link: Figure
    """What the card sends to the rest of its set, one way, in GB/s (gpus.yaml interconnect ``gbps``)."""
    peer_link: Figure
    """What it sends to one peer, one way, in GB/s: a mesh's one link (``per_peer_gbps``), else the whole link."""


def bandwidth_share(achieved: Figure, spec: Figure) -> Figure:
    """The share of its spec sheet's bandwidth a measured run reached."""
    return quotient(achieved, spec, unit="", kind=FACTOR, label="share of the bandwidth reached")


def compute_format(weight_format: WeightFormat, gpu: Gpu) -> str:
    """The number format the card multiplies the weights in: the format's own where it needs a feature the card
    has and the card's rate in it is known; BF16 otherwise (4-bit integer weights are widened to 16 bits)."""
    feature = weight_format.requires_feature
    rates = gpu.dense_tflops
    if feature in COMPUTE_FORMATS and feature in gpu.features and rates and rates.rate(feature) is not None:
        return feature
    return "bf16"


def matmul_share(measured: tuple[MeasuredMatmul, ...], gpu_id: str, fmt: str) -> Figure:
    """The share of its dense rate a card reaches in ``fmt``: measured where data/throughput.yaml has it, else
    the median of the measured shares."""
    shares = {(item.card, item.compute_format): _share(item) for item in measured}
    if (gpu_id, fmt) in shares:
        return shares[(gpu_id, fmt)]
    median = statistics.median(share.value for share in shares.values())
    return Figure(median, "", FACTOR, "median share of the dense rate reached in measured matmuls")


def _share(item: MeasuredMatmul) -> Figure:
    peak = given(item.peak_tflops, "TFLOPS", FACTOR, "peak rate")
    reached = given(item.tflops, "TFLOPS", FACTOR, "measured matmul rate")
    return quotient(reached, peak, unit="", kind=FACTOR, label="share of the dense rate reached")


def card_figures(gpu: Gpu, fmt: str) -> tuple[Figure, Figure | None, tuple[Figure, Figure]]:
    """A card's spec sheet as a step needs it: bandwidth (GB/s), dense rate in ``fmt`` (TFLOPS; None where not
    given) and its links (``card_links``)."""
    tflops = None
    if gpu.dense_tflops is not None:
        tflops = given(gpu.dense_tflops.rate(fmt), "TFLOPS", FACTOR, f"dense {fmt} rate")
    return card_bandwidth(gpu), tflops, card_links(gpu)


def card_link(gpu: Gpu) -> Figure:
    """What the card sends to the rest of its set, one way (GB/s)."""
    return given(gpu.interconnect.gbps, "GB/s", BANDWIDTH, "card-to-card link, one way")


def mesh_peer_link(gpu: Gpu) -> Figure | None:
    """One link of a mesh, one way (GB/s); None where a card can send its whole link to any one peer."""
    peer = gpu.interconnect.per_peer_gbps
    return given(peer, "GB/s", BANDWIDTH, "link to one peer, one way") if peer is not None else None


def card_links(gpu: Gpu) -> tuple[Figure, Figure]:
    """What the card sends, one way (GB/s): to the rest of its set, and to one peer."""
    peer = mesh_peer_link(gpu)
    if peer is None:
        peer = given(gpu.interconnect.gbps, "GB/s", BANDWIDTH, "link to one peer, one way")
    return card_link(gpu), peer


def rates(bandwidth: Figure, share_of_bandwidth: Figure, tflops: Figure | None, share_of_matmul: Figure,
          links: tuple[Figure, Figure]) -> Rates:
    """One card's achieved rates: its bandwidth × the share reached, its dense rate × the matmul share."""
    achieved = product(bandwidth, share_of_bandwidth, unit="GB/s", kind=BANDWIDTH, label="achieved bandwidth")
    matmul = None
    if tflops is not None:
        matmul = product(tflops, share_of_matmul, unit="TFLOPS", kind=FACTOR, label="achieved dense rate")
    return Rates(bandwidth=achieved, matmul=matmul, link=links[0], peer_link=links[1])


def set_link(card: Rates, cards: int) -> Figure:
    """What one card of ``cards`` sends to the others, one way (GB/s): its link, or, where one peer's link is
    slower, that link to each of the n − 1 others, whichever is less."""
    peers = product(card.peer_link, given(cards - 1, "cards", COUNT, "other cards of the set"), unit="GB/s",
                    kind=BANDWIDTH, label="links to the other cards, one way")
    return Figure(min(card.link.value, peers.value), "GB/s", BANDWIDTH, "the set's link, one way",
                  formula=Formula("min", (card.link, peers)))


# -- what a step asks ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Work:
    """What one step asks of the whole model. Its counts may be ``Input``s (calc/figure.py), so that the
    calculator's templates (render/calculator/formulas.py) are these same formulas."""

    tokens: int
    """Tokens the step produces or takes in: the batch's sequences in decode, the prompt's tokens in prefill."""
    read: Figure
    """Bytes read: weights, caches and states."""
    operations: Figure
    """Operations (multiply or add) of the weights' matrices."""
    layers: int
    hidden_size: int


def expert_share(total_experts: int, per_token: int, tokens: int) -> Figure:
    """The share of the routed experts a step reads when each of ``tokens`` tokens picks ``per_token`` of
    ``total_experts``, spread evenly: 1 − (1 − per token ÷ all)^tokens. One token reads per token ÷ all."""
    one = given(1, "", FACTOR, "one")
    picked = quotient(given(per_token, "", COUNT, "experts per token"), given(total_experts, "", COUNT, "experts"),
                      unit="", kind=FACTOR, label="share of the experts one token picks")
    left_out = Figure(1 - picked.value, "", FACTOR, "share of the experts one token leaves out",
                      formula=Formula("−", (one, picked)))
    exponent = given(tokens, "tokens", COUNT, "tokens in the step")
    none_picks = Figure(left_out.value ** int(tokens), "", FACTOR, "share no token picks",
                        formula=Formula("^", (left_out, exponent)))
    return Figure(1 - none_picks.value, "", FACTOR, "share of the experts read",
                  formula=Formula("−", (one, none_picks)))


def weights_read(dense: Figure, experts: Figure, share: Figure | None) -> Figure:
    """The weights a step reads (B): every weight but the routed experts' (``dense``, one row of the embedding
    table per token of a decode step), and ``share`` of the routed experts' (``experts``)."""
    if share is None:
        return dense
    routed = product(experts, share, unit="B", kind=COUNT, label="experts read")
    return total(dense, routed, unit="B", kind=COUNT, label="weights read")


def operations(active_params_billion, tokens: int) -> Figure:
    """2 × active parameters × tokens."""
    return product(OPERATIONS_PER_PARAMETER, given(active_params_billion, "B params", FACTOR, "active parameters"),
                   given(10 ** 9, "", FACTOR, "per billion"), given(tokens, "tokens", COUNT, "tokens"), unit="",
                   kind=COUNT, label="operations")


def decode_work(weights: Figure, per_sequence: Figure, sequences: int, active_params_billion, layers: int,
                hidden_size: int) -> Work:
    """A decode step of ``sequences`` sequences: ``weights`` read once, and each sequence's cache and state
    (``per_sequence``, B)."""
    caches = product(per_sequence, given(sequences, "sequences", COUNT, "sequences"), unit="B", kind=COUNT,
                     label="caches and states read")
    read = total(weights, caches, unit="B", kind=COUNT, label="bytes read")
    return Work(tokens=sequences, read=read, operations=operations(active_params_billion, sequences), layers=layers,
                hidden_size=hidden_size)


def prefill_work(weights: Figure, written: Figure, prompt: int, active_params_billion, layers: int,
                 hidden_size: int) -> Work:
    """A prompt of ``prompt`` tokens at once: ``weights`` read once, and the cache it writes (``written``, B)."""
    read = total(weights, written, unit="B", kind=COUNT, label="bytes read and written")
    return Work(tokens=prompt, read=read, operations=operations(active_params_billion, prompt), layers=layers,
                hidden_size=hidden_size)


# -- the step --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """How long one step takes on a set of cards, term by term (seconds), and what it yields."""

    reading: Figure
    computing: Figure | None
    """None where the card's dense rate is unknown: the step is then taken as bound by its reads."""
    layers: Figure
    link: Figure
    seconds: Figure
    tokens: int

    @property
    def compute_bound(self) -> bool:
        return self.computing is not None and self.computing.value > self.reading.value

    def milliseconds(self) -> Figure:
        return product(self.seconds, given(1000, "ms/s", FACTOR, "milliseconds per second"), unit="ms",
                       kind=SECONDS, label="step")

    def tokens_per_s(self) -> Figure:
        """Tokens the step yields per second: all sequences together in decode."""
        return quotient(given(self.tokens, "tokens", COUNT, "tokens per step"), self.milliseconds(), unit="tokens/s",
                        kind=THROUGHPUT, label="tokens per second", scale=Decimal(1000))


def step(work: Work, card: Rates, cards: int, by_tensor: bool, layer_seconds: Decimal) -> Step:
    """The step on ``cards`` cards: split by tensor (each reads and computes its share, and they exchange hidden
    states each layer) or by layers (one card at a time, each its layers' share)."""
    sharing = given(cards if by_tensor else 1, "cards", COUNT, "cards working at once")
    reading = quotient(work.read, product(card.bandwidth, sharing, given(10 ** 9, "B/GB", FACTOR, "bytes per GB"),
                                          unit="B/s", kind=BANDWIDTH, label="bytes read per second"),
                       unit="s", kind=SECONDS, label="reading")
    computing = None
    if card.matmul is not None:
        per_second = product(card.matmul, sharing, given(10 ** 12, "", FACTOR, "operations per tera"), unit="/s",
                             kind=FACTOR, label="operations per second")
        computing = quotient(work.operations, per_second, unit="s", kind=SECONDS, label="computing")
    bound = reading
    if computing is not None:
        bound = Figure(max(reading.value, computing.value), "s", SECONDS, "reading or computing",
                       formula=Formula("max", (reading, computing)))
    layers = product(given(work.layers, "layers", COUNT, "layers"), given(layer_seconds, "s", SECONDS, "per layer"),
                     unit="s", kind=SECONDS, label="per-layer cost")
    link = exchange(work, set_link(card, cards), cards) if by_tensor and cards > 1 else given(0, "s", SECONDS,
                                                                                             "exchange")
    seconds = total(bound, layers, link, unit="s", kind=SECONDS, label="step")
    return Step(reading=reading, computing=computing, layers=layers, link=link, seconds=seconds, tokens=work.tokens)


def exchange(work: Work, link: Figure, cards: int) -> Figure:
    """Two ring all-reduces per layer of each token's hidden state: 2 (n − 1) / n of it through each card's link
    (``set_link``), one way."""
    ring = given(Decimal(2 * (cards - 1)) / cards, "", FACTOR, "ring all-reduce share, 2 (n − 1) / n")
    state = product(given(work.tokens, "tokens", COUNT, "tokens"), given(work.hidden_size, "", COUNT, "hidden size"),
                    BYTES_PER_ACTIVATION, unit="B", kind=COUNT, label="hidden states of the step")
    moved = product(ALL_REDUCES_PER_LAYER, given(work.layers, "layers", COUNT, "layers"), ring, state, unit="B",
                    kind=COUNT, label="bytes through each card's link")
    return quotient(moved, product(link, given(10 ** 9, "B/GB", FACTOR, "bytes per GB"), unit="B/s",
                                   kind=BANDWIDTH, label="link"), unit="s", kind=SECONDS, label="exchange")


def decode_ceiling(bandwidth: Figure, resident: Figure) -> Figure:
    """GB/s ÷ GB = tokens per second one sequence can at most decode when each token reads ``resident``."""
    return quotient(bandwidth, resident, unit="tokens/s", kind=THROUGHPUT, label="decode ceiling")


def combined_bandwidth(card_bandwidth: Figure, count: int) -> Figure:
    """What ``count`` cards read together when a model is split across them by tensor."""
    if count == 1:
        return card_bandwidth
    return product(given(count, "cards", COUNT), card_bandwidth, unit="GB/s", kind=BANDWIDTH,
                   label="combined bandwidth")
