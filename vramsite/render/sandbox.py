"""What content can reach, and how much work one rendering of it may do.

Content files are untrusted input. Their expressions run in
``ContentEnvironment``, a Jinja sandbox that works from an allowlist: an
attribute, item or call is allowed only on a value of a listed type, only by
a listed name, and only when what it gives back is of a listed type too. The
list holds figures, numbers and text, tuples, lists and dicts, the
calculation's views and records, the frozen data model, page facts, and the
page's own functions (``ContentApi`` in ``scope.py``). Nothing else, no
build, environment, template, loader, path, module or function internals, is
reachable by any attribute chain or call. Methods that change a value
(``list.append``, ``dict.update``) are not listed.

Content cannot include, import or extend templates, and each rendering is
bounded where the work is spent. Every value has a *weight*, about the length
of the text it prints as (``weight``): an operator, filter, test, call or
comparison weighs what it is given before it runs (a repeat, a join, a
concatenation is refused before it is built), weighs what it makes, and
charges both to the rendering's work. A filter's lazy result (``map``,
``select``, ...) ticks per item. A rendering stops once it has taken too many
steps (calls, filters, loop rounds and lazy items), made or walked too much,
printed too much text, or run too long: every primitive it can run is bounded
in size, so the deadline, checked at every step, is never overrun by more than
one bounded primitive. Exceeding a bound fails the build with a located
message, like any other content error.

``expose(cls)`` adds a record type (and its subclasses) whose public
attributes and methods content may use; ``vramsite.facts.base.Facts`` is one.
"""

from __future__ import annotations

import datetime
import inspect
import time
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal

from jinja2 import TemplateSyntaxError, nodes, pass_context
from jinja2.exceptions import SecurityError
from jinja2.lexer import TOKEN_DATA, TokenStream
from jinja2.filters import FILTERS as JINJA_FILTERS
from jinja2.filters import _GroupTuple
from jinja2.runtime import LoopContext, Macro, Undefined
from jinja2.sandbox import SandboxedEnvironment, is_internal_attribute
from jinja2.utils import Namespace, _PassArg
from jinja2.visitor import NodeTransformer
from markupsafe import Markup

MAX_TEXT = 1_000_000
"""Weight of one value (``weight``: characters of text, ``ITEM_WEIGHT`` more per item of a list or dict).
The guide's longest page prints 173,000 characters, tables included; copying a million takes a millisecond,
walking a list of that weight in Python at most 0.13 s."""
MAX_OUTPUT = 500_000
"""Characters one rendering of a content file may produce, counted as it is produced, besides the engine's
tables and charts (``Budget.block``). The guide's longest page produces 34,000; the Markdown parser reads the
page after it, at up to 7 seconds per million characters of brackets."""
MAX_WORK = 20_000_000
"""Weight one rendering may make and walk, all guards together: twenty values of the largest size. The
guide's pages use under 20,000 (19,721 at most); twenty million characters copied or compared take well
under a second, twenty million weight of tiny lists walked in Python under three seconds."""
MAX_STEPS = 100_000
"""Calls, filters, loop rounds and lazy items (a ``map``'s) in one rendering; the guide's pages take 432 at
most."""
MAX_SECONDS = 10.0
"""Processor time one rendering may spend, checked at every step (each step's work is bounded by ``MAX_TEXT``).

Counted on the rendering thread's own clock (``time.thread_time``), not the wall's: content can only compute,
never wait, so its cost is the processor time it takes, and a busy machine (a test suite, other builds beside
it) must not fail a page that a quiet one renders in a tenth of a second."""
MAX_ENGINE_SECONDS = 120.0
"""Processor time the engine's own blocks of one rendering (its tables, charts, calculator) may spend in all.
Kept apart from ``MAX_SECONDS``: their work is sized by the data, and a long test run's heap can make its
garbage collections, which land mostly there, slow; a page that asks for blocks without end is still stopped."""
ITEM_WEIGHT = 4
"""What an item of a list, tuple or dict adds to its weight: ``', '`` and the quotes of a text."""
MAX_RANGE = 10_000
"""Numbers one ``range()`` may hold."""
MAX_INT_BITS = 4_096
"""Size of an integer a product or power may make (about 1,200 digits)."""
MAX_DIGITS = 1_000
"""Digits of a decimal a calculation in content may make."""
MAX_TOKENS = 20_000
"""Names, numbers, operators and tag marks (``{{``, ``%}``) in one template of content, counted as it is
compiled: the longest page (vram.md) has 7,000. Compiling costs 25 to 200 microseconds a token (a long ``~``
chain costs most): this many compile in at most about three seconds; 200,000 took 28 s and 1.8 GB."""
MAX_BLOCKS = 200
"""Tables, charts and stats blocks one rendering may show."""

