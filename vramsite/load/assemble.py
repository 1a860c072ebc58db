"""Load a site's data/ folder into a checked ``SiteData``.

Three passes, each reporting every problem it finds before stopping:
parse (YAML) -> schema (shape, types, ranges) -> cross-references (ids that
must exist, entries that must be unique, fields a formula needs).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from babel import Locale, UnknownLocaleError

from ..units import billions
from ..errors import InputError, Problem
from .model import (
    Adapter,
    CatalogueModel,
    ContextScaling,
    Checkpoint,
    Experts,
    full_attention,
    LayerGroup,
    LogNames,
    OlderLogs,
    ModelSource,
    ParameterClasses,
    ParamsFrom,
    PartRule,
    Storage,
    TENSOR_CLASSES,
    WeightFormat,
    WeightLayout,
    Discount,
    Engine,
    EngineLog,
    Engines,
    EngineSetting,
    EngineTerm,
    Finetune,
    KvCacheFormat,
    Gpu,
    Inference,
    LocaleConfig,
    LookupRules,
    Method,
    MethodKind,
    Model,
    Payment,
    Period,
    Precision,
    Pricing,
    Reference,
    MeasuredBandwidth,
    MeasuredInference,
    MeasuredShape,
    MeasuredTraining,
    MeasuredMatmul,
    Measurement,
    Selection,
    SiteConfig,
    SiteData,
    SiteRegion,
    SpeedData,
    Snapshot,
)
from .cards import FIELDS, plausible_report
from .price_history import price_history
from .schema import readable_path, schema_problems
from .yaml_source import YamlDocument, read_yaml

DATA_FILES = ("site", "models", "gpus", "prices", "discounts", "sizing")
"""Each is data/<name>.yaml, checked by vramsite/schemas/<name>.schema.json."""
OPTIONAL_DATA_FILES = ("catalogue", "weight_formats", "engines", "engine_logs", "throughput", "price_history")
"""Read and checked the same way where a site has them."""
MEASUREMENTS = "measurements"
"""data/measurements/<run>.yaml: a measuring run each, checked by measurements.schema.json, where a site has any."""

KV_FIELDS = ("layers", "kv_heads", "head_dim")
"""A reference shape's sizes in data/models.yaml, in ``full_attention``'s order."""


def load_site(root: Path, data_dir: str = "data") -> SiteData:
    """Read and check every data file under ``root/data_dir``."""
    return load_site_sources(root, data_dir)[0]


def load_site_sources(root: Path, data_dir: str = "data") -> tuple[SiteData, dict[str, YamlDocument]]:
    """``load_site``, and the documents it read (by name: "gpus"), for messages that point into them."""
    documents = _read_all(root, data_dir)
    checker = _Checker(documents)
    data = checker.assemble()
    if checker.problems:
        raise InputError(checker.problems)
    return data, documents


def _read_all(root: Path, data_dir: str) -> dict[str, YamlDocument]:
    documents: dict[str, YamlDocument] = {}
    problems: list[Problem] = []
    for name in DATA_FILES + OPTIONAL_DATA_FILES:
        shown = f"{data_dir}/{name}.yaml"
        path = root / data_dir / f"{name}.yaml"
        if not path.exists():  # anything else there, a FIFO or a folder, is read_source's to refuse by name
            if name not in OPTIONAL_DATA_FILES:
                problems.append(Problem(shown, None, "", "file is missing"))
            continue
        _read_one(path, shown, f"{name}.schema.json", name, documents, problems)
    for path in sorted((root / data_dir / MEASUREMENTS).glob("*.yaml")):
        _read_one(path, f"{data_dir}/{MEASUREMENTS}/{path.name}", f"{MEASUREMENTS}.schema.json",
                  f"{MEASUREMENTS}/{path.stem}", documents, problems)
    if problems:
        raise InputError(problems)
    return documents


def load_measurement(path: Path, data: SiteData, shown: str | None = None) -> Measurement:
    """One measurement file anywhere (a run just written), checked against the site ``data`` it will join."""
    documents: dict[str, YamlDocument] = {}
    problems: list[Problem] = []
    name = f"{MEASUREMENTS}/{path.stem}"
    _read_one(path, shown or str(path), f"{MEASUREMENTS}.schema.json", name, documents, problems)
    if problems:
        raise InputError(problems)
    checker = _Checker(documents)
    measurement = checker.measurement(name, data.gpus, data.precisions)
    if checker.problems:
        raise InputError(checker.problems)
    return measurement


def load_weight_formats(root: Path, shown_root: str | None = None, data_dir: str = "data") -> tuple[WeightFormat, ...]:
    """The site's data/weight_formats.yaml alone, read and checked as ``load_site`` does; () where it has none."""
    path = root / data_dir / "weight_formats.yaml"
    if not path.exists():
        return ()
    documents: dict[str, YamlDocument] = {}
    problems: list[Problem] = []
    shown = f"{data_dir}/weight_formats.yaml"
    _read_one(path, f"{shown_root}/{shown}" if shown_root else shown, "weight_formats.schema.json", "weight_formats",
              documents, problems)
    if problems:
        raise InputError(problems)
    checker = _Checker(documents)
    formats = checker.weight_formats()
    if checker.problems:
        raise InputError(checker.problems)
    return formats


def _read_one(path: Path, shown: str, schema: str, name: str, documents: dict, problems: list) -> None:
    """Parse and check one file; a valid one joins ``documents`` under ``name``, a broken one adds its problems."""
    try:
        document = read_yaml(path, shown)
    except InputError as error:
        problems.extend(error.problems)
        return
    found = schema_problems(document, schema)
    problems.extend(found)
    if not found:
        documents[name] = document


