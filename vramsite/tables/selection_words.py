"""What the pages call the lookup's answer under each selection rule (sizing.yaml ``lookup.selection``).

Under ``cheapest`` the answer is the cheapest card that holds a need; under ``smallest_fit`` it is the
smallest. Every caption, column head and label that names the answer takes its msgid from here, so a site
that switches the rule is reworded everywhere at once. Content prose makes the same choice with
``g.picks_cheapest`` (calc/guide.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..load.model import Selection


@dataclass(frozen=True)
class SelectionWords:
    rule: str
    """The rule's name, over the calculator's answer. The cheapest rule takes a single card before several,
    so its name says so: the offers listed below the answer may include cheaper pairs of cards."""
    lookup_caption: str
    """The lookup grid's caption."""
    start_column: str
    """The model catalogue's column of answers: where the model's engine starts it in its own format."""
    methods_caption: str
    """A model page's table of answers by method; ``{model}`` is the model."""
    methods_column: str
    """That table's column of answers."""


WORDS = {
    Selection.CHEAPEST: SelectionWords(
        rule="Cheapest fit (one card first)",
        lookup_caption="The cheapest card that fits",
        start_column="Cheapest where it starts (one card first)",
        methods_caption="The cheapest card for {model}, by method",
        methods_column="Cheapest configuration",
    ),
    Selection.SMALLEST_FIT: SelectionWords(
        rule="Smallest fit",
        lookup_caption="The smallest card that fits",
        start_column="Smallest where it starts",
        methods_caption="The smallest card for {model}, by method",
        methods_column="Smallest configuration",
    ),
}


def selection_words(selection: Selection) -> SelectionWords:
    return WORDS[selection]