CODE_VERSION = "content-sandbox-2"
"""Part of the compiled code's cache key: the guards below are compiled into every content template."""

PAGE = "vramsite:page"
"""Context key of the page's text pieces (what the filters format with); no template can name it."""
BUDGET = "vramsite:budget"
"""Context key of the rendering's ``Budget``; no template can name it."""

_ITERATE, _OUTPUT, _WEIGH, _AS_TEXT = "vramsite:iterate", "vramsite:output", "vramsite:weigh", "vramsite:as-text"

BOUNDED_JINJA_FILTERS = (
    "abs", "attr", "capitalize", "count", "default", "d", "dictsort", "filesizeformat", "first", "float",
    "groupby", "int", "items", "last", "length", "list", "lower", "map", "max", "min", "reject", "rejectattr",
    "reverse", "round", "select", "selectattr", "sort", "string", "striptags", "sum", "title", "trim",
    "truncate", "unique", "upper", "urlencode", "wordcount",
)
"""Jinja's filters that content keeps. Left out: those that make markup from text (safe, forceescape,
urlize, xmlattr, tojson, indent), pad or repeat to a size the caller names (center, wordwrap, format,
replace, batch, slice), and random and pprint (output that changes from build to build)."""


class LimitExceeded(Exception):
    """A content expression went past one of the bounds above."""


# -- the allowlist -------------------------------------------------------------


@dataclass(frozen=True)
class Access:
    """What content may do with a value of one type."""

    attributes: frozenset[str] | None = frozenset()
    """Names it may read; None: every public attribute (records)."""
    calls: frozenset[str] | None = frozenset()
    """Methods it may call; None: every public method (records)."""
    items: bool = False
    """Whether ``value[key]`` is allowed."""

    def may_read(self, name: str) -> bool:
        return self.attributes is None or name in self.attributes

    def may_call(self, name: str) -> bool:
        return (self.calls is None and not name.startswith("_")) or (self.calls is not None and name in self.calls)


NOTHING = Access()
RECORD = Access(attributes=None, calls=None)
_TEXT_METHODS = frozenset({
    "capitalize", "casefold", "count", "endswith", "find", "index", "isalnum", "isalpha", "isdigit", "islower",
    "isnumeric", "isspace", "istitle", "isupper", "lower", "lstrip", "partition", "removeprefix",
    "removesuffix", "rfind", "rindex", "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith",
    "strip", "swapcase", "title", "upper",
})
"""Left out: ``join`` (the text between the items repeated once per item: the join filter bounds it)."""
_MARKUP_METHODS = frozenset({"striptags", "unescape", "strip", "lstrip", "rstrip", "startswith", "endswith"})
_SEQUENCE_METHODS = frozenset({"count", "index"})
_DICT_METHODS = frozenset({"get", "items", "keys", "values"})
_LOOP_NAMES = frozenset({"index", "index0", "revindex", "revindex0", "first", "last", "length", "depth", "depth0",
                         "previtem", "nextitem", "cycle", "changed"})

