"""`build.py model add CONFIG`: one model's config read, counted and appended to the site's catalogue.

Every problem is gathered first (the config's keys, the options, the id
already taken, what the catalogue's schema refuses in the entry) and reported
together; the file is written only when there is none, in one step, under
the site's edit lock and only if it is still the bytes read
(data_file.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from ..errors import InputError, Problem
from ..load.assemble import load_weight_formats
from ..load.text import text_problem
from ..publish.lock import editing_sources
from ..units import BILLION, billions
from .catalogue_file import CATALOGUE_FILE, entry_text, existing_ids, load_catalogue, with_entry
from .data_file import read_data_file
from .entry import Parameters, Source, catalogue_entry, entry_problems
from .hf_config import ModelConfig, read_model_config
from .json_file import JsonFile, parse_json, read_json
from .params import ParameterCount, count_from_index, parameter_count, tensor_classes

SLUG = re.compile(r"[a-z0-9][a-z0-9.-]*\Z")
MAX_BILLIONS = Decimal(100_000)
MAX_TEXT = 200
HUB_CACHE = re.compile(r"models--(?P<owner>[^/]+?)--(?P<name>[^/]+)/snapshots/(?P<revision>[0-9a-f]{7,64})/")
"""Where huggingface_hub keeps a download: .../models--OWNER--NAME/snapshots/REVISION/config.json."""


@dataclass(frozen=True)
class AddOptions:
    """The command line's choices; None where not given."""

    index: Path | None = None
    model_id: str | None = None
    name: str | None = None
    params_billion: str | None = None
    active_params_billion: str | None = None
    params_from: str | None = None
    params_note: str | None = None
    source_repository: str | None = None
    source_file: str = "config.json"
    source_revision: str | None = None
    rope_scaling: str | None = None
    """a RoPE scaling as JSON, as ``vllm serve --rope-scaling`` takes it"""
    rope_scaling_source: str | None = None
    dry_run: bool = False


def add_model(site: Path, config_path: Path, options: AddOptions, shown_site: str | None = None) -> tuple[str, str]:
    """The entry as YAML, and a one-line summary of what was written. Raises InputError, writing nothing."""
    catalogue_name = f"{shown_site}/{CATALOGUE_FILE}" if shown_site else CATALOGUE_FILE
    problems: list[Problem] = []
    read = _read_config(site, config_path, options, shown_site, problems)
    with editing_sources(site):
        catalogue = _gathered(problems, read_data_file, site, CATALOGUE_FILE, catalogue_name)
        document = _gathered(problems, load_catalogue, catalogue.text, catalogue_name) if catalogue else None
        taken = existing_ids(document) if document is not None else None
        if taken and read.model_id in taken:
            problems.append(Problem(catalogue_name, taken[read.model_id], "id",
                                    f"{read.model_id!r} is already in the catalogue; give another --id"))
        entry = _entry(read, options, problems)
        shown = entry_text(entry, options.params_note)
        if options.dry_run:
            return shown, f"{catalogue_name}: {read.model_id} not added (--dry-run: nothing written)"
        catalogue.replace(with_entry(document, entry, options.params_note), "model add")
    return shown, f"{catalogue_name}: added {read.model_id}"


def config_entry(site: Path, config_path: Path, options: AddOptions) -> dict:
    """The entry ``add_model`` would append for the config, its problems raised as it raises them, but with the
    catalogue left unread (its ids unchecked): for a caller that appends it to a catalogue of its own."""
    problems: list[Problem] = []
    return _entry(_read_config(site, config_path, options, None, problems), options, problems)


@dataclass(frozen=True)
class _Read:
    """What a config and the options give, each None where a problem was found instead."""

    file: JsonFile | None
    config: ModelConfig | None
    parameters: Parameters | None
    source: Source | None
    model_id: str | None
    name: str | None


def _read_config(site: Path, config_path: Path, options: AddOptions, shown_site: str | None,
                 problems: list[Problem]) -> _Read:
    config_name = str(config_path)
    file = _gathered(problems, read_json, config_path, config_name)
    formats = _gathered(problems, load_weight_formats, site, shown_site)
    rope = _rope_scaling(options, problems)
    config = (_gathered(problems, read_model_config, file, formats, rope)
              if file and formats is not None and rope is not False else None)
    parameters = _parameters(config, config_name, options, problems) if config else None
    source, model_id, name = _identity(config_path, options, problems)
    return _Read(file, config, parameters, source, model_id, name)


def _entry(read: _Read, options: AddOptions, problems: list[Problem]) -> dict:
    """The catalogue entry; InputError with every problem, those found before among them, where there is any."""
    if problems:
        raise InputError(problems)
    entry = catalogue_entry(read.model_id, read.name, read.config, read.parameters, read.source,
                            options.rope_scaling_source)
    problems = entry_problems(entry, read.config, read.file, read.parameters)
    if problems:
        raise InputError(problems)
    return entry


def _rope_scaling(options: AddOptions, problems: list[Problem]) -> JsonFile | None | bool:
    """The scaling given, parsed; None where none is; False where it is not a JSON object."""
    if options.rope_scaling is None:
        if options.rope_scaling_source is not None:
            problems.append(Problem("--rope-scaling-source", None, "", "given without --rope-scaling"))
            return False
        return None
    if options.rope_scaling_source is None:
        problems.append(Problem("--rope-scaling-source", None, "", "missing: say where the model's vendor "
                                                                   "documents the scaling"))
    rope = _gathered(problems, parse_json, options.rope_scaling, "--rope-scaling", "a RoPE scaling")
    return False if rope is None else rope


