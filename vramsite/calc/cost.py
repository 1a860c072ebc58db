"""What cards cost: per period, per hour, per week, per order, per GB."""

from __future__ import annotations

from decimal import Decimal

from ..load.cards import card_entry
from ..load.model import Discount, Gpu, Period, Pricing
from . import rules
from .figure import (
    COUNT,
    EFFICIENCY,
    FACTOR,
    PERCENT,
    PRICE,
    RATE,
    Figure,
    Formula,
    difference,
    given,
    product,
    quotient,
)

MEMORY_GB = card_entry("memory_gb").figure
BANDWIDTH_GBPS = card_entry("bandwidth_gbps").figure
HOURS_PER_DAY = 24
DAYS_PER_WEEK = 7


def _price_kind(pricing: Pricing) -> str:
    """A monthly price is a whole-dollar amount; an hourly one is a rate."""
    return PRICE if pricing.period == Period.MONTH else RATE


def unit_price(gpu: Gpu, pricing: Pricing) -> Figure | None:
    """One card for one billing period, as the price list states it."""
    return listed_price(pricing.usd.get(gpu.id), pricing)


def listed_price(usd: Decimal | None, pricing: Pricing) -> Figure | None:
    """A price of the list (now or in the history) as a figure in the list's period; None where none is given."""
    if usd is None:
        return None
    unit = "USD/month" if pricing.period == Period.MONTH else "USD/GPU-hour"
    return given(usd, unit, _price_kind(pricing), "price per card")


def monthly_price(gpu: Gpu, pricing: Pricing) -> Figure | None:
    price = unit_price(gpu, pricing)
    if price is None or pricing.period == Period.MONTH:
        return price
    if pricing.hours_per_month is None:
        return None
    return product(price, _hours_per_month(pricing), unit="USD/month", kind=PRICE, label="price per month")


def hourly_price(gpu: Gpu, pricing: Pricing) -> Figure | None:
    """Price per GPU-hour: a monthly price spread over the month's hours."""
    price = unit_price(gpu, pricing)
    if price is None or pricing.period == Period.HOUR:
        return price
    return quotient(price, _hours_per_month(pricing), unit="USD/GPU-hour", kind=RATE, label="price per GPU-hour")


def weekly_price(gpu: Gpu, pricing: Pricing) -> Figure | None:
    """A week at the hourly rate: price per hour × 24 × 7."""
    hourly = hourly_price(gpu, pricing)
    if hourly is None:
        return None
    return product(hourly, given(HOURS_PER_DAY, "hours", COUNT), given(DAYS_PER_WEEK, "days", COUNT),
                   unit="USD/week", kind=PRICE, label="price per week")


def _hours_per_month(pricing: Pricing) -> Figure:
    return given(pricing.hours_per_month, "hours", COUNT, "hours per month")


def discount_percent(count: int, discounts: tuple[Discount, ...]) -> Figure:
    return given(rules.discount_percent(count, discounts), "%", PERCENT, "discount")


def order_price(gpu: Gpu, count: int, pricing: Pricing, discounts: tuple[Discount, ...]) -> Figure | None:
    """count × price per card × (1 − discount): the price of renting them together (``rules.order_usd``)."""
    price = unit_price(gpu, pricing)
    if price is None:
        return None
    discount = discount_percent(count, discounts)
    # Several cards at an hourly rate cost so much per hour, not per GPU-hour.
    unit = "USD/hour" if count > 1 and price.unit == "USD/GPU-hour" else price.unit
    terms = (given(count, "cards", COUNT), price)
    if count > 1 and discount.value != 0:
        share = Figure(value=rules.discount_share(discount.value), unit="", kind=FACTOR, label="discount",
                       formula=discount.formula)
        kept = Figure(value=rules.kept_share(discount.value), unit="", kind=FACTOR, label="after discount",
                      formula=Formula("−", (given(1), share)))
        terms += (kept,)
    return Figure(value=rules.order_usd(price.value, count, discounts), unit=unit, kind=price.kind, label="order price",
                  formula=Formula("×", terms))


def per_card_hour(order: Figure, count: int, pricing: Pricing) -> Figure:
    """An order's price per card per hour: order ÷ cards (÷ hours per month for monthly prices)."""
    cards = given(count, "cards", COUNT)
    if pricing.period == Period.HOUR:
        return quotient(order, cards, unit="USD/GPU-hour", kind=RATE, label="price per GPU-hour")
    hours = product(cards, _hours_per_month(pricing), unit="hours", kind=COUNT, label="card-hours per month")
    return quotient(order, hours, unit="USD/GPU-hour", kind=RATE, label="price per GPU-hour")


def usd_per_gb(gpu: Gpu, pricing: Pricing) -> Figure | None:
    """Monthly price ÷ memory: what one GB costs for a month."""
    monthly = monthly_price(gpu, pricing)
    if monthly is None:
        return None
    return quotient(monthly, card_memory(gpu), unit="USD/GB/month", kind=RATE, label="price per GB")


def gbps_per_usd(gpu: Gpu, pricing: Pricing) -> Figure | None:
    """Bandwidth ÷ monthly price: GB/s bought by one dollar a month. Higher is better."""
    monthly = monthly_price(gpu, pricing)
    if monthly is None:
        return None
    return quotient(card_bandwidth(gpu), monthly, unit="GB/s per USD/month", kind=EFFICIENCY,
                    label="bandwidth per dollar")


def card_memory(gpu: Gpu) -> Figure:
    """``memory_gb`` as load/cards.py declares its figure (GB)."""
    return given(gpu.memory_gb, MEMORY_GB.unit, MEMORY_GB.kind, MEMORY_GB.label)


def card_bandwidth(gpu: Gpu) -> Figure:
    """``bandwidth_gbps`` as load/cards.py declares its figure (GB/s)."""
    return given(gpu.bandwidth_gbps, BANDWIDTH_GBPS.unit, BANDWIDTH_GBPS.kind, BANDWIDTH_GBPS.label)


def cheaper_by(cheap: Figure, dear: Figure) -> Figure:
    """1 − cheap ÷ dear, in percent: how much less the cheap option costs."""
    ratio = quotient(cheap, dear, unit="", kind=FACTOR)
    return Figure(value=(1 - ratio.value) * 100, unit="%", kind=PERCENT, label="cheaper by",
                  formula=difference(given(1), ratio).formula)


def share_of(part: Figure, whole: Figure) -> Figure:
    """part ÷ whole, in percent."""
    return quotient(part, whole, unit="%", kind=PERCENT, label="share", scale=Decimal(100))


SECONDS_PER_HOUR = 3600
TOKENS_PER_MILLION = 10 ** 6


def usd_per_million_tokens(hourly: Figure, tokens_per_second: Figure) -> Figure:
    """What a million tokens cost at a rate: price per hour ÷ (tokens per second × 3,600) × 10⁶."""
    per_hour = product(tokens_per_second, given(SECONDS_PER_HOUR, "s", COUNT, "seconds per hour"),
                       unit="tokens/hour", kind=COUNT, label="tokens per hour")
    return quotient(hourly, per_hour, unit="USD/M tokens", kind=RATE, label="price per million tokens",
                    scale=Decimal(TOKENS_PER_MILLION))