_ACCESS: dict[type, Access] = {
    type(None): NOTHING, bool: NOTHING, int: NOTHING, float: NOTHING, Decimal: NOTHING,
    datetime.date: NOTHING, datetime.datetime: NOTHING,
    str: Access(_TEXT_METHODS, _TEXT_METHODS, items=True),
    Markup: Access(_MARKUP_METHODS, _MARKUP_METHODS, items=True),
    tuple: Access(_SEQUENCE_METHODS, _SEQUENCE_METHODS, items=True),
    list: Access(_SEQUENCE_METHODS, _SEQUENCE_METHODS, items=True),
    range: Access(frozenset({"start", "stop", "step"}) | _SEQUENCE_METHODS, _SEQUENCE_METHODS, items=True),
    dict: Access(_DICT_METHODS, _DICT_METHODS, items=True),
    frozenset: NOTHING, set: NOTHING,
    type({}.keys()): NOTHING, type({}.values()): NOTHING, type({}.items()): NOTHING,
    Namespace: Access(attributes=None, calls=frozenset(), items=True),
    LoopContext: Access(_LOOP_NAMES, frozenset({"cycle", "changed"})),
    Macro: NOTHING,
}
_RECORD_BASES: list[type] = []
_STATIC_FUNCTIONS: set = set()
_RESOLVED: dict[type, Access | None] = {}


def expose(cls: type, access: Access = RECORD) -> type:
    """Let content use values of ``cls`` and its subclasses: by default every public attribute and method.

    Usable as a class decorator. Only for pure objects: whatever an exposed
    method returns must itself be of an exposed type, or content cannot use it.
    """
    if access is RECORD:
        _RECORD_BASES.append(cls)
    else:
        _ACCESS[cls] = access
    _RESOLVED.clear()
    return cls


def access_of(cls: type) -> Access | None:
    """What content may do with values of ``cls``; None: nothing, not even hold one."""
    if cls not in _RESOLVED:
        _RESOLVED[cls] = _resolve(cls)
    return _RESOLVED[cls]


def _resolve(cls: type) -> Access | None:
    for base in cls.__mro__:
        if base in _ACCESS:
            return _ACCESS[base]
        if base in _RECORD_BASES:
            _STATIC_FUNCTIONS.update(_static_methods(cls))
            return RECORD
    return None


def _static_methods(cls: type) -> list:
    found = []
    for name in dir(cls):
        if not name.startswith("_") and isinstance(inspect.getattr_static(cls, name, None), staticmethod):
            found.append(getattr(cls, name))
    return found


def is_allowed_callable(obj) -> bool:
    """A page function, a method content may call, a content macro or loop, ``range`` or ``namespace``."""
    if isinstance(obj, (Macro, LoopContext)) or obj is Namespace or obj is content_range:
        return True
    if isinstance(obj, (types.MethodType, types.BuiltinMethodType)):
        owner = getattr(obj, "__self__", None)
        access = None if owner is None or isinstance(owner, type) else access_of(type(owner))
        return access is not None and access.may_call(obj.__name__)
    return isinstance(obj, types.FunctionType) and obj in _STATIC_FUNCTIONS


def is_allowed_value(value) -> bool:
    return isinstance(value, Undefined) or access_of(type(value)) is not None or is_allowed_callable(value)


def _kind(value) -> str:
    return type(value).__name__


# -- bounds ----------------------------------------------------------------------

_NUMBERS = (bool, int, float, Decimal, datetime.date)
_CONTAINERS = (list, tuple, set, frozenset, dict, type({}.keys()), type({}.values()), type({}.items()))


