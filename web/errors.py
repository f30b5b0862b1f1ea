"""Errors the dashboard turns into JSON answers: each carries a bilingual message and a status."""

from __future__ import annotations

from scorer.core.types import Message, TableRefError


class WebError(TableRefError):
    """Root of the dashboard's refusals. ``code`` is stable (the pages and tests switch on it)."""

    status = 400
    code = "bad_request"

    def __init__(self, message: Message, *, field: str | None = None, code: str | None = None,
                 retry_after: float | None = None):
        self.message = message
        self.field = field
        self.retry_after = retry_after
        if code:
            self.code = code
        super().__init__(str(message))

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"ok": False, "error": {"code": self.code, "message": self.message.to_json()}}
        if self.field:
            out["error"]["field"] = self.field  # type: ignore[index]
        if self.retry_after is not None:
            out["error"]["retry_after"] = round(self.retry_after, 1)  # type: ignore[index]
        return out


class BadInput(WebError, ValueError):
    status = 400
    code = "bad_input"


class PinRequired(WebError, PermissionError):
    status = 401
    code = "pin_required"


class CsrfFailed(WebError, PermissionError):
    status = 403
    code = "csrf"


class TooManyAttempts(WebError, PermissionError):
    status = 429
    code = "rate_limited"


class NotFound(WebError, LookupError):
    status = 404
    code = "not_found"


class Conflict(WebError, ValueError):
    status = 409
    code = "conflict"


class Unavailable(WebError, RuntimeError):
    status = 503
    code = "unavailable"


class NotSupported(WebError, NotImplementedError):
    status = 501
    code = "not_supported"
