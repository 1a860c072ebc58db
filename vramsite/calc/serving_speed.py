"""How fast a served configuration decodes, and how soon it answers: calc/throughput.py applied to a real model
in a weight format, on the cards of an engine's verdict (calc/serving.py).

Three steps describe a configuration at a context:

    one          one sequence decoding at the context
    batch        as many sequences as the engine holds at the context, decoding together: the sequences its
                 cache room holds, at most its own limit (data/engines.yaml ``sequence_limit``: vLLM's
                 max_num_seqs); an engine that sizes its cache to the request (llama.cpp) holds the sequences
                 asked for
    first token  one prompt of the context's tokens, prefilled at once

Pure: no I/O, no formatting, no locale.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from ..load.model import CatalogueModel, Engine, Gpu, KvCacheFormat, SiteData, SpeedData, WeightFormat
from . import attention, throughput, weight_formats
from .cost import card_bandwidth
from .measured import achieved_bandwidth
from .figure import COUNT, FACTOR, Figure, given
from .engines import card_gib, element_bytes
from .serving import Verdict, sequences_held, sized_to_request
from .throughput import Rates, Step, Work


@dataclass(frozen=True)
class ServedSpeed:
    """A configuration's decode steps and its prefill, at one context."""

    one: Step
    batch: Step
    sequences: Figure
    """The batch: sequences decoding together."""
    first_token: Step


def measured_bandwidth_share(data: SiteData) -> Figure:
    """The share of its spec sheet's bandwidth data/throughput.yaml's measured run reached."""
    run = data.measurement(data.speed.bandwidth_measurement)
    return throughput.bandwidth_share(achieved_bandwidth(run), card_bandwidth(data.gpu(run.gpu)))


def card_rates(speed: SpeedData, gpu: Gpu, weight_format: WeightFormat, share_of_bandwidth: Figure) -> Rates:
    """What one card achieves for weights in ``weight_format``: its spec sheet's bandwidth × the measured share,
    and its dense rate in the format it computes in × the matmul share."""
    fmt = throughput.compute_format(weight_format, gpu)
    bandwidth, tflops, links = throughput.card_figures(gpu, fmt)
    return throughput.rates(bandwidth, share_of_bandwidth, tflops, throughput.matmul_share(speed.matmuls, gpu.id, fmt),
                            links)


@lru_cache(maxsize=1024)
def read_parts(model: CatalogueModel, weight_format: WeightFormat) -> tuple[Figure, Figure]:
    """The bytes a decode step reads whatever its batch (every weight but the routed experts', one row of the
    embedding table), and the bytes of all the routed experts (none for a dense model)."""
    every = weight_formats.decode_read(model, weight_format, given(1, "", FACTOR, "every expert"))
    experts = weight_formats.class_bytes(model, weight_format, "experts") if model.experts else Decimal(0)
    dense = Figure(every.value - experts, "B", COUNT, "weights read but the routed experts'")
    return dense, Figure(experts, "B", COUNT, "routed experts")


@lru_cache(maxsize=8192)
def weights_read(model: CatalogueModel, weight_format: WeightFormat, tokens: int) -> Figure:
    """The weights a step of ``tokens`` tokens reads (B): of the routed experts, every one some token picks."""
    dense, experts = read_parts(model, weight_format)
    if model.experts is None:
        return throughput.weights_read(dense, experts, None)
    share = throughput.expert_share(model.experts.total, model.experts.active, tokens)
    return throughput.weights_read(dense, experts, share)


def sequence_bytes(model: CatalogueModel, kv_format: KvCacheFormat, context: int) -> Figure:
    """What one sequence of ``context`` tokens keeps: its KV cache and its state (B)."""
    return attention.sequence_bytes(attention.model_layers(model), element_bytes(kv_format), context)