class Budget:
    """What one rendering of a content file has used so far."""

    def __init__(self):
        self.steps = self.output = self.blocks = self.allowance = self.work = 0
        self.engine_seconds = 0.0
        self.deadline: float | None = None
        self.last_block: str | None = None
        self.weights: dict[tuple[int, bool], tuple[object, int]] = {}
        """Weights of values no content can change, by id and text mode (``weight``); each kept with its value,
        so that no other value takes its id while the rendering lasts."""

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise LimitExceeded(f"more than {MAX_STEPS:,} calls and loop rounds in one page")
        now = time.thread_time()
        if self.deadline is None:
            self.deadline = now + MAX_SECONDS
        elif now > self.deadline:
            raise LimitExceeded(f"the page took more than {MAX_SECONDS:g} seconds of processor time to render")

    @contextmanager
    def engine_work(self):
        """The engine's block for the page (a table, a chart, the calculator): its processor time moves the
        rendering's deadline on and counts against ``MAX_ENGINE_SECONDS`` instead."""
        started = time.thread_time()
        try:
            yield
        finally:
            spent = time.thread_time() - started
            self.engine_seconds += spent
            if self.deadline is not None:
                self.deadline += spent
            if self.engine_seconds > MAX_ENGINE_SECONDS:
                raise LimitExceeded(f"the page's tables, charts and calculator took more than {MAX_ENGINE_SECONDS:g} "
                                    "seconds of processor time")

    def charge(self, work: int) -> None:
        self.work += work
        if self.work > MAX_WORK:
            raise LimitExceeded(f"more than {MAX_WORK:,} characters and items made or compared in one page")

    def weigh(self, value, as_text: bool = False) -> int:
        """``value``'s weight (``weight``), charged as work; refused past ``MAX_TEXT``."""
        found = weight(value, as_text, self.weights)
        self.charge(found)
        return found

    def made(self, value):
        """``value``, which a filter, call or operator made: weighed; if it is lazy, weighed item by item."""
        if isinstance(value, Iterator):
            return self._ticking(value)
        self.weigh(value)
        return value

    def _ticking(self, items: Iterator):
        for item in items:
            self.step()
            self.weigh(item)
            yield item

    def produced(self, count: int) -> None:
        self.output += count
        if self.output > MAX_OUTPUT + self.allowance:
            raise LimitExceeded(f"the page's text grew past {MAX_OUTPUT + self.allowance:,} characters")

    def block(self, made: str) -> str:
        """Count one table, chart or stats block the engine ``made`` for the page, and hand it on.

        A block's size follows the data (a grid of many cards and models), not the
        content, so it raises the page's output allowance by its own length once.
        """
        self.blocks += 1
        if self.blocks > MAX_BLOCKS:
            raise LimitExceeded(f"more than {MAX_BLOCKS} tables, charts and stats blocks in one page")
        self.allowance += len(made)
        self.last_block = made
        return made


def budget_of(context) -> Budget:
    budget = context.get(BUDGET)
    if budget is None:
        raise RuntimeError("content rendered without a budget: use Scope.content_context()")
    return budget


def weight(value, as_text: bool = False, known: dict | None = None) -> int:
    """About the length of the text ``value`` prints as, and so the work of copying, printing, hashing or
    comparing it: characters of a text, digits of a number, ``ITEM_WEIGHT`` more per item of a list, tuple
    or dict. A record (a model, a card, a figure) weighs 1, or with ``as_text`` the length of its ``str()``.

    Refused (``LimitExceeded``) once past ``MAX_TEXT``, so that weighing a list that holds one long list
    ten thousand times (made in a few steps, printed never) stops after ``MAX_TEXT``. ``known``: weights
    found before, by ``id``; a list shared ten times inside a value is weighed once.
    """
    if isinstance(value, str) and len(value) <= MAX_TEXT:  # most of what is weighed: no scale to set up
        return len(value)
    return _Scale(as_text, {} if known is None else known).weigh(value)