class _Checker:
    """Converts valid documents to typed objects, noting broken references."""

    def __init__(self, documents: dict[str, YamlDocument]):
        self.docs = documents
        self.problems: list[Problem] = []

    def problem(self, doc: str, path: tuple, message: str) -> None:
        document = self.docs[doc]
        self.problems.append(Problem(document.name, document.line_of(path), readable_path(document, path), message))

    def unique(self, doc: str, path: tuple, items: list[dict], key: str) -> None:
        seen: dict[object, int] = {}
        for index, item in enumerate(items):
            value = item[key]
            if value in seen:
                first = self.docs[doc].line_of(path + (seen[value],))
                self.problem(doc, path + (index, key), f"duplicate {key} {value!r} (first at line {first})")
            else:
                seen[value] = index

    # -- assembly ----------------------------------------------------------

    def assemble(self) -> SiteData:
        site = self.site()
        models = self.models()
        gpus = self.gpus(site)
        precisions = self.precisions()
        inference = self.inference(precisions)
        finetune = self.finetune()
        methods = self.methods(precisions, inference, finetune)
        lookup = self.lookup(methods)
        pricing = self.pricing(gpus)
        discounts = self.discounts(lookup)
        self.check_rentable_counts(gpus, lookup)
        self.check_kv_shape(methods)
        kv_precisions = self.kv_precisions()
        weight_formats = self.weight_formats()
        catalogue = self.catalogue(kv_precisions)
        self.check_native_formats(catalogue, weight_formats)
        measurements = tuple(self.measurement(name, gpus, precisions) for name in sorted(self.docs)
                             if name.startswith(MEASUREMENTS + "/"))
        engines = self.engines()
        self.check_engine_formats(engines, weight_formats)
        return SiteData(site=site, models=models, gpus=gpus, precisions=precisions, inference=inference,
                        finetune=finetune, methods=methods, lookup=lookup, pricing=pricing, discounts=discounts,
                        catalogue=catalogue, kv_precisions=kv_precisions, measurements=measurements,
                        weight_formats=weight_formats, engines=engines,
                        offered_formats=self.offered_formats(weight_formats),
                        assumed_native_format=self.assumed_native(catalogue, weight_formats),
                        engine_logs=self.engine_logs(gpus, catalogue, weight_formats, engines),
                        engine_log_names=self.engine_log_names(engines),
                        speed=self.speed(measurements),
                        price_history=price_history(self, gpus, pricing, _dec))

    def site(self) -> SiteConfig:
        raw = self.docs["site"].value
        self.unique("site", ("locales",), raw["locales"], "segment")
        self.unique("site", ("regions",), raw.get("regions", []), "id")
        self.unique("site", ("references",), raw.get("references", []), "id")
        locales = tuple(LocaleConfig(**item) for item in raw["locales"])
        self.check_languages_known(raw["locales"])
        segments = {locale.segment for locale in locales}
        for group, key in (("payments", "name"), ("regions", "city")):
            for index, item in enumerate(raw.get(group, [])):
                missing = sorted(segments - set(item[key]))
                if missing:
                    self.problem("site", (group, index, key), f"no {key} for {', '.join(missing)}")
        return SiteConfig(
            name=raw["name"],
            base_url=raw["base_url"].rstrip("/"),
            locales=locales,
            display=dict(raw["display"]),
            regions=tuple(SiteRegion(item["id"], dict(item["city"])) for item in raw.get("regions", [])),
            payments=tuple(Payment(item["symbol"], dict(item["name"])) for item in raw.get("payments", [])),
            identity_checks=raw.get("identity_checks"),
            deploy_seconds=raw.get("deploy_seconds"),
            node_host_memory_tb=_dec(raw.get("node_host_memory_tb")),
            marketplace=raw.get("marketplace"),
            references={item["id"]: Reference(id=item["id"], title=item["title"], url=item["url"],
                                              authors=item.get("authors"), label=item.get("label"),
                                              facts={key: _dec(value) for key, value in item.get("facts", {}).items()})
                        for item in raw.get("references", [])},
        )

    def check_languages_known(self, locales: list[dict]) -> None:
        """Each gettext id formats numbers and dates, each tag is printed as <html lang> and hreflang:
        both must name a known language, and the same one."""
        for index, item in enumerate(locales):
            formats = self._known_language(index, "gettext", "_", "an id such as en, de or zh_CN",
                                           "no number or date formats for it")
            tag = self._known_language(index, "tag", "-", "a BCP 47 tag such as en, de or zh-CN",
                                       "browsers and search engines would not know it")
            if formats is not None and tag is not None and formats.language != tag.language:
                self.problem("site", ("locales", index, "tag"),
                             f"tag {item['tag']!r} is the language {tag.language!r}, but gettext {item['gettext']!r} "
                             f"formats for {formats.language!r}; the page would say one language and print another")

    def _known_language(self, index: int, field: str, separator: str, example: str, why: str) -> Locale | None:
        text = self.docs["site"].value["locales"][index][field]
        try:
            return Locale.parse(text, sep=separator)
        except (UnknownLocaleError, ValueError):
            self.problem("site", ("locales", index, field), f"unknown language {text!r}: {why} (use {example})")
            return None

    def models(self) -> tuple[Model, ...]:
        raw = self.docs["models"].value["models"]
        self.unique("models", ("models",), raw, "id")
        models = []
        for index, item in enumerate(raw):
            heads, kv_heads = item.get("attention_heads"), item.get("kv_heads")
            if heads is not None and kv_heads is not None:
                if kv_heads > heads:
                    self.problem("models", ("models", index, "kv_heads"),
                                 f"{kv_heads} KV heads exceed {heads} attention heads")
                elif item.get("attention") == "mha" and kv_heads != heads:
                    self.problem("models", ("models", index, "kv_heads"), "mha keeps one KV head per attention head")
            fields = {key: value for key, value in item.items() if key not in KV_FIELDS}
            fields.update(params_billion=_dec(item["params_billion"]), examples=tuple(item.get("examples", ())),
                          layers=full_attention(*(item.get(name) for name in KV_FIELDS)))
            models.append(Model(**fields))
        return tuple(models)

    def gpus(self, site: SiteConfig) -> tuple[Gpu, ...]:
        """Each entry of gpus.yaml, field by field as load/cards.py declares them."""
        raw = self.docs["gpus"].value["gpus"]
        for entry in FIELDS:
            if entry.unique:
                self.unique("gpus", ("gpus",), raw, entry.key)
        gpus = []
        for index, item in enumerate(raw):
            for entry in FIELDS:
                if entry.check is not None and entry.key in item:
                    for path, message in entry.check(item[entry.key], item, site):
                        self.problem("gpus", ("gpus", index, entry.key, *path), message)
            gpus.append(Gpu(**{entry.key: entry.value(item) for entry in FIELDS if entry.on_gpu}))
        return tuple(gpus)

    def precisions(self) -> tuple[Precision, ...]:
        raw = self.docs["sizing"].value["precisions"]
        self.unique("sizing", ("precisions",), raw, "id")
        return tuple(
            Precision(item["id"], item["label"], _dec(item["bytes_per_param"]), item.get("requires_feature"))
            for item in raw
        )

    def kv_precisions(self) -> tuple[Precision, ...]:
        raw = self.docs["sizing"].value.get("kv_precisions", [])
        self.unique("sizing", ("kv_precisions",), raw, "id")
        return tuple(Precision(item["id"], item["label"], _dec(item["bytes"])) for item in raw)

    def catalogue(self, kv_precisions: tuple[Precision, ...]) -> tuple[CatalogueModel, ...]:
        if "catalogue" not in self.docs:
            return ()
        raw = self.docs["catalogue"].value["models"]
        self.unique("catalogue", ("models",), raw, "id")
        if not kv_precisions:
            self.problem("sizing", ("kv_precisions",),
                         "missing required field 'kv_precisions' (data/catalogue.yaml sizes KV caches in them)")
        models = []
        for index, item in enumerate(raw):
            self.check_catalogue_model(item, ("models", index))
            models.append(_catalogue_model(item))
        return tuple(models)

    def check_catalogue_model(self, item: dict, path: tuple) -> None:
        """What the schema cannot say: counts that must agree with one another."""
        total, active = _dec(item["params_billion"]), _dec(item["active_params_billion"])
        if active > total:
            self.problem("catalogue", path + ("active_params_billion",),
                         f"{active} billion active parameters exceed the {total} billion in total")
        if "parameters" in item:
            self.check_parameter_classes(item, path)
        experts = item.get("experts")
        if experts and experts["active"] > experts["total"]:
            self.problem("catalogue", path + ("experts", "active"),
                         f"{experts['active']} active experts exceed the {experts['total']} in total")
        if "context_scaling" in item:
            scaled = _context_scaling(item["context_scaling"]).tokens
            if scaled != item["max_context"]:
                self.problem("catalogue", path + ("max_context",),
                             f"{item['max_context']:,} tokens, but context_scaling gives {scaled:,}")
        heads = item["attention_heads"]
        for index, group in enumerate(item["layers"]):
            kv_heads = group.get("kv_heads")
            if kv_heads is not None and heads % kv_heads:
                self.problem("catalogue", path + ("layers", index, "kv_heads"),
                             f"{heads} attention heads cannot share {kv_heads} KV heads evenly "
                             "(each KV head serves a whole number of attention heads)")

    # -- weight formats and tensor classes (data/weight_formats.yaml, catalogue parameters) ---------------

    def check_parameter_classes(self, item: dict, path: tuple) -> None:
        """The classes are the model: they sum to a computed total, and a token reads a part of the experts."""
        classes = item["parameters"]
        if classes["experts_active"] > classes["experts"]:
            self.problem("catalogue", path + ("parameters", "experts_active"),
                         f"{classes['experts_active']:,} active expert parameters exceed the {classes['experts']:,} "
                         "of all experts")
        summed = sum(classes[name] for name in TENSOR_CLASSES)
        stated = _dec(item["params_billion"])
        if item["params_from"] == ParamsFrom.COMPUTED and billions(summed) != stated:
            self.problem("catalogue", path + ("parameters",),
                         f"the classes sum to {summed:,} parameters ({billions(summed)} billion), but "
                         f"params_billion is {stated}")

    def weight_formats(self) -> tuple[WeightFormat, ...]:
        if "weight_formats" not in self.docs:
            return ()
        raw = self.docs["weight_formats"].value
        self.unique("weight_formats", ("storage",), raw["storage"], "id")
        self.unique("weight_formats", ("formats",), raw["formats"], "id")
        storage = self.storage_types(raw["storage"])
        formats = tuple(self.weight_format(item, ("formats", index), storage)
                        for index, item in enumerate(raw["formats"]))
        self.check_checkpoints(formats)
        return formats

    def engine_logs(self, gpus, catalogue, formats, engines) -> tuple[EngineLog, ...]:
        """data/engine_logs.yaml: each log's engine, weight format and catalogue model named in the data; its card
        where the log names one of data/gpus.yaml."""
        if "engine_logs" not in self.docs:
            return ()
        known = {"engines": [engine.id for engine in engines.engines] if engines else [],
                 "weights": [weight_format.id for weight_format in formats],
                 "models": [model.id for model in catalogue], "cards": [gpu.id for gpu in gpus]}
        found = []
        for index, item in enumerate(self.docs["engine_logs"].value["cases"]):
            path = ("cases", index)
            for field, kind, what in (("engine", "engines", "engine"), ("weights", "weights", "weight format"),
                                      ("same_shape", "models", "catalogue model"), ("card", "cards", "card")):
                if item.get(field) is not None and item[field] not in known[kind]:
                    self.problem("engine_logs", path + (field,),
                                 f"unknown {what} {item[field]!r} (known: {', '.join(known[kind])})")
            model = item["model"] if item["model"] in known["models"] else item.get("same_shape")
            card = item.get("card") or (item["gpu"] if item["gpu"] in known["cards"] else None)
            found.append(EngineLog(id=item["id"], source=item["source"], engine=item["engine"],
                                   engine_version=item["engine_version"], model=model, weights=item["weights"],
                                   card=card, card_named=item["gpu"], memory_gib=_dec(item["gpu_memory_gib"]),
                                   cards=item["cards"], settings=tuple(item["settings"].items()),
                                   logged=tuple(item["logged"]), figures=tuple(item["figures"].items()),
                                   held_back=item["held_back"]))
        self.unique("engine_logs", ("cases",), self.docs["engine_logs"].value["cases"], "id")
        return tuple(found)

    def engine_log_names(self, engines: Engines | None) -> tuple[LogNames, ...]:
        """data/engine_logs.yaml ``engines``: each an engine of data/engines.yaml, one for every engine a case names."""
        if "engine_logs" not in self.docs:
            return ()
        raw = self.docs["engine_logs"].value
        known = [engine.id for engine in engines.engines] if engines else []
        found = []
        for engine_id, item in raw["engines"].items():
            if engine_id not in known:
                self.problem("engine_logs", ("engines", engine_id),
                             f"unknown engine {engine_id!r} (known: {', '.join(known)})")
            versions, older = item.get("versions"), item.get("older")
            found.append(LogNames(
                engine=engine_id, kv_cache=item["kv_cache"], context=item["context"], sequences=item.get("sequences"),
                settings=tuple(item.get("settings", {}).items()), whole_model_weights=item.get("whole_model_weights",
                                                                                               False),
                versions=(versions["from"], versions["before"]) if versions else None,
                older=OlderLogs(older["before"], older["line"], tuple((name, _dec(value))
                                                                for name, value in older["settings"].items()))
                if older else None))
        for index, case in enumerate(raw["cases"]):
            if case["engine"] in known and case["engine"] not in raw["engines"]:
                self.problem("engine_logs", ("cases", index, "engine"),
                             f"engine {case['engine']!r} has no entry in engines: say how its logs name its settings")
        return tuple(found)

    def offered_formats(self, formats: tuple[WeightFormat, ...]) -> tuple[str, ...]:
        """weight_formats.yaml ``offered``: ids of its formats."""
        if "weight_formats" not in self.docs:
            return ()
        offered = tuple(self.docs["weight_formats"].value.get("offered", ()))
        known = [weight_format.id for weight_format in formats]
        for index, format_id in enumerate(offered):
            if format_id not in known:
                self.problem("weight_formats", ("offered", index),
                             f"unknown weight format {format_id!r} (known: {', '.join(known)})")
        return offered

    def assumed_native(self, catalogue: tuple[CatalogueModel, ...], formats: tuple[WeightFormat, ...]) -> str | None:
        """weight_formats.yaml ``assumed_native``: a format's id, which every model naming no native format needs."""
        if "weight_formats" not in self.docs:
            return None
        assumed = self.docs["weight_formats"].value.get("assumed_native")
        known = [weight_format.id for weight_format in formats]
        if assumed is not None and assumed not in known:
            self.problem("weight_formats", ("assumed_native",),
                         f"unknown weight format {assumed!r} (known: {', '.join(known)})")
        if assumed is None:
            for index, model in enumerate(catalogue):
                if model.native_format is None:
                    self.problem("catalogue", ("models", index),
                                 "names no native_format, and data/weight_formats.yaml assumes none (assumed_native)")
        return assumed

    def storage_types(self, raw: list[dict]) -> dict[str, Storage]:
        """Each storage by id, its fallback resolved (a fallback names a storage listed before it)."""
        found: dict[str, Storage] = {}
        for index, item in enumerate(raw):
            path = ("storage", index)
            for first, second in (("block", "block_bits"), ("super_block", "super_block_bits")):
                if (first in item) != (second in item):
                    given, missing = (first, second) if first in item else (second, first)
                    self.problem("weight_formats", path + (given,), f"{given} needs {missing} beside it")
            fallback = None
            if "fallback" in item:
                fallback = found.get(item["fallback"])
                if fallback is None:
                    self.problem("weight_formats", path + ("fallback",),
                                 f"unknown storage {item['fallback']!r} (known above it: {', '.join(found) or 'none'})")
            found[item["id"]] = Storage(id=item["id"], element_bits=item["element_bits"], block=item.get("block"),
                                        block_bits=item.get("block_bits", 0), super_block=item.get("super_block"),
                                        super_block_bits=item.get("super_block_bits", 0),
                                        row_bits=item.get("row_bits", 0), fallback=fallback)
        return found

    def weight_format(self, item: dict, path: tuple, storage: dict[str, Storage]) -> WeightFormat:
        def find(storage_id: str, where: tuple) -> Storage:
            if storage_id not in storage:
                self.problem("weight_formats", path + where,
                             f"unknown storage {storage_id!r} (known: {', '.join(storage)})")
                return Storage(storage_id, 16)  # stands in so that every problem is found in one pass
            return storage[storage_id]

        given = item["tensors"]
        tensors = tuple((name, find(given.get(name, given["rest"]), ("tensors", name if name in given else "rest")))
                        for name in TENSOR_CLASSES)
        rules = tuple(PartRule(part=rule["part"], storage=find(rule["storage"], ("rules", index, "storage")),
                               layers=rule.get("layers", "all"), when_experts=rule.get("when", {}).get("experts"),
                               when_layers=rule.get("when", {}).get("layers"))
                      for index, rule in enumerate(item.get("rules", ())))
        return WeightFormat(id=item["id"], name=item["name"], tensors=tensors, rules=rules,
                            requires_feature=item.get("requires_feature"), source=item["source"],
                            checkpoint=self.checkpoint(item.get("checkpoint"), path + ("checkpoint",)))

    def checkpoint(self, item: dict | None, path: tuple) -> Checkpoint | None:
        """How a config names a checkpoint in the format: a torch_dtype, or a quant_method with its settings."""
        if item is None:
            return None
        if ("torch_dtype" in item) == ("quant_method" in item):
            self.problem("weight_formats", path, "give a torch_dtype or a quant_method (with its settings), not both")
        elif "settings" in item and "torch_dtype" in item:
            self.problem("weight_formats", path + ("settings",), "settings belong to a quant_method")
        return Checkpoint(item.get("torch_dtype"), item.get("quant_method"), tuple(item.get("settings", {}).items()),
                          item["source"])

    def check_checkpoints(self, formats: tuple[WeightFormat, ...]) -> None:
        """No two formats are named by the same config: the importer could not tell which a checkpoint is in."""
        seen: dict[tuple, str] = {}
        for index, weight_format in enumerate(formats):
            checkpoint = weight_format.checkpoint
            if checkpoint is None:
                continue
            named = (checkpoint.torch_dtype, checkpoint.quant_method, repr(sorted(checkpoint.settings)))
            if named in seen:
                self.problem("weight_formats", ("formats", index, "checkpoint"),
                             f"a config that names this format names {seen[named]!r} too")
            seen.setdefault(named, weight_format.id)

    def check_native_formats(self, catalogue: tuple[CatalogueModel, ...], formats: tuple[WeightFormat, ...]) -> None:
        """A model's native format names a format of data/weight_formats.yaml, where the site has that file."""
        if not formats:
            return
        known = {weight_format.id for weight_format in formats}
        for index, model in enumerate(catalogue):
            if model.native_format is not None and model.native_format not in known:
                self.problem("catalogue", ("models", index, "native_format"),
                             f"unknown weight format {model.native_format!r} (known: {', '.join(sorted(known))})")

    def check_engine_formats(self, engines: Engines | None, formats: tuple[WeightFormat, ...]) -> None:
        """The weight formats each engine loads are formats of data/weight_formats.yaml, and every format has an
        engine that loads it (else no verdict could name one)."""
        if engines is None or not formats:
            return
        known = [weight_format.id for weight_format in formats]
        for index, engine in enumerate(engines.engines):
            for position, format_id in enumerate(engine.weight_formats):
                if format_id not in known:
                    self.problem("engines", ("engines", index, "weight_formats", "ids", position),
                                 f"unknown weight format {format_id!r} (known: {', '.join(known)})")
        loaded = {format_id for engine in engines.engines for format_id in engine.weight_formats}
        for index, format_id in enumerate(known):
            if format_id not in loaded:
                self.problem("weight_formats", ("formats", index, "id"),
                             f"no engine of data/engines.yaml loads {format_id!r}: add it to an engine's weight_formats")

    def find_precision(self, precisions, precision_id: str, path: tuple, doc: str = "sizing") -> Precision | None:
        for precision in precisions:
            if precision.id == precision_id:
                return precision
        known = ", ".join(p.id for p in precisions)
        self.problem(doc, path, f"unknown precision {precision_id!r} (known: {known})")
        return None

    def measurement(self, doc: str, gpus: tuple[Gpu, ...], precisions: tuple[Precision, ...]) -> Measurement:
        """One measuring run: its card, shapes and precision must be the site's, its figures must agree."""
        raw = self.docs[doc].value
        by_gpu = {gpu.id: gpu for gpu in gpus}
        gpu = by_gpu.get(raw["gpu"])
        if gpu is None:
            self.problem(doc, ("gpu",), f"unknown card {raw['gpu']!r} (gpus.yaml has {', '.join(by_gpu)})")
        total_mib = raw["device"].get("total_mib")
        if gpu is not None and total_mib is not None and not plausible_report(gpu.memory_gb, total_mib):
            self.problem(doc, ("device", "total_mib"), f"{total_mib} MiB does not fit a card sold as "
                         f"{gpu.memory_gb} GB (give MiB, as nvidia-smi prints memory.total)")
        precision = self.find_precision(precisions, raw["settings"]["precision"], ("settings", "precision"), doc)
        shapes = self.measured_shapes(doc, raw["shapes"])
        context = raw.get("context", {})
        bandwidth = raw.get("bandwidth")
        finetune = raw.get("finetune", {})
        versions = tuple((key, raw["device"][key]) for key in ("driver", "cuda", "torch", "transformers", "peft")
                         if key in raw["device"])
        return Measurement(
            id=doc.split("/", 1)[1],
            gpu=raw["gpu"],
            date=raw["date"],
            provenance=raw["provenance"],
            device_name=raw["device"]["name"],
            memory_from=raw["settings"]["memory_from"],
            precision=precision,
            shapes=tuple(shapes.values()),
            inference=tuple(self.measured_inference(doc, index, item, shapes)
                            for index, item in enumerate(raw.get("inference", []))),
            total_mib=total_mib,
            used_mib_before=context.get("used_mib_before"),
            used_mib_after_workspace=context.get("used_mib_after_workspace"),
            bandwidth=MeasuredBandwidth(bandwidth["bytes"], _dec(bandwidth["median_s"]), _dec(bandwidth.get("best_s")))
            if bandwidth else None,
            lora=self.measured_training(doc, "lora", finetune.get("lora"), shapes),
            full=self.measured_training(doc, "full", finetune.get("full"), shapes),
            versions=versions,
            attention=raw["settings"].get("attention", ""),
            weights=raw["settings"].get("weights", ""),
        )

    def measured_shapes(self, doc: str, raw: list[dict]) -> dict[str, MeasuredShape]:
        self.unique(doc, ("shapes",), raw, "id")
        shapes = {}
        for index, item in enumerate(raw):
            path = ("shapes", index)
            heads, kv_heads = item["attention_heads"], item["kv_heads"]
            if heads % kv_heads:
                self.problem(doc, path + ("kv_heads",), f"{heads} attention heads cannot share {kv_heads} KV heads "
                             "evenly (each KV head serves a whole number of attention heads)")
            if item["hidden_size"] % heads:
                self.problem(doc, path + ("hidden_size",), f"hidden size {item['hidden_size']} is not a whole "
                             f"number of {heads} heads (the head dimension is hidden size ÷ heads)")
            shapes[item["id"]] = MeasuredShape(**item)
        return shapes

    def measured_shape(self, doc: str, path: tuple, shape_id: str, shapes: dict) -> MeasuredShape | None:
        if shape_id not in shapes:
            self.problem(doc, path, f"unknown shape {shape_id!r} (this file's shapes: {', '.join(shapes)})")
        return shapes.get(shape_id)

    def measured_inference(self, doc: str, index: int, item: dict, shapes: dict) -> MeasuredInference:
        shape = self.measured_shape(doc, ("inference", index, "shape"), item["shape"], shapes)
        fields = {key: value for key, value in item.items() if key not in ("shape", "seconds")}
        return MeasuredInference(shape=shape, **fields)

    def measured_training(self, doc: str, name: str, item: dict | None, shapes: dict) -> MeasuredTraining | None:
        if item is None:
            return None
        path = ("finetune", name)
        shape = self.measured_shape(doc, path + ("shape",), item["shape"], shapes)
        if item.get("trainable", 0) > item["params"]:
            self.problem(doc, path + ("trainable",),
                         f"{item['trainable']} trainable parameters exceed the {item['params']} in total")
        fields = {key: value for key, value in item.items() if key not in ("shape", "seconds", "targets")}
        return MeasuredTraining(shape=shape, **fields)

    def inference(self, precisions) -> Inference:
        raw = self.docs["sizing"].value["inference"]
        kv_precision = None
        if "kv_precision" in raw:
            kv_precision = self.find_precision(precisions, raw["kv_precision"], ("inference", "kv_precision"))
        elif raw["kv_cache"]:
            self.problem("sizing", ("inference", "kv_precision"),
                         "missing required field 'kv_precision' (kv_cache is true)")
        if raw["kv_cache"]:
            for key in ("context_tokens", "batch"):
                if key not in raw:
                    self.problem("sizing", ("inference", key), f"missing required field {key!r} (kv_cache is true)")
        return Inference(
            context_tokens=raw.get("context_tokens"),
            batch=raw.get("batch"),
            kv_cache=raw["kv_cache"],
            kv_precision=kv_precision,
            overhead_gb=_dec(raw["overhead_gb"]),
            margin_percent=_dec(raw["margin_percent"]),
        )

    def finetune(self) -> Finetune:
        raw = self.docs["sizing"].value["finetune"]
        adapter = raw.get("adapter")
        return Finetune(
            training_state_bytes=tuple((key, _dec(value)) for key, value in raw["training_state_bytes"].items()),
            adapter=Adapter(_dec(adapter["share_percent"]), _dec(adapter["bytes_per_param"]), adapter.get("rank"))
            if adapter else None,
            sequence_tokens=raw.get("sequence_tokens"),
            batch=raw.get("batch"),
            gradient_checkpointing=raw.get("gradient_checkpointing"),
        )

    def methods(self, precisions, inference: Inference, finetune: Finetune) -> tuple[Method, ...]:
        raw = self.docs["sizing"].value["methods"]
        self.unique("sizing", ("methods",), raw, "id")
        methods = []
        for index, item in enumerate(raw):
            path = ("methods", index)
            sources = [key for key in ("precision", "bytes_per_param", "training_state") if key in item]
            if len(sources) != 1:
                self.problem("sizing", path, "give the weights exactly one of precision, bytes_per_param, training_state"
                             + (f" (got {', '.join(sources)})" if sources else ""))
            precision = None
            if "precision" in item:
                precision = self.find_precision(precisions, item["precision"], path + ("precision",))
            if item.get("adapter") and finetune.adapter is None:
                self.problem("sizing", path + ("adapter",), "adapter is true but finetune.adapter is not set")
            kind = MethodKind(item["kind"])
            serving = kind is MethodKind.INFERENCE
            kv_cache = item.get("kv_cache", inference.kv_cache if serving else False)
            if kv_cache and inference.kv_precision is None and not inference.kv_cache:
                self.problem("sizing", path + ("kv_cache",), "kv_cache needs inference.kv_precision")
            methods.append(Method(
                id=item["id"],
                label=item["label"],
                kind=kind,
                precision=precision,
                bytes_per_param=_dec(item.get("bytes_per_param")),
                training_state=item.get("training_state", False),
                adapter=item.get("adapter", False),
                kv_cache=kv_cache,
                overhead_gb=_dec(item.get("overhead_gb", inference.overhead_gb if serving else 0)),
                margin_percent=_dec(item.get("margin_percent", inference.margin_percent if serving else 0)),
                needs_all_to_all=item.get("needs_all_to_all", False),
            ))
        return tuple(methods)

    def lookup(self, methods: tuple[Method, ...]) -> LookupRules:
        raw = self.docs["sizing"].value["lookup"]
        by_id = {method.id: method for method in methods}
        columns = []
        for index, method_id in enumerate(raw["columns"]):
            if method_id in by_id:
                columns.append(by_id[method_id])
            else:
                self.problem("sizing", ("lookup", "columns", index),
                             f"unknown method {method_id!r} (known: {', '.join(by_id)})")
        if 1 not in raw["card_counts"]:
            self.problem("sizing", ("lookup", "card_counts"), "must include 1 (a single card)")
        return LookupRules(
            columns=tuple(columns),
            card_counts=tuple(sorted(raw["card_counts"])),
            selection=Selection(raw["selection"]),
            tight_single_gb=_dec(raw["tight"]["single_card_gb"]),
            tight_per_card_gb=_dec(raw["tight"]["per_card_gb"]),
        )

    def pricing(self, gpus: tuple[Gpu, ...]) -> Pricing:
        raw = self.docs["prices"].value
        entries = raw["prices"]
        self.unique("prices", ("prices",), entries, "gpu")
        gpu_ids = [gpu.id for gpu in gpus]
        for index, entry in enumerate(entries):
            if entry["gpu"] not in gpu_ids:
                self.problem("prices", ("prices", index, "gpu"),
                             f"price for unknown card {entry['gpu']!r} (gpus.yaml has {', '.join(gpu_ids)})")
        priced = {entry["gpu"] for entry in entries}
        gpus_doc = self.docs["gpus"]
        for index, gpu in enumerate(gpus):
            if gpu.id not in priced:
                self.problems.append(Problem(
                    self.docs["prices"].name, self.docs["prices"].line_of(("prices",)), f"prices[{gpu.id}]",
                    f"card {gpu.id!r} (gpus.yaml line {gpus_doc.line_of(('gpus', index))}) has no price",
                ))
        period = Period(raw["period"])
        if period is Period.MONTH and "hours_per_month" not in raw:
            self.problem("prices", ("hours_per_month",),
                         "missing required field 'hours_per_month' (prices are monthly)")
        terms = raw.get("terms", {})
        snapshot = raw.get("snapshot")
        return Pricing(
            updated=str(raw["updated"]),
            currency=raw["currency"],
            period=period,
            usd={entry["gpu"]: _dec(entry["usd"]) for entry in entries},
            hours_per_month=raw.get("hours_per_month"),
            minimum_days=terms.get("minimum_days"),
            billing=tuple(terms.get("billing", ())),
            snapshot=Snapshot(**snapshot) if snapshot else None,
        )

    def discounts(self, lookup: LookupRules) -> tuple[Discount, ...]:
        raw = self.docs["discounts"].value["multi_card"]
        self.unique("discounts", ("multi_card",), raw, "cards")
        for index, item in enumerate(raw):
            if item["cards"] not in lookup.card_counts:
                self.problem("discounts", ("multi_card", index, "cards"),
                             f"{item['cards']} cards is not one of the lookup card_counts "
                             f"({', '.join(map(str, lookup.card_counts))})")
        return tuple(sorted((Discount(item["cards"], _dec(item["percent"])) for item in raw), key=lambda d: d.cards))

    def check_rentable_counts(self, gpus: tuple[Gpu, ...], lookup: LookupRules) -> None:
        for index, gpu in enumerate(gpus):
            for count in gpu.rentable_counts or ():
                if count not in lookup.card_counts:
                    self.problem("gpus", ("gpus", index, "rentable_counts"),
                                 f"{count} cards is not one of the lookup card_counts "
                                 f"({', '.join(map(str, lookup.card_counts))})")

    def check_kv_shape(self, methods: tuple[Method, ...]) -> None:
        if not any(method.kv_cache for method in methods):
            return
        for index, item in enumerate(self.docs["models"].value["models"]):
            for name in KV_FIELDS:
                if item.get(name) is None:
                    self.problem("models", ("models", index, name),
                                 f"missing required field {name!r} (the KV cache formula needs it)")

    # -- serving engines (data/engines.yaml) ------------------------------------

    def engines(self) -> Engines | None:
        if "engines" not in self.docs:
            return None
        raw = self.docs["engines"].value
        self.unique("engines", ("kv_cache_formats",), raw["kv_cache_formats"], "id")
        self.unique("engines", ("engines",), raw["engines"], "id")
        formats = tuple(KvCacheFormat(item["id"], item["label"], _dec(item["bits"]), item["source"])
                        for item in raw["kv_cache_formats"])
        format_ids = [kv_format.id for kv_format in formats]
        engine_ids = [item["id"] for item in raw["engines"]]
        if raw["default_engine"] not in engine_ids:
            self.problem("engines", ("default_engine",),
                         f"unknown engine {raw['default_engine']!r} (known: {', '.join(engine_ids)})")
        for index, item in enumerate(raw["engines"]):
            limit = item.get("sequence_limit")
            if limit is not None and limit not in item["settings"]:
                self.problem("engines", ("engines", index, "sequence_limit"),
                             f"no setting {limit!r} (its settings: {', '.join(item['settings'])})")
            for format_id in item["kv_cache_formats"]:
                if format_id not in format_ids:
                    self.problem("engines", ("engines", index, "kv_cache_formats", format_id),
                                 f"unknown KV cache format {format_id!r} (known: {', '.join(format_ids)})")
        return Engines(raw["default_engine"], formats, tuple(_engine(item) for item in raw["engines"]))

    def speed(self, measurements: tuple[Measurement, ...]) -> SpeedData | None:
        """data/throughput.yaml: its run must measure a bandwidth, and no matmul rate pass its peak."""
        if "throughput" not in self.docs:
            return None
        raw = self.docs["throughput"].value
        run_id = raw["bandwidth"]["measurement"]
        runs = {run.id: run for run in measurements}
        if run_id not in runs:
            self.problem("throughput", ("bandwidth", "measurement"),
                         f"unknown measurement {run_id!r} (data/measurements/ has {', '.join(runs) or 'none'})")
        elif runs[run_id].bandwidth is None:
            self.problem("throughput", ("bandwidth", "measurement"), f"the run {run_id!r} measured no bandwidth")
        matmuls = tuple(MeasuredMatmul(item["card"], item["format"], _dec(item["tflops"]), _dec(item["of"]))
                        for item in raw["matmul"]["measured"])
        for index, item in enumerate(matmuls):
            if item.tflops > item.peak_tflops:
                self.problem("throughput", ("matmul", "measured", index, "tflops"),
                             f"{item.tflops} TFLOPS reached of a peak of {item.peak_tflops}: more than the peak")
        step = raw["layer_step"]
        return SpeedData(bandwidth_measurement=run_id, matmuls=matmuls, layer_step_s=_dec(step["seconds"]),
                         checked_within_percent=_dec(raw["checked"]["one_sequence_within_percent"]))


