"""The command line: build (default), check, serve, diff, prices import, model add, measure, plan."""

from __future__ import annotations

import argparse
import gc
import os
import sys
import traceback
from pathlib import Path
from typing import NoReturn

from .errors import InputError, in_words
from .layout import ENGINE_ROOT
from .importers.cli import add_model_command
from .listings.cli import add_prices_command
from .measure.cli import add_measure_command
from .plan.cli import add_plan_command

COMMANDS = ("build", "check", "serve", "diff", "prices", "model", "measure", "plan")
COLLECTOR_OFF = ("build", "check")
GLOBAL_OPTIONS = ("--debug",)
INPUT_PROBLEM, FAILURE, INTERRUPTED = 1, 2, 130
"""Exit statuses: problems in the editor's input; anything else that failed; Ctrl-C."""


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(_default_command(sys.argv[1:] if argv is None else argv))
        try:
            return args.run(args)
        except InputError as error:
            for problem in error.problems:
                print(problem, file=sys.stderr)
            count = len(error.problems)
            print(f"{count} problem{'s' if count != 1 else ''}; nothing was written.", file=sys.stderr)
            return INPUT_PROBLEM
        except Exception as error:  # noqa: BLE001 - a fault of this machine or of this program: one line
            return _report_failure(args, error)
    except KeyboardInterrupt:
        return INTERRUPTED


def run() -> NoReturn:
    """The process ``build.py`` starts: ``main``, then ``exit_now``.

    ``build`` and ``check`` keep nearly every object they make until they end, so they run with the
    cycle collector off from the start: it would walk the growing heap while the libraries load, and
    once more over the whole heap after rendering, for nothing (about 0.03 s of a price edit's
    rebuild, bench/README.md). The preview and the other commands keep it on.
    """
    if _command(sys.argv[1:]) in COLLECTOR_OFF:
        gc.disable()
    exit_now(main())


def _command(argv: list[str]) -> str | None:
    return next((word for word in _default_command(argv) if word not in GLOBAL_OPTIONS), None)


def exit_now(status: int) -> NoReturn:
    """End the process with ``status`` once ``main`` has returned, without freeing its objects one by one
    (up to 0.1 s of a build, bench/README.md): everything is written and closed by then. Under a
    profiler, tracer or debugger the interpreter exits normally, so that they can write what they
    gathered."""
    sys.stdout.flush()
    sys.stderr.flush()
    if _observed():
        sys.exit(status)
    os._exit(status)


def _observed() -> bool:
    monitoring = getattr(sys, "monitoring", None)  # Python 3.12+: coverage and profilers may use it
    # Tool ids 0 to 5 are the ones Python names: debugger, coverage, profiler, optimizer.
    tools = monitoring is not None and any(monitoring.get_tool(tool) for tool in range(6))
    return sys.getprofile() is not None or sys.gettrace() is not None or tools


def _report_failure(args, error: Exception) -> int:
    """One line saying what failed; with --debug, the whole traceback instead."""
    if args.debug:
        traceback.print_exc()
        worker_traceback = getattr(error, "worker_traceback", "")
        if worker_traceback:
            print(f"In the build worker:\n{worker_traceback}", file=sys.stderr, end="")
    else:
        print(f"build.py: {args.command} failed: {in_words(error)} (--debug shows where)", file=sys.stderr)
    return FAILURE


