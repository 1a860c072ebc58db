"""Problems found in an editor's input, reported all at once."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with one place of one input file."""

    file: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        field = f" {self.field}:" if self.field else ""
        message = " ".join(part.strip() for part in self.message.splitlines())  # one problem, one line
        return f"{where}:{field} {message}"


class InputError(Exception):
    """Raised with every problem of a run; nothing is written when it is."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(set(problems), key=_problem_order)
        super().__init__("\n".join(str(p) for p in self.problems))


def _problem_order(problem: Problem) -> tuple:
    return (problem.file, problem.line or 0, problem.field, problem.message)


class UnknownId(LookupError):
    """A name that refers to nothing in the data (a model, a card, ...)."""

    def __init__(self, what: str, wanted: str, known: tuple[str, ...]):
        self.what, self.wanted, self.known = what, wanted, known
        super().__init__(f"unknown {what} {wanted!r} (known: {', '.join(known)})")

    def __str__(self) -> str:
        return self.args[0]


def in_words(error: BaseException) -> str:
    """A failure as one clause: 'address already in use', 'permission denied: site/en', 'MemoryError'."""
    if isinstance(error, OSError) and error.strerror:
        reason = error.strerror[:1].lower() + error.strerror[1:]
        files = " -> ".join(str(name) for name in (error.filename, error.filename2) if name)
        return f"{reason}: {files}" if files else reason
    text = " ".join(str(error).split())  # one line, whatever the message holds
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