def _gathered(problems: list[Problem], read, *args):
    """``read(*args)``, or None with its problems added to ``problems``."""
    try:
        return read(*args)
    except InputError as error:
        problems.extend(error.problems)
        return None


def _parameters(config: ModelConfig, config_name: str, options: AddOptions,
                problems: list[Problem]) -> Parameters | None:
    if options.params_billion is not None or options.active_params_billion is not None:
        return _published(config, options, problems)
    if options.params_from is not None:
        problems.append(Problem("--params-from", None, "", "published needs --params-billion N"))
    if options.index is not None:
        index = _gathered(problems, read_json, options.index, str(options.index))
        count = _gathered(problems, count_from_index, config, config_name, index) if index else None
        source = "index"
    else:
        count, source = parameter_count(config), "computed"
    return _stated(config, count, source, config_name, problems) if count else None


def _stated(config: ModelConfig, count: ParameterCount, source: str, config_name: str,
            problems: list[Problem]) -> Parameters | None:
    """The count in billions, as the catalogue states it; a problem when that is 0.00 or beyond any model."""
    within = count.total <= MAX_BILLIONS * BILLION  # compared whole first: billions() rounds to 28 digits
    total, active = (billions(count.total), billions(count.active)) if within else (None, None)
    if not within or not 0 < active <= total:
        problems.append(Problem(config_name, None, "", f"its sizes give {count.total:,} parameters "
                                                       f"({count.active:,} per token): not a model the catalogue "
                                                       f"can state (0.01 to {MAX_BILLIONS} billion)"))
        return None
    return Parameters(total, active, source, tensor_classes(config))


def _published(config: ModelConfig, options: AddOptions, problems: list[Problem]) -> Parameters | None:
    """The model card's total; the active count the card's where given (a mixture of experts), else the config's
    (all but the embedding table and the experts not routed to)."""
    before = len(problems)
    if options.params_from != "published":
        problems.append(Problem("--params-from", None, "", "say where --params-billion comes from: "
                                                           "--params-from published"))
    if options.index is not None:
        problems.append(Problem("--index", None, "", "give either --index or --params-billion, not both"))
    total = _billions("--params-billion", options.params_billion, problems)
    classes = tensor_classes(config)
    if options.active_params_billion is None:
        active = billions(classes.active(config.hidden_size))
    else:
        active = _billions("--active-params-billion", options.active_params_billion, problems)
        if config.experts is None:
            problems.append(Problem("--active-params-billion", None, "",
                                    "a dense model reads all but its embedding table per token, as its config "
                                    "gives it: leave it out"))
    if total is not None and active is not None and active > total:
        problems.append(Problem("--active-params-billion", None, "", f"{active} is more than the total {total}"))
    return None if len(problems) > before else Parameters(total, active, "published", classes)


def _billions(option: str, text: str | None, problems: list[Problem]) -> Decimal | None:
    if text is None:
        problems.append(Problem(option, None, "", "missing"))
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        value = None
    if value is None or not value.is_finite() or not 0 < value <= MAX_BILLIONS:
        problems.append(Problem(option, None, "", f"{text!r} is not a parameter count in billions "
                                                  f"(a number above 0 and at most {MAX_BILLIONS})"))
        return None
    return value


def _identity(config_path: Path, options: AddOptions,
              problems: list[Problem]) -> tuple[Source | None, str | None, str | None]:
    """Where the config comes from, and the entry's id and name: as given, else from a hub download's path."""
    cached = HUB_CACHE.search(config_path.resolve().as_posix())
    repository = options.source_repository or (f"{cached['owner']}/{cached['name']}" if cached else None)
    revision = options.source_revision or (cached["revision"] if cached else None)
    for option, value in (("--source-repository", repository), ("--source-revision", revision)):
        if value is None:
            problems.append(Problem(option, None, "", "missing: say where the config comes from (the catalogue "
                                                      "records each model's source)"))
    model_id = options.model_id or (repository.rsplit("/", 1)[-1].lower() if repository else None)
    if model_id is not None and not SLUG.match(model_id):
        problems.append(Problem("--id", None, "", f"{model_id!r} is not an id: lowercase letters, digits, dots "
                                                  "and dashes, starting with a letter or digit"))
        model_id = None
    name = options.name or (repository.rsplit("/", 1)[-1] if repository else None)
    texts = (("--name", name), ("--source-repository", repository), ("--source-file", options.source_file),
             ("--source-revision", revision), ("--params-note", options.params_note),
             ("--rope-scaling-source", options.rope_scaling_source))
    for option, value in texts:
        problem = _text_problem(value)
        if problem:
            problems.append(Problem(option, None, "", problem))
    if None in (repository, revision, name):
        return None, model_id, name
    return Source(repository, options.source_file, revision), model_id, name


def _text_problem(value: str | None) -> str | None:
    if value is None:
        return None
    if not value.strip():
        return "must not be empty"
    if len(value) > MAX_TEXT:
        return f"longer than {MAX_TEXT} characters"
    return text_problem(value)
