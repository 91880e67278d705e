"""kg answers from its own store only: a query that would make an engine fetch another service
(SPARQL 1.1 Federated Query, `SERVICE <url> { … }`) is refused before any engine sees it — by
`kg sparql`, `kg query` and the notebook API on every engine, and by `kg serve` for its clients.
Oxigraph evaluates SERVICE by fetching the URL, so a local client (or a cross-site POST to the
endpoint) could make kg reach any address; no catalogue query needs it.

The check reads the query's tokens, not its text: the word SERVICE inside a string, an IRI, a
comment, a variable (?service) or a prefixed name (ex:service) is not the keyword."""
from __future__ import annotations

import re

from .errors import UsageError

_TOKENS = re.compile(r'''
    (?P<comment>\#[^\n]*)
  | (?P<string>"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^'\\]|\\.|'(?!''))*\'\'\'
              |"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
  | (?P<word>[?$]?[A-Za-z_][\w.\-]*(?::(?:[\w.\-]|%[0-9A-Fa-f]{2}|\\.)*)?|:(?:[\w.\-]|%[0-9A-Fa-f]{2}|\\.)*)
  | (?P<other>.)
''', re.S | re.X)


class FederationRefused(UsageError):
    """A query asked an engine to fetch another SPARQL service."""


def services(text: str) -> list[str]:
    """The targets of every SERVICE keyword in a query (an IRI, a variable or a prefixed name)."""
    found, tokens = [], [(m.lastgroup, m.group()) for m in _TOKENS.finditer(text)]
    significant = [(kind, value) for kind, value in tokens if kind not in ("comment",) and not value.isspace()]
    for n, (kind, value) in enumerate(significant):
        if kind == "word" and value.upper() == "SERVICE":
            rest = significant[n + 1:n + 3]
            if rest and rest[0][0] == "word" and rest[0][1].upper() == "SILENT":
                rest = rest[1:]
            found.append(rest[0][1] if rest else "")
    return found


def refuse_federation(text: str) -> str:
    """The query as it is, or FederationRefused naming the service it would fetch."""
    targets = services(text)
    if targets:
        raise FederationRefused(
            f"the query asks for SERVICE {targets[0]}: kg does not run federated queries (SERVICE would make the "
            f"engine fetch that address); it answers from its own store only. Load the other data with kg load "
            f"and query it here, or send the query to that service yourself")
    return text