class _Scale:
    """One weighing: a running total, refused once past ``MAX_TEXT``."""

    def __init__(self, as_text: bool, known: dict):
        self.as_text, self.known, self.total = as_text, known, 0

    def add(self, amount: int) -> None:
        self.total += amount
        if self.total > MAX_TEXT:
            raise LimitExceeded(f"a value of more than {MAX_TEXT:,} characters or items")

    def weigh(self, value) -> int:
        start = self.total
        self.visit(value)
        return self.total - start

    def visit(self, value) -> bool:
        """Add ``value``'s weight to the total; whether it may change (it holds a namespace)."""
        if isinstance(value, str):
            self.add(len(value))
            return False
        if value is None or isinstance(value, _NUMBERS):
            self.add(_number_weight(value))
            return False
        if isinstance(value, range):
            self.add(2 + len(value) * (ITEM_WEIGHT + len(str(max(abs(value.start), abs(value.stop))))))
            return False
        key = (id(value), self.as_text)
        known = self.known.get(key)
        if known is not None:
            self.add(known[1])
            return False
        start = self.total
        if isinstance(value, Namespace):
            changes = True
            self.visit(object.__getattribute__(value, "_Namespace__attrs"))
        elif isinstance(value, _CONTAINERS):
            changes = self.visit_items(value)
        else:
            changes = False
            self.add(len(str(value)) if self.as_text and not isinstance(value, Undefined) else 1)
        if not changes:
            self.known[key] = (value, self.total - start)
        return changes

    def visit_items(self, container) -> bool:
        self.add(2)
        changes = False
        for item in (container.items() if isinstance(container, dict) else container):
            self.add(ITEM_WEIGHT)
            changes = self.visit(item) or changes
        return changes


def _number_weight(value) -> int:
    if isinstance(value, bool) or value is None:
        return 5
    if isinstance(value, int):
        return 1 + value.bit_length() * 3 // 10
    if isinstance(value, Decimal) and value.is_finite():
        return 8 + len(value.as_tuple().digits)
    return 24


def check_size(value):
    """``value`` itself, if it weighs no more than ``MAX_TEXT`` (``weight``)."""
    weight(value)
    return value


def content_range(*args) -> range:
    """``range`` with at most ``MAX_RANGE`` numbers."""
    numbers = range(*args)
    try:
        count = len(numbers)
    except OverflowError:
        count = MAX_RANGE + 1
    if count > MAX_RANGE:
        raise LimitExceeded(f"range() of more than {MAX_RANGE:,} numbers")
    return numbers


def _check_operation(budget: Budget, operator: str, left, right) -> None:
    """Refuse an operation whose result would be too large, before it is made."""
    if operator == "%" and isinstance(left, str):
        raise SecurityError("content cannot format text with %: use the filters (fig, num, names, ...)")
    integers = isinstance(left, int) and isinstance(right, int)
    if operator == "**":
        if integers and right > 0 and abs(left) > 1 and abs(left).bit_length() * right > MAX_INT_BITS:
            raise LimitExceeded(f"a power larger than {MAX_INT_BITS} bits")
        if isinstance(right, (int, float, Decimal)) and abs(right) > MAX_INT_BITS:
            raise LimitExceeded(f"an exponent larger than {MAX_INT_BITS}")
    elif operator == "*":
        if integers and left.bit_length() + right.bit_length() > MAX_INT_BITS:
            raise LimitExceeded(f"a product larger than {MAX_INT_BITS} bits")
        for sequence, count in ((left, right), (right, left)):
            if isinstance(sequence, (str, list, tuple)) and isinstance(count, int) and count > 1 and (
                    len(sequence) * count > MAX_TEXT or budget.weigh(sequence) * count > MAX_TEXT):
                raise LimitExceeded(f"a repeat of more than {MAX_TEXT:,} characters or items")
    elif operator == "+" and isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
        if budget.weigh(left) + budget.weigh(right) > MAX_TEXT:
            raise LimitExceeded(f"a value of more than {MAX_TEXT:,} characters or items")


def _check_number(value):
    """``value`` itself, if it is not a decimal of more than ``MAX_DIGITS`` digits (1e999999 formats slowly)."""
    if isinstance(value, Decimal) and value.is_finite() and value and abs(value.adjusted()) > MAX_DIGITS:
        raise LimitExceeded(f"a number of more than {MAX_DIGITS:,} digits")
    return value


# -- guards compiled into every content template --------------------------------


@pass_context
def _iterate(context, iterable):
    """A loop's items, one budget step each."""
    budget = budget_of(context)
    for item in iterable:
        budget.step()
        yield item


@pass_context
def _count_output(context, value):
    """What ``{{ }}`` prints, weighed as text before it is made text, and counted."""
    budget = budget_of(context)
    if not isinstance(value, str):
        budget.weigh(value, as_text=True)
        budget.produced(len(str(value)))
    else:
        budget.produced(len(value))
    return value


