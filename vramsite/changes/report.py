"""The Markdown of one site's changes, for a pull-request comment: "No figure changed." when there is none."""

from __future__ import annotations

from .compare import Report
from .text_diff import plural

NO_CHANGE = "No figure changed."


def format_report(report: Report, rev: str, site: str | None = None) -> str:
    """The Markdown of one site's changes; ``site`` names a site other than the repository's own."""
    if not report:
        return NO_CHANGE + "\n"
    changes = sum(1 for _, lines in report.pages for line in lines if _is_change(line))
    files = report.changed_files
    languages = list(dict.fromkeys(page.language for page, _ in report.pages))
    what = "the site" if site is None else f"`{site}`"
    summary = [f"{changes} change{'s' if changes != 1 else ''} on {len(report.pages)} page{plural(report.pages)}"
               + (f" in {' and '.join(languages)}" if languages else "")] if report.pages else []
    if files:
        summary.append(f"{files} other file{'s' if files != 1 else ''} changed")
    out = [f"### What this change does to {what} (compared with `{rev}`)", "", "; ".join(summary) + ".", ""]
    for page, lines in report.pages:
        out += [f"#### {page.title} · {page.language} (`{page.path}`)", ""]
        out += (lines[1:] if lines and lines[0] == "" else lines) + [""]
    if report.files:
        out += ["#### Other published files (downloads, charts, sitemap, llms.txt)", "", *report.files, ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _is_change(line: str) -> bool:
    return line.startswith("- ") and not line.startswith("- … and ")
