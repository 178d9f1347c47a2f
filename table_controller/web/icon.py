"""The pages' icon (the 红中 tile), served as `/favicon.ico` by the display and by the hub.

Browsers ask for `/favicon.ico` on every document they open (a JSON answer too) unless a page links
another; answered 404, every tablet's console said so on every page. The pages link it with its
type (`LINK`), so the browser reads the drawing as SVG.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Response

ICON_SVG = Path(__file__).resolve().parent / "static" / "icon.svg"
#: the `<link>` the pages carry in their head
LINK = '<link rel="icon" type="image/svg+xml" href="/favicon.ico">'


def serve_icon(app: Any) -> None:
    """Add `GET /favicon.ico` (the drawing, kept a day by the browser) to a FastAPI `app`."""
    drawing = ICON_SVG.read_bytes()

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        return Response(drawing, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})
