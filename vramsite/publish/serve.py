"""`build.py serve`: a preview of the site on localhost, rebuilt when its sources change.

The site is rendered in memory (nothing is written, site/ is left alone) and
served with the standard library's HTTP server. Before answering a request
the server compares the modification times of every file under data/,
content/, templates/ and locales/ (and the engine's templates/ and locales/,
which a site falls back on) with those of the last build, and rebuilds if
any changed, appeared or went away (``preview.py``: the page asked for and
the pages open in a browser are rendered first, and answered before the rest
of the site is done). While a build fails, every request gets an HTML page
listing the problems (file:line: field: message); the next request after
the fix shows the site again.

Each HTML page the preview serves (never a file of the built site) carries a
small script that listens on ``/__reload`` with server-sent events, naming
the build it came from and its own path: the stream tells the page to reload
itself as soon as a newer build can answer it, failed builds included. While
streams are open one watcher thread looks at the sources every 0.1 s and
wakes them; a stream ends as soon as its page goes away, and past
MAX_RELOAD_STREAMS a new one is refused (503).

The preview answers requests for this machine only (a Host header naming
another machine, as DNS rebinding sends, gets 403), and never from another
site's page (an Origin or Sec-Fetch-Site naming another origin: 403), except
a reader following a link to a page.

Requests are answered on threads of their own. `serve` renders in a builder
process started before the first thread (``builder.py``), which shares the
languages out among the cores as `build` does.
"""

from __future__ import annotations

import html
import ipaddress
import mimetypes
import posixpath
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

from ..errors import Problem, in_words
from .builder import Builder, Render, render_kept
from .preview import PreviewSite, resolve, site_path

TEXT_TYPES = {
    ".html": "text/html",
    ".md": "text/markdown",
    ".txt": "text/plain",
    ".xml": "application/xml",
    ".css": "text/css",
    ".js": "text/javascript",
    ".json": "application/json",
    ".svg": "image/svg+xml",
}


RELOAD_PATH = "/__reload"
"""The server-sent events the preview's pages listen on; no file of a site is served there."""
RELOAD_POLL_SECONDS = 0.1
"""How often the sources are looked at while a page is open (by one watcher thread, whatever the number of
open pages: a look at some fifty files' times, about 0.5 ms)."""
HEARTBEAT_SECONDS = 15
"""How often, by the clock, an idle reload stream sends a comment (so that a peer gone without a word, its
machine asleep or off the network, fails a write and ends the stream's thread)."""
PEER_CHECK_SECONDS = 0.5
"""How often an idle reload stream looks whether its page went away (its connection closed): a dropped stream
ends its thread within this, not at the next heartbeat."""
MAX_RELOAD_STREAMS = 32
"""Reload streams open at once; past it a new one is answered 503 at once. A browser holds at most six
HTTP/1.1 connections to one host, its pages' streams among them, so an editor's browsers stay far below it;
a flood of connections (any page can make a browser open them, any local program too) finds it and costs a
thread and a lock wake-up per stream, 32 at most. The streams already open (the editor's pages) keep theirs:
closing the oldest instead would let each new connection of a flood push out one of them."""
REQUEST_TIMEOUT_SECONDS = 10
"""How long a connection may sit silent while its request is read or an answer waits to be taken: a
connection opened and left idle ends its thread then, instead of never."""

LISTEN_BACKLOG = 1024
"""Connections the system queues while every thread is busy (the standard library's 5 drops a browser's burst)."""


SAME_ORIGIN_FETCHES = ("same-origin", "none")
"""The Sec-Fetch-Site of the requests the preview's own pages make ("none": an address typed or bookmarked)."""


class ServeError(Exception):
    """The preview cannot start: the address is taken, not this machine's, or not allowed."""


def error_page(problems: list[Problem]) -> bytes:
    """An HTML page listing every problem; it reloads itself every 2 seconds until the build works again."""
    count = len(problems)
    items = "\n".join(f"<li><code>{html.escape(str(problem))}</code></li>" for problem in problems)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="2">