def decode_work(model: CatalogueModel, weight_format: WeightFormat, kv_format: KvCacheFormat, context: int,
                sequences: int) -> Work:
    """A decode step of ``sequences`` sequences at ``context`` tokens: the weights, and each one's cache and
    state."""
    return throughput.decode_work(weights_read(model, weight_format, sequences),
                                  sequence_bytes(model, kv_format, context), sequences,
                                  model.active_params_billion, model.layer_count, model.hidden_size)


def decode_step(model: CatalogueModel, weight_format: WeightFormat, per_sequence: Figure, sequences: int,
                card: Rates, cards: int, by_tensor: bool, layer_seconds: Decimal) -> Step:
    """A decode step of ``sequences`` sequences that each keep ``per_sequence`` bytes, on ``cards`` cards."""
    work = throughput.decode_work(weights_read(model, weight_format, sequences), per_sequence, sequences,
                                  model.active_params_billion, model.layer_count, model.hidden_size)
    return throughput.step(work, card, cards, by_tensor, layer_seconds)


def prefill_work(model: CatalogueModel, weight_format: WeightFormat, kv_format: KvCacheFormat, prompt: int) -> Work:
    """A prompt of ``prompt`` tokens at once: the weights its tokens route to, the cache it writes."""
    return prefill_work_of(model, weight_format, sequence_bytes(model, kv_format, prompt), prompt)


def prefill_work_of(model: CatalogueModel, weight_format: WeightFormat, written: Figure, prompt: int) -> Work:
    """``prefill_work`` with the bytes the prompt's cache takes given (``written``)."""
    return throughput.prefill_work(weights_read(model, weight_format, prompt), written, prompt,
                                   model.active_params_billion, model.layer_count, model.hidden_size)


def serving_batch(answer: Verdict, model: CatalogueModel, kv_format: KvCacheFormat, context: int,
                  asked: int) -> Figure | None:
    """The sequences the engine decodes together at ``context``; None where it holds not one."""
    if sized_to_request(answer.engine):
        return given(asked, "sequences", COUNT, "sequences asked for")
    settings = dict(answer.budget.settings) if answer.budget else {}
    limit = settings.get(engine.sequence_limit) if (engine := answer.engine).sequence_limit else None
    return full_batch(sequences_held(answer, model, kv_format, context), engine, limit)


def full_batch(held: Figure | None, engine: Engine, limit: Decimal | int | None) -> Figure | None:
    """The sequences the room holds, at most ``limit``, the engine's limit on sequences (its ``sequence_limit``
    setting; None: it has none)."""
    if held is None or limit is None or held.value <= limit:
        return held
    return given(limit, "sequences", COUNT, f"the engine's limit on sequences ({engine.sequence_limit})")


def sequence_limit(engine: Engine, card: Gpu) -> Decimal | None:
    """The engine's default limit on the sequences it decodes at once on ``card``; None: it has none."""
    if engine.sequence_limit is None:
        return None
    return engine.setting(engine.sequence_limit).default_for(card_gib(card).value)


def served_speed(model: CatalogueModel, weight_format: WeightFormat, kv_format: KvCacheFormat, answer: Verdict,
                 card: Rates, context: int, asked: int, layer_seconds: Decimal) -> ServedSpeed | None:
    """The configuration's steps at ``context``; None where the engine does not hold one sequence there, or the
    card's dense rate is not known (data/gpus.yaml dense_tflops)."""
    sequences = serving_batch(answer, model, kv_format, context, asked)
    if not answer.fits or sequences is None or card.matmul is None:
        return None
    by_tensor = not sized_to_request(answer.engine)

    def timed(work: Work) -> Step:
        return throughput.step(work, card, answer.cards, by_tensor, layer_seconds)

    return ServedSpeed(one=timed(decode_work(model, weight_format, kv_format, context, 1)),
                       batch=timed(decode_work(model, weight_format, kv_format, context, int(sequences.value))),
                       sequences=sequences,
                       first_token=timed(prefill_work(model, weight_format, kv_format, context)))
