"""A model's catalogue entry (data/catalogue.yaml's format) from its checked config and parameter count, and
what the catalogue's schema refuses in it, named where the config or the command line gave it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from ..errors import Problem
from ..load.model import ParameterClasses
from ..load.schema import schema_problems
from ..load.yaml_source import YamlDocument
from .config_values import ConfigSection
from .hf_config import ModelConfig, expert_count_key
from .json_file import JsonFile
from .rope import Context

CATALOGUE_SCHEMA = "catalogue.schema.json"
CONFIG_KEYS = {
    "hidden_size": "hidden_size", "attention_heads": "num_attention_heads", "max_context": "max_position_embeddings",
    "vocab_size": "vocab_size", "count": "num_hidden_layers", "active": "num_experts_per_tok",
    "shared": "n_shared_experts", "native_format": "torch_dtype",
}
"""An entry's field -> the key of the config's text model it is read from (hf_config.py); a layer group's own
fields are read from its kind's ``config_keys``, and ``experts.total`` from whichever expert count the config
gives (``expert_count_key``)."""
GROUP_FIELD = re.compile(r"layers\[(?P<index>\d+)\]\.(?P<field>\w+)")
OPTIONS = {"id": "--id", "name": "--name", "repository": "--source-repository", "file": "--source-file",
           "revision": "--source-revision", "rope_scaling": "--rope-scaling", "as_shipped": "--rope-scaling",
           "rope_type": "--rope-scaling", "factor": "--rope-scaling",
           "original_max_position_embeddings": "--rope-scaling", "source": "--rope-scaling-source"}
"""An entry's field -> the option that gives it."""
PUBLISHED = {"params_billion": "--params-billion", "active_params_billion": "--active-params-billion"}
"""The counts' options, when they give the counts (params_from: published)."""
FIELD = re.compile(r"models\[[^\]]*\]\.?(?P<field>.*)")


@dataclass(frozen=True)
class Parameters:
    """The counts an entry states, in billions, and where they come from: computed, index or published."""

    total: Decimal
    active: Decimal
    source: str
    classes: ParameterClasses
    """Every parameter by tensor class, counted from the config."""


@dataclass(frozen=True)
class Source:
    repository: str
    file: str
    revision: str


def catalogue_entry(model_id: str, name: str, config: ModelConfig, parameters: Parameters,
                    source: Source, scaling_source: str | None = None) -> dict:
    """The entry's keys in the catalogue's order; ``scaling_source`` where a RoPE scaling was given beside the
    config, the vendor's page that documents it."""
    entry = {
        "id": model_id, "name": name, "architecture": config.architecture,
        "params_billion": parameters.total, "active_params_billion": parameters.active,
        "params_from": parameters.source,
        **({"native_format": config.native_format} if config.native_format else {}),
        "parameters": parameters.classes.as_dict(),
        "hidden_size": config.hidden_size, "attention_heads": config.attention_heads,
        "max_context": config.max_context,
        **({"context_scaling": context_scaling(config.context, scaling_source)}
           if config.context.given_scaling else {}),
        "vocab_size": config.vocab_size,
        "layers": layer_groups(config),
    }
    if config.experts is not None:
        experts = config.experts
        entry["experts"] = {"total": experts.total, "active": experts.active, "shared": experts.shared}
    entry["source"] = {"repository": source.repository, "file": source.file, "revision": source.revision}
    return entry


def context_scaling(context: Context, source: str | None) -> dict:
    """The RoPE scaling given beside the config, the context without it, and where the vendor documents it."""
    given = context.given_scaling
    scaling = {"rope_type": given.kind, "factor": given.factor}
    if given.original is not None:
        scaling["original_max_position_embeddings"] = given.original
    return {"rope_scaling": scaling, "as_shipped": context.as_shipped, "source": source}


def layer_groups(config: ModelConfig) -> list[dict]:
    """One group per kind of layer, in the order the kinds first appear; the counts sum to the layers."""
    return [{"kind": group.kind.kind, "count": config.layer_kinds.count(group.kind), **group.fields}
            for group in config.layer_fields]


def entry_problems(entry: dict, config: ModelConfig, file: JsonFile, parameters: Parameters) -> list[Problem]:
    """What data/catalogue.yaml's schema refuses in ``entry``, as ``build.py check`` would, each named where
    the value was given: the config's key at its line, or the command's option."""
    document = YamlDocument(file.name, {"models": [entry]})
    return [_where_given(FIELD.fullmatch(problem.field)["field"], problem.message, config, file, parameters)
            for problem in schema_problems(document, CATALOGUE_SCHEMA)]


def _where_given(field: str, message: str, config: ModelConfig, file: JsonFile, parameters: Parameters) -> Problem:
    message = f"{message} (as the catalogue's {field})"
    leaf = re.split(r"[.\[\]]+", field.strip(".[]"))[-1]
    option = OPTIONS.get(leaf) or (PUBLISHED.get(leaf) if parameters.source == "published" else None)
    if option:
        return Problem(option, None, "", message)
    section = ConfigSection(file, config.family.text_path, [])
    key = expert_count_key(section) if field == "experts.total" else _group_key(field, config) or CONFIG_KEYS.get(leaf)
    if key is None:
        return Problem(file.name, None, "", message)
    return Problem(file.name, file.line_of((*section.path, key)), section.field(key), message)


def _group_key(field: str, config: ModelConfig) -> str | None:
    """The config key a layer group's field is read from: its kind's ``config_keys``."""
    found = GROUP_FIELD.fullmatch(field)
    if found is None or int(found["index"]) >= len(config.layer_fields):
        return None
    return config.layer_fields[int(found["index"])].kind.config_keys.get(found["field"])
