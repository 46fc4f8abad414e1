"""The `memory ui` web application: Starlette routes over one `MemoryService`, behind `Guard`.

Pages are rendered on the server from the templates shipped in this package; the one script
(`static/live.js`) refreshes a page's live region when a capture or a recall lands and fills the
redaction field from a selection. Every action is a POST the guard checked for the token, and
goes through the service; nothing here touches a store.

Failure: a store that is down renders a page that says so (503), an unknown record 404, a
mistyped parameter 400 with the reason; no traceback reaches the browser.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from memory_core.errors import MemoryCoreError, NotFound, StoreError
from memory_core.service import MemoryService
from memory_core.store.base import RecordFilter
from memory_core.ui import views
from memory_core.ui.guard import CSRF_FIELD, Guard, LaunchToken
from memory_core.utc import SECOND, utc_or_none

__all__ = ["build_app"]

_HERE = Path(__file__).parent
_LIVE_POLL_S = 1.0
"""How often the event stream looks at the store's activity stamp: a new turn shows within a second."""
_REDACT_MAX = 100
"""Occurrences of one span a single redaction replaces at most."""


def _when(seconds: float | str | None) -> str:
    if seconds is None or seconds == "":
        return "never"
    return utc_or_none(seconds, SECOND) or str(seconds)


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(_HERE / "templates"),
        autoescape=select_autoescape(default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["when"] = _when
    env.filters["pct"] = lambda share: f"{100 * float(share):.0f}%"
    env.filters["score"] = lambda score: f"{float(score):.2f}"
    env.filters["short"] = lambda text, n=180: text if len(text) <= n else text[: n - 1].rstrip() + "…"
    return env


def build_app(service: MemoryService, token: LaunchToken, port: int) -> Guard:
    """The ASGI application for one launch: the routes behind the token and Host gate."""
    env = _environment()
    lock = threading.Lock()

    def render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        html = env.get_template(template).render(
            csrf=token.csrf,
            csrf_field=CSRF_FIELD,
            page=template.removesuffix(".html"),
            notice=request.query_params.get("notice", ""),
            user=service.config.user,
            here=service.project().key,
            **context,
        )
        return HTMLResponse(html, status_code=status)

    def failure(request: Request, exc: Exception, title: str) -> HTMLResponse:
        """A page that says what went wrong, with the status a browser and a script understand."""
        if isinstance(exc, NotFound):
            return render(request, "error.html", 404, title="Not found", message=str(exc))
        if isinstance(exc, StoreError):
            return render(request, "error.html", 503, title="The store is not answering", message=str(exc))
        # A mistyped parameter, another user's scope, or a note the firewall emptied.
        return render(request, "error.html", 400, title=title, message=str(exc))

    def page(template: str, build: Callable[[Request], dict[str, Any]]) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:
            try:
                with lock:
                    context = build(request)
            except (MemoryCoreError, ValueError, PermissionError) as exc:
                return failure(request, exc, "Cannot show that")
            return render(request, template, **context)

        return endpoint

    def action(work: Callable[[dict[str, str]], str]) -> Callable[[Request], Any]:
        """A POST endpoint: run `work` on the form, then go where it says (with a notice)."""

        async def endpoint(request: Request) -> Response:
            form = {k: str(v) for k, v in (await request.form()).items()}

            def run() -> str:
                with lock:
                    return work(form)

            try:
                location = await asyncio.to_thread(run)
            except (MemoryCoreError, ValueError, PermissionError) as exc:
                return failure(request, exc, "Cannot do that")
            return RedirectResponse(location, status_code=303)

        return endpoint

    def to(path: str, notice: str, **params: str) -> str:
        query = {k: v for k, v in params.items() if v}
        query["notice"] = notice
        return f"{path}?{urlencode(query)}"

    # -- actions ---------------------------------------------------------------------------

    def forget(form: dict[str, str]) -> str:
        if form.get("confirm") != "yes":
            raise ValueError("forgetting needs the confirmation")
        scope = views.parse_scope(form.get("scope"), service)
        if form.get("record"):
            n = service.forget_record(form["record"])
            return to(
                "/memories", f"Forgot {n} record." if n == 1 else "That record was already gone.", scope=str(scope)
            )
        session = form.get("session", "")
        if not session:
            raise ValueError("say which record or session to forget")
        n = service.forget_session(scope, session)
        return to("/memories", f"Forgot session {session}: {n} record{'s' if n != 1 else ''}.", scope=str(scope))

    def feedback(form: dict[str, str]) -> str:
        outcome = form.get("outcome", "")
        if outcome not in ("acted", "contradicted"):
            raise ValueError("feedback is acted or contradicted")
        standing = service.feedback(form.get("record", ""), outcome)  # type: ignore[arg-type]
        hint = " It is no longer recalled." if standing < 0 else ""
        return to(f"/memories/{form['record']}", f"Marked {outcome}; standing is now {standing}.{hint}")

    def redact(form: dict[str, str]) -> str:
        record_id, span = form.get("record", ""), form.get("span", "")
        if not span.strip():
            raise ValueError("type or select the text to redact")
        record = service.record(record_id)
        if span not in record.text:
            raise ValueError("that text is not in this record (it must match exactly)")
        count = 0
        while span in record.text and count < _REDACT_MAX:
            start = record.text.index(span)
            record = service.redact(record_id, start, start + len(span))
            count += 1
        return to(f"/memories/{record_id}", f"Redacted {count} occurrence{'s' if count != 1 else ''}.")

    def save_note(form: dict[str, str]) -> str:
        note = service.save(form.get("text", ""), scope="user" if form.get("scope") == "user" else "project")
        return to(f"/memories/{note.id}", "Saved the note.")

    def switch(form: dict[str, str]) -> str:
        key = form.get("project") or service.project().key
        active = form.get("state") == "on"
        changed = service.set_active(key, active)
        state = "on" if active else "off"
        return to("/", f"Memory is {state} for {key}" + ("." if changed else " (it already was)."))

    # -- pages -----------------------------------------------------------------------------

    def confirm_forget(request: Request) -> dict[str, Any]:
        scope = views.parse_scope(request.query_params.get("scope"), service)
        record_id = request.query_params.get("record", "")
        session = request.query_params.get("session", "")
        record = service.record(record_id) if record_id else None
        count = len(service.records_page(scope, RecordFilter(session_id=session), limit=500)) if session else 1
        if not record and not session:
            raise ValueError("say which record or session to forget")
        return {"scope": scope, "record": record, "session": session, "count": count}

    async def export(request: Request) -> Response:
        form = await request.form()
        scope = views.parse_scope(str(form.get("scope", "")), service)

        def lines() -> Iterator[bytes]:
            # Not under the page lock: the store reads a page at a time, each call its own.
            for item in service.export_scope(scope):
                yield (json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n").encode()

        name = "memory-export.jsonl"
        return StreamingResponse(
            lines(),
            media_type="application/x-ndjson",
            headers={"content-disposition": f'attachment; filename="{name}"'},
        )

    async def events(request: Request) -> Response:
        async def stream() -> AsyncIterator[bytes]:
            last: str | None = None
            yield b"retry: 2000\n\n"
            while not await request.is_disconnected():
                stamp: str | None
                try:
                    stamp = await asyncio.to_thread(service.activity)
                except StoreError:
                    stamp = last
                if last is not None and stamp != last:
                    yield f"event: change\ndata: {stamp}\n\n".encode()
                last = stamp
                await asyncio.sleep(_LIVE_POLL_S)

        return StreamingResponse(stream(), media_type="text/event-stream")

    routes = [
        Route("/", page("overview.html", lambda r: views.overview(service))),
        Route("/memories", page("memories.html", lambda r: views.memories(service, r.query_params))),
        Route(
            "/memories/{id}",
            page("record.html", lambda r: views.record_page(service, r.path_params["id"])),
        ),
        Route("/search", page("search.html", lambda r: views.search(service, r.query_params))),
        Route("/recalls", page("recalls.html", lambda r: views.recalls(service))),
        Route("/forget", page("confirm.html", confirm_forget)),
        Route("/forget", action(forget), methods=["POST"]),
        Route("/feedback", action(feedback), methods=["POST"]),
        Route("/redact", action(redact), methods=["POST"]),
        Route("/notes", action(save_note), methods=["POST"]),
        Route("/switch", action(switch), methods=["POST"]),
        Route("/export", export, methods=["POST"]),
        Route("/events", events),
        Mount("/static", StaticFiles(directory=_HERE / "static"), name="static"),
    ]
    return Guard(Starlette(routes=routes), token=token, port=port)
