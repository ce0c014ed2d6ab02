"""yarl URLs for the aiohttp transport, each origin parsed once.

aiohttp takes a `yarl.URL`. Parsing a whole URL string costs yarl about four times as
much as setting a path on a URL already parsed (about 20,000 and 5,000 instructions on
CPython 3.11), and a bulk run sends thousands of URLs that differ only in their path.
"""

from __future__ import annotations

from yarl import URL

_MOST_ORIGINS = 16  # origins kept parsed; more (redirects elsewhere) start afresh


def yarl_url(url: str, origins: dict[str, URL]) -> URL:
    """`URL(url, encoded=True)`: when `url` has no query or fragment, its path set on
    its origin, parsed once and kept in `origins` (the same scheme, netloc and path)."""
    start = url.find("/", url.find("://") + 3)  # the path's first slash
    if start < 0 or "?" in url or "#" in url or "\t" in url or "\n" in url or "\r" in url:
        return URL(url, encoded=True)  # (yarl drops tabs and line breaks; the SDK sends none)
    origin = origins.get(url[:start])
    if origin is None:
        prefix = url[:start]
        scheme_end = prefix.find("://")
        if scheme_end <= 0 or "/" in prefix[:scheme_end]:  # not scheme://authority
            return URL(url, encoded=True)
        origin = URL(prefix, encoded=True)
        if len(origins) >= _MOST_ORIGINS:
            origins.clear()
        origins[prefix] = origin
    return origin.with_path(url[start:], encoded=True)