@pass_context
def _weighed(context, value):
    """A value compared, hashed or joined by ``~``: weighed (and charged) first."""
    budget_of(context).weigh(value)
    return value


@pass_context
def _weighed_as_text(context, value):
    """A piece of a ``~`` join, which ``str()`` turns into text: weighed as that text first."""
    budget_of(context).weigh(value, as_text=True)
    return value


class _Guards(NodeTransformer):
    """Route loops, output, ``~`` joins, comparisons and dict keys through the bounds; refuse template-loading
    tags."""

    REFUSED = {nodes.Extends: "extends", nodes.Include: "include", nodes.Import: "import",
               nodes.FromImport: "from ... import"}

    def generic_visit(self, node, *args, **kwargs):
        tag = self.REFUSED.get(type(node))
        if tag is not None:
            raise TemplateSyntaxError(f"content cannot use {{% {tag} %}}: it may not load other templates",
                                      node.lineno)
        return super().generic_visit(node, *args, **kwargs)

    def visit_For(self, node: nodes.For):
        node = self.generic_visit(node)
        node.iter = _guard(node.iter, _ITERATE)
        return node

    def visit_Output(self, node: nodes.Output):
        node = self.generic_visit(node)
        node.nodes = [_guard(child, _OUTPUT) for child in node.nodes]
        return node

    def visit_Concat(self, node: nodes.Concat):
        node = self.generic_visit(node)
        node.nodes = [_guard(child, _AS_TEXT) for child in node.nodes]
        return _guard(node, _WEIGH)

    def visit_Compare(self, node: nodes.Compare):
        """``a == b``, ``a in b``: Python walks both, so both are weighed first."""
        node = self.generic_visit(node)
        node.expr = _guard(node.expr, _WEIGH)
        for operand in node.ops:
            operand.expr = _guard(operand.expr, _WEIGH)
        return node

    def visit_Getitem(self, node: nodes.Getitem):
        """``x[key]`` hashes its key; ``x[a:b]`` copies part of ``x``: both weighed."""
        node = self.generic_visit(node)
        if isinstance(node.arg, nodes.Slice):
            return _guard(node, _WEIGH)
        node.arg = _guard(node.arg, _WEIGH)
        return node

    def visit_Pair(self, node: nodes.Pair):
        """A dict literal's key, which Python hashes (walks) to build the dict."""
        node = self.generic_visit(node)
        node.key = _guard(node.key, _WEIGH)
        return node


def _guard(node: nodes.Expr, name: str) -> nodes.Filter:
    return nodes.Filter(node, name, [], [], None, None, lineno=node.lineno)


# -- text --------------------------------------------------------------------------


@pass_context
def _finalize(context, value):
    """What ``{{ }}`` prints: markup as it is, numbers as they are, anything else as text (escaped)."""
    if isinstance(value, Markup) or (isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)):
        return value
    page = context.get(PAGE)
    return page.text(str(value)) if page is not None else value


@pass_context
def _escape(context, value):
    return value if isinstance(value, Markup) else context[PAGE].text(str(value))


@pass_context
def _join(context, value, separator: str = "", attribute=None):
    """Jinja's join, with each piece that is not markup escaped for the page; refused before it is built if
    the separator repeated between the items would make it too long."""
    if attribute is not None:
        getter = context.environment.getattr
        value = [getter(item, attribute) for item in value]
    items = value if isinstance(value, (list, tuple)) else list(value)
    budget = budget_of(context)
    if budget.weigh(items, as_text=True) + budget.weigh(separator, as_text=True) * len(items) > MAX_TEXT:
        raise LimitExceeded(f"a value of more than {MAX_TEXT:,} characters or items")
    pieces = [_escape(context, item) for item in items]
    return Markup(_escape(context, separator)).join(pieces)


