"""Editing a copy of a site's data the way an editor would, and rendering one page of it in-process."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml

from cli_support import copy_sources
from seed_sites import assemble_seed_site
from vramsite.publish.site import SiteBuild


def read(site: Path, name: str) -> dict:
    return yaml.safe_load((site / "data" / f"{name}.yaml").read_text(encoding="utf-8"))


class _PlainDumper(yaml.SafeDumper):
    """Writes every value out in full: the site's YAML allows no anchors."""

    def ignore_aliases(self, data) -> bool:
        return True


def write(site: Path, name: str, document: dict) -> None:
    text = yaml.dump(document, Dumper=_PlainDumper, allow_unicode=True, sort_keys=False)
    (site / "data" / f"{name}.yaml").write_text(text, encoding="utf-8")


def site_copy(target: Path) -> Path:
    """The seed 000 site (its frozen data, the live content): what scenario edits start from."""
    return assemble_seed_site(target, "000")


def live_copy(target: Path) -> Path:
    """The repository's site as it is now."""
    return copy_sources(target)


def set_price(site: Path, card_id: str, usd) -> None:
    prices = read(site, "prices")
    for entry in prices["prices"]:
        if entry["gpu"] == card_id:
            entry["usd"] = usd
    write(site, "prices", prices)


def remove_card(site: Path, card_id: str) -> None:
    gpus, prices = read(site, "gpus"), read(site, "prices")
    gpus["gpus"] = [gpu for gpu in gpus["gpus"] if gpu["id"] != card_id]
    prices["prices"] = [entry for entry in prices["prices"] if entry["gpu"] != card_id]
    write(site, "gpus", gpus)
    write(site, "prices", prices)


def add_card(site: Path, like: str, card_id: str, usd, **fields) -> None:
    """A new card copied from ``like`` with ``fields`` changed, at ``usd`` a month."""
    gpus, prices = read(site, "gpus"), read(site, "prices")
    card = copy.deepcopy(next(gpu for gpu in gpus["gpus"] if gpu["id"] == like))
    card.pop("reported_memory", None)
    card.update(id=card_id, name=card_id.upper(), **fields)
    gpus["gpus"].append(card)
    prices["prices"].append({"gpu": card_id, "usd": usd})
    write(site, "gpus", gpus)
    write(site, "prices", prices)


def set_selection(site: Path, selection: str) -> None:
    """sizing.yaml's lookup.selection: cheapest or smallest_fit."""
    sizing = read(site, "sizing")
    sizing["lookup"]["selection"] = selection
    write(site, "sizing", sizing)


def rendered_page(site: Path, page_id: str) -> dict:
    """One page rendered in every language, by URL segment (``.markdown`` and ``.html`` bytes), from one build."""
    build = SiteBuild(site)
    page = next(page for page in build.pages if page.id == page_id)
    return {locale.segment: build.render_page(page, locale) for locale in build.data.site.locales}


def render_page(site: Path, page_id: str) -> dict[str, str]:
    """The Markdown twin of one page in every language, by URL segment."""
    return {segment: rendered.markdown.decode() for segment, rendered in rendered_page(site, page_id).items()}


def add_example_card(site: Path, usd: str, card_id: str = "rtx-pro-6000", name: str = "RTX PRO 6000",
                     link_gbps: int = 64, region: str | None = None) -> None:
    """The editors' guide's 'Add a card' example, typed at the end of gpus.yaml, and its price line."""
    regions = f"    regions:\n      - {{id: {region}, stock: 8}}\n" if region else ""
    append(site / "data" / "gpus.yaml", f"""
  - id: {card_id}
    name: {name}
    vendor: nvidia
    memory_gb: 96
    memory_type: GDDR7
    ecc: true
    bandwidth_gbps: 1792
    architecture: Blackwell
    launched: 2025
    features: [fp8]
    stack: cuda
    interconnect: {{kind: pcie-gen5, gbps: {link_gbps}, source: "PCIe 5 x16, one way"}}
{regions}""")
    append(site / "data" / "prices.yaml", f"  - {{gpu: {card_id}, usd: {usd}}}\n")


def append(path: Path, text: str) -> int:
    """Add ``text`` at the end of the file, as an editor types it; return the line it starts on."""
    before = path.read_text(encoding="utf-8")
    if not before.endswith("\n"):
        before += "\n"
    path.write_text(before + text, encoding="utf-8")
    return before.count("\n") + 1
