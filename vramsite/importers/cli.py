"""`build.py model add`: its arguments and what it prints."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from ..layout import ENGINE_ROOT


class _NamesArchitectures(argparse.ArgumentParser):
    """A parser whose help names the architectures the importer knows, read from its table only when the help
    is printed: importing the table (and the calculation it rests on) would cost every command ~150 ms."""

    def format_help(self) -> str:
        from .hf_config import ARCHITECTURES
        if self.description:
            self.description = self.description.replace("{architectures}", ", ".join(ARCHITECTURES))
        return super().format_help()


def add_model_command(commands, site_option: Callable, debug_option: Callable) -> argparse.ArgumentParser:
    """Add `model` (and its action `add`) to the command line's ``commands``."""
    model = commands.add_parser(
        "model", help="add a real model to data/catalogue.yaml from its Hugging Face config.json",
        description="Work on the site's catalogue of real models. Editing guide: docs/editing.md.")
    actions = model.add_subparsers(dest="action", required=True, metavar="{add}", parser_class=_NamesArchitectures)
    command = actions.add_parser(
        "add", help="read a config.json and append the model's entry to data/catalogue.yaml",
        description="Read a Hugging Face config.json ({architectures}), print the catalogue entry it gives (its "
                    "layers by kind, its parameter counts) and append it to the site's data/catalogue.yaml, "
                    "keeping the file's comments and order. On any problem nothing is written. Reads no network.")
    command.add_argument("config", type=Path, metavar="CONFIG", help="the model's config.json")
    command.add_argument("--index", type=Path, metavar="PATH",
                         help="the checkpoint's model.safetensors.index.json: the total parameter count from "
                              "its size (params_from: index) instead of counting from the config")
    command.add_argument("--id", dest="model_id", metavar="SLUG",
                         help="the entry's id (default: the repository's name, lowercased)")
    command.add_argument("--name", help="what the pages call it (default: the repository's name)")
    command.add_argument("--params-billion", metavar="N", help="the published total, in billions")
    command.add_argument("--active-params-billion", metavar="N",
                         help="the published count read per token, in billions, for a mixture of experts whose "
                              "card leaves out the embedding table as the catalogue does (default: the config's "
                              "count: all but the embedding table and the experts not routed to)")
    command.add_argument("--params-from", choices=("published",),
                         help="where --params-billion comes from: published (the model card)")
    command.add_argument("--params-note", metavar="TEXT",
                         help="a comment written after params_from: where the figures were read")
    command.add_argument("--source-repository", metavar="R",
                         help="the Hugging Face repository of the config, owner/name (default: from a hub "
                              "download's path, .../models--OWNER--NAME/snapshots/REV/)")
    command.add_argument("--source-file", default="config.json", metavar="F",
                         help="the config's file in that repository (default: config.json)")
    command.add_argument("--source-revision", metavar="V",
                         help="the revision read: a commit, or where a copy of it was read (default: from a "
                              "hub download's path)")
    command.add_argument("--rope-scaling", metavar="JSON",
                         help="a RoPE scaling the model's vendor documents but its config does not set, as vLLM "
                              "takes it ('{\"rope_type\":\"yarn\",\"factor\":4.0,"
                              "\"original_max_position_embeddings\":32768}'): the longest context is then the "
                              "scaled one, and the entry says an engine must be started with it")
    command.add_argument("--rope-scaling-source", metavar="TEXT",
                         help="where the vendor documents that scaling (repository, path and revision)")
    command.add_argument("--dry-run", action="store_true", help="print the entry; write nothing")
    site_option(command)
    debug_option(command, default=argparse.SUPPRESS)
    command.set_defaults(run=run_add)
    return model


def run_add(args) -> int:
    from .command import AddOptions, add_model

    options = AddOptions(
        index=args.index, model_id=args.model_id, name=args.name, params_billion=args.params_billion,
        active_params_billion=args.active_params_billion, params_from=args.params_from,
        params_note=args.params_note, source_repository=args.source_repository, source_file=args.source_file,
        source_revision=args.source_revision, rope_scaling=args.rope_scaling,
        rope_scaling_source=args.rope_scaling_source, dry_run=args.dry_run)
    label = None if args.site.resolve() == ENGINE_ROOT else args.site.as_posix()
    entry, summary = add_model(args.site, args.config, options, label)
    print(entry, end="")
    print(summary, file=sys.stderr)
    return 0