def _sum(environment, iterable, attribute=None, start=0):
    """Jinja's sum, of numbers and figures: a sum of lists copies the growing list once per item."""
    if isinstance(start, (str, list, tuple, dict)):
        raise SecurityError("sum adds numbers, not lists or texts (join them, or add them with +)")
    return JINJA_FILTERS["sum"](environment, iterable, attribute, start)


_sum.jinja_pass_arg = _PassArg.environment


TEXT_FILTERS = frozenset({"capitalize", "date", "e", "escape", "join", "lower", "string", "striptags", "title",
                          "trim", "truncate", "upper", "urlencode", "wordcount"})
"""Filters that make text of their whole value: it is weighed as that text (a record as its ``str()``)."""

_ENGINE_GUARDS = frozenset({_ITERATE, _OUTPUT, _WEIGH, _AS_TEXT})


def _passed(passing, context) -> tuple:
    """What Jinja hands a filter or test before its value (``pass_context`` and the like)."""
    if passing is _PassArg.context:
        return (context,)
    if passing is _PassArg.eval_context:
        return (context.eval_ctx,)
    if passing is _PassArg.environment:
        return (context.environment,)
    return ()


def _bounded(name: str, function):
    """``function``, a filter or test, with its value and arguments weighed before it runs, one step, and what it
    makes weighed (a lazy result item by item) and charged."""
    if name in _ENGINE_GUARDS:
        return function
    as_text, passing = name in TEXT_FILTERS, _PassArg.from_obj(function)

    @pass_context
    def bounded(context, value, *args, **kwargs):
        budget = budget_of(context)
        budget.step()
        budget.weigh(value, as_text)
        for argument in (*args, *kwargs.values()):
            budget.weigh(argument)
        return budget.made(function(*_passed(passing, context), value, *args, **kwargs))

    bounded.__name__ = bounded.__qualname__ = getattr(function, "__name__", name)
    return bounded


class _BoundedFunctions(dict):
    """An environment's filters or tests: each bounded (``_bounded``) as it is put in, by any means."""

    def __init__(self, functions: dict):
        super().__init__()
        self.update(functions)

    def __setitem__(self, name, function):
        super().__setitem__(name, _bounded(name, function))

    def update(self, *args, **kwargs):
        for name, function in dict(*args, **kwargs).items():
            self[name] = function

    def setdefault(self, name, function=None):
        if name not in self:
            self[name] = function
        return self[name]


# -- the environment -------------------------------------------------------------------