def _default_command(argv: list[str]) -> list[str]:
    """`build.py` alone, or with only options, means `build.py build`; --debug may come before the command."""
    lead = 0
    while lead < len(argv) and argv[lead] in GLOBAL_OPTIONS:
        lead += 1
    rest = argv[lead:]
    if not rest or (rest[0] not in COMMANDS and rest[0] not in ("-h", "--help")):
        return [*argv[:lead], "build", *rest]
    return argv


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="build.py", description="Build the GPU-sizing guide site from data/, content/, templates/ and locales/.",
        epilog="Without a command, build.py builds. Editing guide: docs/editing.md.")
    _debug_option(parser, default=False)
    commands = parser.add_subparsers(dest="command", required=True, metavar="{build,check,serve,diff,prices,model,measure,plan}")

    build = commands.add_parser(
        "build", help="build the site into its output folder (the default)",
        description="Render every page in every language, in memory; then write the files that changed into the "
                    "output folder, swapped in all at once. On any problem nothing is written and the previous "
                    "site stays as it was.")
    _site_option(build)
    build.add_argument("--out", type=Path, help="output folder (default: SITE/site)")
    build.add_argument("--force", action="store_true",
                       help="render everything even when no input changed since the last build into OUT")
    _jobs_option(build)
    build.set_defaults(run=_build)

    check = commands.add_parser(
        "check", help="validate data, content, templates and translations; write nothing",
        description="Render the whole site in memory and list every problem found (file:line: field: message); "
                    "write nothing. Exits 1 if there is any problem.")
    _site_option(check)
    _jobs_option(check)
    check.add_argument("--base", metavar="REV",
                       help="also warn where data/prices.yaml's prices differ from those at git revision REV "
                            "while its updated: date does not (the check still passes)")
    check.set_defaults(run=_check)

    serve = commands.add_parser(
        "serve", help="preview the site on localhost, rebuilding when a source file changes",
        description="Serve the site from memory at http://HOST:PORT/. Every request first looks for changed files "
                    "under data/, content/, templates/ and locales/ and rebuilds if there are any (one watcher also looks "
                    "every 0.1 s while a page is open, and its page reloads itself); while the build fails, every "
                    "page shows the list of problems instead. Answers only requests addressed to this machine from "
                    "its own pages. Writes nothing. Stop with Ctrl-C.")
    _site_option(serve)
    serve.add_argument("--port", type=_port, default=8000, help="port to listen on (default: 8000; 0 picks a free one)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)")
    serve.set_defaults(run=_serve)

    diff = commands.add_parser(
        "diff", help="list every figure and sentence that changed since a git revision, as Markdown",
        description="Build the site's data/, content/, templates/ and locales/ as they were at git revision REV "
                    "and as they are now (both with this code), and print, as Markdown for a pull-request comment, "
                    "every table cell (page, table, row, column) and every sentence of the Markdown twins that "
                    "differs. Prints 'No figure changed.' when nothing did.")
    diff.add_argument("rev", metavar="REV", help="git revision to compare with: main, origin/main, HEAD~1, a sha")
    _site_option(diff)
    diff.set_defaults(run=_diff)
    prices = add_prices_command(commands, _site_option, _debug_option)
    model = add_model_command(commands, _site_option, _debug_option)
    measure = add_measure_command(commands, _site_option, _debug_option)
    add_plan_command(commands, _site_option, _debug_option)
    for command in (build, check, serve, diff, prices, model, measure):
        _debug_option(command, default=argparse.SUPPRESS)  # after the command too; not given: the global value
    return parser


def _debug_option(parser: argparse.ArgumentParser, default) -> None:
    parser.add_argument("--debug", action="store_true", default=default,
                        help="when something other than the input fails, show the full traceback instead of one line")


def _site_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--site", type=Path, default=ENGINE_ROOT,
                        help="the site's folder, holding data/, content/, templates/, locales/ (default: this repository)")


def _jobs_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", "-j", type=_positive, metavar="N",
                        help="render up to N languages at once, each in its own process (default: one per core; "
                             "1 renders everything in this process)")


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 0 to 65535, got {text!r}")
    return int(text)


def _render(args, incremental: bool = False) -> dict[str, bytes]:
    """The site in memory, the languages shared out among the cores; ``incremental``: keeping the last
    build's pages whose inputs did not change (publish/incremental.py)."""
    from .publish.parallel import usable_cores
    from .publish.site import render_site_collector_off

    return render_site_collector_off(args.site, args.jobs or usable_cores(), incremental)


def _build(args) -> int:
    from .publish import output, stamp

    # site/../site means site: the system would read ".." after following the link site is
    out = Path(os.path.abspath(args.out or args.site / "site"))
    output.check_location(out, args.site)
    digest = stamp.input_digest(args.site)
    if not args.force and stamp.is_current(args.site, out, digest):
        print(f"no input changed since the last build into {out}: 0 written, 0 removed")
        return 0
    stamp.forget(args.site)

    from .publish.lock import locked
    from .publish.writer import write_site

    files = _render(args, incremental=not args.force)
    files.update(_search_index(args.site, files))
    output.check_contents(out, files)
    with locked(out):  # the stamp too: it must describe the site that this build left
        report = write_site(files, out)
        stamp.record(args.site, out, digest, [*files, output.MARKER])
    print(f"built {len(files)} files into {out}: {len(report.written)} written, "
          f"{len(report.removed)} removed, {report.unchanged} unchanged")
    return 0


def _search_index(site: Path, files: dict[str, bytes]) -> dict[str, bytes]:
    """The search index of the pages, where the site has a search page (publish/search.py)."""
    from .load.pages import read_pages
    from .publish.search import has_search, search_files

    return search_files(files) if has_search(item["id"] for item in read_pages(site).value["pages"]) else {}


def _check(args) -> int:
    from .listings.record import unrecorded_warning

    files = _render(args)
    print(f"no problems found ({len(files)} files rendered in memory, nothing written)")
    warning = unrecorded_warning(args.site)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    if args.base:
        from .publish.price_dates import check_dates

        return check_dates(args.site, args.base)
    return 0


def _serve(args) -> int:
    from .publish.serve import ServeError, serve

    try:
        serve(args.site, host=args.host, port=args.port, debug=args.debug)
    except ServeError as error:
        if args.debug:
            raise
        print(f"build.py: {error}", file=sys.stderr)
        return FAILURE
    return 0


def _diff(args) -> int:
    from .publish.diff import DiffError, diff_report

    try:
        print(diff_report(args.site, args.rev), end="")
    except DiffError as error:
        print(f"diff: {error}", file=sys.stderr)
        return 2
    return 0
