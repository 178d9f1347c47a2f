"""The API's reference page at `/docs`, drawn here from the OpenAPI schema with nothing fetched from elsewhere.

FastAPI's own `/docs` (Swagger UI) and `/redoc` load their scripts, styles and fonts from public CDNs
(cdn.jsdelivr.net, fonts.googleapis.com): in a venue without internet they stayed blank. This page is
one document with its style inline; the schema itself stays at `/openapi.json` for tools."""

from __future__ import annotations

from html import escape
from typing import Any

from table_controller.web.icon import LINK

METHODS = ("get", "post", "put", "patch", "delete")

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 60em; padding: 0 1em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
.op { margin: .6em 0; padding: .4em .6em; border-left: 4px solid #888; background: #f6f6f6; }
.get { border-color: #2a7ae2; } .post { border-color: #2e9e44; }
.m { font-weight: bold; text-transform: uppercase; display: inline-block; min-width: 3.5em; }
code { font-family: ui-monospace, monospace; } .d { margin: .2em 0 0 4em; color: #444; white-space: pre-line; }
"""


def _schema_name(body: dict[str, Any]) -> str:
    """The request body's schema as its name (`#/components/schemas/PlayIn` → `PlayIn`), or ""."""
    for media in body.get("content", {}).values():
        ref = media.get("schema", {}).get("$ref", "")
        if ref:
            return str(ref).rsplit("/", 1)[-1]
    return ""


def _operation(method: str, path: str, op: dict[str, Any]) -> str:
    """One route: its method, path, summary, parameters and body."""
    params = ", ".join(f"{escape(p['name'])}{'' if p.get('required') else '?'} ({escape(p.get('in', ''))})"
                       for p in op.get("parameters", []))
    body = _schema_name(op.get("requestBody", {}))
    lines = [escape(op.get("summary", ""))]
    if params:
        lines.append(f"参数 / parameters: {params}")
    if body:
        lines.append(f"请求体 / body: <code>{escape(body)}</code> (schema in /openapi.json)")
    return (f'<div class="op {method}"><span class="m">{method}</span> <code>{escape(path)}</code>'
            f'<div class="d">{"<br>".join(x for x in lines if x)}</div></div>')


def api_page(schema: dict[str, Any]) -> str:
    """The reference page for `schema` (the app's OpenAPI document): every route, grouped by its first part."""
    info = schema.get("info", {})
    groups: dict[str, list[str]] = {}
    for path, item in schema.get("paths", {}).items():
        group = "/".join(path.split("/")[:3]) if path.startswith("/api/") else path
        for method in METHODS:
            if method in item:
                groups.setdefault(group, []).append(_operation(method, path, item[method]))
    parts = [f"<h2><code>{escape(g)}</code></h2>{''.join(ops)}" for g, ops in groups.items()]
    return (f'<!doctype html><html lang="zh"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>API · {escape(info.get('title', ''))}</title>{LINK}<style>{STYLE}</style></head><body>"
            f"<h1>{escape(info.get('title', ''))} <small>{escape(info.get('version', ''))}</small></h1>"
            f"<p>{escape(info.get('description', ''))}</p>"
            '<p>接口说明，无需联网 / the API, served by this table (no internet needed). '
            'Machine-readable schema: <a href="/openapi.json">/openapi.json</a>.</p>'
            f"{''.join(parts)}</body></html>")