def _catalogue_model(item: dict) -> CatalogueModel:
    experts, source = item.get("experts"), item["source"]
    return CatalogueModel(
        id=item["id"],
        name=item["name"],
        architecture=item["architecture"],
        params_billion=_dec(item["params_billion"]),
        active_params_billion=_dec(item["active_params_billion"]),
        params_from=ParamsFrom(item["params_from"]),
        hidden_size=item["hidden_size"],
        attention_heads=item["attention_heads"],
        max_context=item["max_context"],
        vocab_size=item["vocab_size"],
        layers=tuple(_layer_group(group) for group in item["layers"]),
        source=ModelSource(source["repository"], source["file"], source.get("revision")),
        experts=Experts(experts["total"], experts["active"], experts.get("shared", 0)) if experts else None,
        native_format=item.get("native_format"),
        parameters=ParameterClasses(**item["parameters"]) if "parameters" in item else None,
        context_scaling=_context_scaling(item["context_scaling"]) if "context_scaling" in item else None,
    )


def _context_scaling(item: dict) -> ContextScaling:
    scaling = item["rope_scaling"]
    return ContextScaling(rope_type=scaling["rope_type"], factor=_dec(scaling["factor"]),
                          original=scaling.get("original_max_position_embeddings"),
                          as_shipped=item["as_shipped"], source=item["source"])