class ContentEnvironment(SandboxedEnvironment):
    """A sandbox for content: allowlisted types only, bounded work, data printed as text."""

    intercepted_binops = frozenset({"**", "*", "+", "%", "/", "//"})
    code_version = CODE_VERSION

    def __init__(self, **options):
        super().__init__(finalize=_finalize, **options)
        self.globals = {"range": content_range, "namespace": Namespace}
        self.filters = _BoundedFunctions({name: JINJA_FILTERS[name] for name in BOUNDED_JINJA_FILTERS})
        self.filters.update({"e": _escape, "escape": _escape, "join": _join, "sum": _sum,
                             _ITERATE: _iterate, _OUTPUT: _count_output, _WEIGH: _weighed,
                             _AS_TEXT: _weighed_as_text})
        self.tests = _BoundedFunctions(self.tests)

    def _parse(self, source, name, filename):
        return _Guards().visit(super()._parse(source, name, filename))

    def _tokenize(self, source, name, filename=None, state=None):
        """The template's tokens, refused past ``MAX_TOKENS`` before the parser builds more of it."""
        stream = super()._tokenize(source, name, filename, state)
        return TokenStream(_counted(stream, name, filename), name, filename)


    # Attribute and item access --------------------------------------------------

    def is_safe_attribute(self, obj, attr: str, value) -> bool:
        access = access_of(type(obj))
        return (access is not None and isinstance(attr, str) and not attr.startswith("_")
                and not is_internal_attribute(obj, attr) and access.may_read(attr) and is_allowed_value(value))

    def is_safe_callable(self, obj) -> bool:
        return is_allowed_callable(obj)

    def getattr(self, obj, attribute):
        if isinstance(obj, Undefined):
            return obj
        access = self._access(obj)
        if not isinstance(attribute, str) or attribute.startswith("_") or is_internal_attribute(obj, attribute):
            raise SecurityError(f"content cannot read {attribute!r} of a {_kind(obj)}")
        if access.may_read(attribute):
            try:
                return self._checked(obj, attribute, getattr(obj, attribute))
            except AttributeError:
                pass
        elif hasattr(obj, attribute):
            raise SecurityError(f"content cannot read {attribute!r} of a {_kind(obj)}")
        if access.items:
            try:
                return self._checked(obj, attribute, obj[attribute])
            except (TypeError, LookupError):
                pass
        return self.undefined(obj=obj, name=attribute)

    def getitem(self, obj, argument):
        if isinstance(obj, Undefined):
            return obj
        if self._access(obj).items:
            try:
                return self._checked(obj, argument, obj[argument])
            except (TypeError, LookupError):
                pass
        if isinstance(argument, str):
            return self.getattr(obj, argument)
        return self.undefined(obj=obj, name=argument)

    def _access(self, obj) -> Access:
        access = access_of(type(obj))
        if access is None:
            raise SecurityError(f"content cannot use a {_kind(obj)}")
        return access

    def _checked(self, obj, name, value):
        if not is_allowed_value(value):
            raise SecurityError(f"content cannot use {name!r} of a {_kind(obj)}: it is a {_kind(value)}")
        return value

    def unsafe_undefined(self, obj, attribute):
        raise SecurityError(f"content cannot read {attribute!r} of a {_kind(obj)}")

    # Calls and operators ----------------------------------------------------------

    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 - Jinja's signature
        budget = budget_of(__context)
        budget.step()
        if isinstance(__obj, Undefined):
            return __obj()  # raises what is undefined
        if not is_allowed_callable(__obj):
            raise SecurityError(f"content cannot call a {_kind(__obj)}")
        for argument in (getattr(__obj, "__self__", None), *args, *kwargs.values()):  # list.count walks its list
            budget.weigh(argument)
        result = __context.call(__obj, *args, **kwargs)
        if not is_allowed_value(result):
            raise SecurityError(f"content cannot use the {_kind(result)} that {getattr(__obj, '__name__', 'a call')}"
                                f"() returns")
        if result is budget.last_block:  # the engine's block, sized by the data: counted above
            return result
        return budget.made(result)

    def call_binop(self, context, operator: str, left, right):
        budget = budget_of(context)
        budget.step()
        _check_operation(budget, operator, left, right)
        return budget.made(_check_number(self.binop_table[operator](left, right)))


def _counted(stream: TokenStream, name, filename):
    """``stream``'s tokens, refused with the line of the first past ``MAX_TOKENS`` (text between tags is free)."""
    count = 0
    for token in stream:
        if token.type != TOKEN_DATA:
            count += 1
            if count > MAX_TOKENS:
                raise TemplateSyntaxError(f"more than {MAX_TOKENS:,} names, numbers and operators in expressions",
                                          token.lineno, name, filename)
        yield token


# -- what content reads: the calculation, the data model, page facts -------------------


def _expose_defaults() -> None:
    import dataclasses

    from ..calc import card_view, figure, guide, lookup, memory, model_views
    from ..facts.base import Facts
    from ..load import model
    from ..tables import model as pieces

    for cls in (figure.Figure, figure.Formula, guide.Guide, model_views.SizedView, card_view.GpuView,
                memory.MemoryNeed, lookup.Lookup, lookup.Configuration, pieces.Text, pieces.Msg, pieces.Fig, pieces.Link, pieces.Flag,
                pieces.Names, Facts):
        expose(cls)
    for cls in vars(model).values():  # the frozen data model, record by record
        if isinstance(cls, type) and cls.__module__ == model.__name__ and dataclasses.is_dataclass(cls):
            expose(cls)
    expose(_GroupTuple, Access(frozenset({"grouper", "list"}) | _SEQUENCE_METHODS, _SEQUENCE_METHODS, items=True))


_expose_defaults()