<title>Build failed: {count} problem{'s' if count != 1 else ''}</title>
<style>
body {{ font: 16px/1.5 system-ui, sans-serif; margin: 2rem; color: #222; }}
h1 {{ color: #a00; font-size: 1.4rem; }}
li {{ margin: .4rem 0; }}
code {{ white-space: pre-wrap; }}
</style>
</head>
<body>
<h1>The site does not build: {count} problem{'s' if count != 1 else ''}</h1>
<p>Each line is <code>file:line: field: message</code>. Fix them and save; this page reloads by itself
and shows the site again once it builds.</p>
<ol>
{items}
</ol>
</body>
</html>
""".encode("utf-8")


def reload_script(build: int, page: str) -> bytes:
    """The script a preview page runs: reload once a build newer than ``build`` can answer ``page`` (its path)."""
    return (f'<script>new EventSource("{RELOAD_PATH}?since={build}&page={quote(page, safe="/")}")'
            '.addEventListener("reload", function () { location.reload(); });</script>').encode("utf-8")


def with_reload(page: bytes, build: int, path: str) -> bytes:
    """An HTML page with the reload script just before its closing </body> (or at its end)."""
    script = reload_script(build, path)
    at = page.rfind(b"</body>")
    return page + script if at < 0 else page[:at] + script + page[at:]


def reload_query(url_path: str) -> tuple[int, str]:
    """The build a page listening on /__reload?since=N&page=P was served from (-1 when it does not say), and P."""
    query = parse_qs(urlsplit(url_path).query)
    since = query.get("since", [""])[0]
    return (int(since) if since.isdigit() else -1), query.get("page", [""])[0]


def foreign_host(host: str | None, own_names: set[str]) -> bool:
    """Whether a request's Host header names a machine that is not this one: neither an address, nor
    ``localhost`` (or a name under it), nor one of ``own_names`` (``machine_names``).

    A page of another site whose name its DNS points at 127.0.0.1 (DNS rebinding) sends that name; answered,
    it would read the preview's pages as its own origin's. A request without a Host (no browser's) passes.
    """
    if not host:
        return False
    name = host_name(host)
    if name in own_names or name == "localhost" or name.endswith(".localhost"):
        return False
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return True
    return False


def machine_names(listening_on: str) -> set[str]:
    """The names a browser may know this machine by: the one the preview listens on, and its host name."""
    return {host_name(listening_on), host_name(socket.gethostname())}


def host_name(host: str) -> str:
    """The machine a Host header names, without its port: 'Localhost:8000' -> 'localhost', '[::1]:80' -> '::1'."""
    host = host.strip().lower()
    if host.startswith("[") and "]" in host:
        return host[1:host.index("]")]
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    return name.rstrip(".")


def cross_origin(headers, navigation_passes: bool) -> str | None:
    """The header that shows a request comes from a page of another origin, as 'Name: value', or None.

    ``Origin`` must be the preview's own (``http://`` and the Host asked for); ``Sec-Fetch-Site`` must say the
    request is same-origin or the reader's own (a typed address). Where ``navigation_passes``, a reader
    following a link from another site to a page (a top-level navigation) passes.
    """
    origin = headers.get("Origin")
    if origin is not None and origin.lower() != f"http://{(headers.get('Host') or '').lower()}":
        return f"Origin: {origin}"
    fetched_from = (headers.get("Sec-Fetch-Site") or "").lower()
    if fetched_from and fetched_from not in SAME_ORIGIN_FETCHES:
        followed_link = headers.get("Sec-Fetch-Mode") == "navigate" and headers.get("Sec-Fetch-Dest") == "document"
        if not (navigation_passes and followed_link):
            return f"Sec-Fetch-Site: {fetched_from}"
    return None


def peer_done(connection: socket.socket) -> bool:
    """Whether a reload stream's connection has anything to read: its end (the page went away, or reset it)
    or bytes, which a page's EventSource never sends after its request. Either way the stream is over."""
    timeout = connection.gettimeout()
    connection.settimeout(0)
    try:
        connection.recv(1, socket.MSG_PEEK)
    except BlockingIOError:  # nothing to read: the page still listens
        return False
    except OSError:
        return True
    finally:
        connection.settimeout(timeout)
    return True


def content_type(path: str) -> str:
    suffix = posixpath.splitext(path)[1]
    kind = TEXT_TYPES.get(suffix) or mimetypes.guess_type(path)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind in ("application/xml", "application/json", "image/svg+xml"):
        kind += "; charset=utf-8"
    return kind


class PreviewServer(ThreadingHTTPServer):
    """One thread per request, a real listen backlog, a cap on reload streams, and one line (not a traceback)
    when a request fails."""

    request_queue_size = LISTEN_BACKLOG
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], site: PreviewSite):
        self.site = site
        self.reload_streams = threading.BoundedSemaphore(MAX_RELOAD_STREAMS)
        super().__init__(address, handler)

    def handle_error(self, request, client_address) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):  # the browser went away or stopped reading
            return
        self.site.log(f"request from {client_address[0]} failed: {type(error).__name__}: {error}")
        if self.site.debug:
            self.site.log(traceback.format_exc())


def make_handler(site: PreviewSite, listening_on: str = "127.0.0.1") -> type[BaseHTTPRequestHandler]:
    own_names = machine_names(listening_on)

    class Handler(BaseHTTPRequestHandler):
        server_version = "vramsite-preview"
        timeout = REQUEST_TIMEOUT_SECONDS

        def do_GET(self) -> None:
            self._answer(head=False)

        def do_HEAD(self) -> None:
            self._answer(head=True)

        def _answer(self, head: bool) -> None:
            reload = urlsplit(self.path).path == RELOAD_PATH
            refusal = self._refusal(reload)
            if refusal:
                self._send(HTTPStatus.FORBIDDEN, f"refused: {refusal}\n".encode("utf-8"),
                           "text/plain; charset=utf-8", head)
            elif reload:
                self._events(*reload_query(self.path), head)
            else:
                self._page(head)

        def _refusal(self, reload: bool) -> str | None:
            """Why the request is not answered: it names another machine, or comes from another site's page
            (which may still link to a page of the preview, never listen to its reloads)."""
            host = self.headers.get("Host")
            if foreign_host(host, own_names):
                return f"the preview answers for this machine only, not for Host: {host}"
            other = cross_origin(self.headers, navigation_passes=not reload)
            return f"a request from another site's page ({other})" if other else None

        def _page(self, head: bool) -> None:
            files, problems, build = site.answer(self.path)
            path, redirect = resolve(files, self.path)
            page = path or site_path(self.path)
            if problems:
                self._send(HTTPStatus.INTERNAL_SERVER_ERROR, with_reload(error_page(problems), build, page),
                           "text/html; charset=utf-8", head)
            elif redirect:
                self.send_response(HTTPStatus.MOVED_PERMANENTLY)
                self.send_header("Location", redirect)
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif path is not None:
                kind = content_type(path)
                body = with_reload(files[path], build, path) if kind.startswith("text/html") else files[path]
                self._send(HTTPStatus.OK, body, kind, head)
            else:
                body = files.get("404.html", b"<!DOCTYPE html><title>Not found</title><p>Not found.</p>")
                self._send(HTTPStatus.NOT_FOUND, with_reload(body, build, page), "text/html; charset=utf-8", head)

        def _events(self, since: int, page: str, head: bool) -> None:
            """Server-sent events: one "reload" once a build newer than ``since`` can answer ``page``; 503 at
            once while MAX_RELOAD_STREAMS are open."""
            if not self.server.reload_streams.acquire(blocking=False):
                self._send(HTTPStatus.SERVICE_UNAVAILABLE,
                           f"too many reload streams open ({MAX_RELOAD_STREAMS}); reload the page by hand\n"
                           .encode("utf-8"), "text/plain; charset=utf-8", head)
                return
            try:
                self.send_response(HTTPStatus.OK)
                self.send_header("Content-Type", "text/event-stream; charset=utf-8")
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                if not head:
                    self._stream(since, page)
            finally:
                self.server.reload_streams.release()

        def _stream(self, since: int, page: str) -> None:
            """Wait for the build (woken by the one watcher), look now and then whether the page went away,
            and send a comment every HEARTBEAT_SECONDS by the clock."""
            with site.viewing(page), site.watched(RELOAD_POLL_SECONDS):
                heartbeat = time.monotonic() + HEARTBEAT_SECONDS
                while (build := site.newer_than(since, page, PEER_CHECK_SECONDS)) is None:
                    if peer_done(self.connection):
                        return
                    if time.monotonic() >= heartbeat:
                        self.wfile.write(b": waiting\n\n")
                        heartbeat = time.monotonic() + HEARTBEAT_SECONDS
                self.wfile.write(f"event: reload\ndata: {build}\n\n".encode("utf-8"))

        def _send(self, status: HTTPStatus, body: bytes, kind: str, head: bool) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
            pass

    return Handler


def start_server(root: Path, host: str = "127.0.0.1", port: int = 8000,
                 log: Callable[[str], None] | None = None, debug: bool = False,
                 render: Render = render_kept) -> tuple[PreviewServer, PreviewSite]:
    """A bound server (port 0: any free port) and its site; call ``serve_forever`` to run it.

    Raises ServeError, saying why in words, when the address cannot be listened on.
    """
    site = PreviewSite(root, render=render, log=log, debug=debug)
    try:
        server = PreviewServer((host, port), make_handler(site, host), site)
    except (OSError, OverflowError) as error:
        raise ServeError(f"cannot listen on {_address(host, port)}: {in_words(error)}") from error
    return server, site


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def serve(root: Path, host: str = "127.0.0.1", port: int = 8000, poll_seconds: float = 1.0,
          debug: bool = False) -> None:
    """Run the preview until Ctrl-C; a watcher rebuilds soon after a save so problems print right away."""
    builder = Builder()  # before the first thread: see builder.py
    try:
        server, site = start_server(root, host, port, debug=debug, render=builder)
        try:
            _run(server, site, host, poll_seconds)
        finally:
            server.server_close()
    finally:
        builder.close()


def _run(server: PreviewServer, site: PreviewSite, host: str, poll_seconds: float) -> None:
    site.current()
    address = f"http://{_address(host, server.server_address[1])}/"
    print(f"serving {site.root.resolve()} at {address} (Ctrl-C stops)", file=sys.stderr, flush=True)
    try:
        with site.watched(poll_seconds):
            server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