def _layer_group(group: dict) -> LayerGroup:
    sizes = tuple((key, value) for key, value in group.items() if key not in ("kind", "count"))
    return LayerGroup(group["kind"], group["count"], sizes)


def _dec(value: object) -> Decimal | None:
    if value is None:
        return None
    return value if isinstance(value, Decimal) else Decimal(value)


def _engine(item: dict) -> Engine:
    settings = tuple(
        EngineSetting(name, _dec(raw.get("default")), raw["source"],
                      tuple((_dec(step["from_gib"]), _dec(step["value"])) for step in raw.get("by_memory", ())))
        for name, raw in item["settings"].items())
    terms = tuple(EngineTerm(name, _dec(raw["value"]), raw["source"]) for name, raw in item["terms"].items())
    layouts = tuple(WeightLayout(format=raw["format"], when_card_lacks=raw["when_card_lacks"], kernel=raw["kernel"],
                                 experts_round_up=(raw["experts_round_up"]["intermediate"],
                                                   raw["experts_round_up"]["hidden"]),
                                 source=raw["source"])
                    for raw in item.get("weight_layouts", ()))
    return Engine(id=item["id"], name=item["name"], version=item["version"], budget=item["budget"],
                  kv_cache_formats=tuple(item["kv_cache_formats"].items()), settings=settings, terms=terms,
                  errors=tuple(item.get("errors", {}).items()), weight_layouts=layouts,
                  weight_formats=tuple(item["weight_formats"]["ids"]), stacks=tuple(item["stacks"]["ids"]),
                  sequence_limit=item.get("sequence_limit"))
