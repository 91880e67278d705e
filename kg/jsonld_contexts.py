"""JSON-LD contexts a file names by reference, read from disk beside it - never fetched.

Oxigraph's JSON-LD parser loads no context it is not given inline ("No LoadDocumentCallback has been
set to load remote contexts"), and a test suite names its context relatively: json-ld-api's
tests/manifest.jsonld says `"@context": "context.jsonld"`, its compact-manifest.jsonld
`["context.jsonld", {"@base": "compact-manifest"}]`. Before parsing, each context reference is
replaced by the "@context" of the file it names, resolved against the location of the file that
names it and read only from inside the folder given (the manifest's own folder): a reference leaving
that folder, or one to a network location, is refused with the fix. As JSON-LD 1.1 processes a
context retrieved by reference, its "@base" is left out (Context Processing, step 5.7: @base is read
only from a context that was not retrieved), and an "@import" is merged under the importing context's
own definitions (step 5.6)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from .errors import Problem, Rejected


def inline_contexts(document: Any, path: Path, root: Path, name: str) -> Any:
    """The document with every context reference replaced by that context, read from under root."""
    return _Inliner(root.resolve(), name).document(document, path.resolve())


class _Inliner:
    def __init__(self, root: Path, name: str):
        self.root, self.name = root, name

    def refuse(self, message: str, fix: str) -> None:
        raise Rejected([Problem(self.name, "", message, fix)])

    def document(self, value: Any, here: Path) -> Any:
        """Every "@context" anywhere in the value (embedded and scoped contexts too) inlined."""
        if isinstance(value, list):
            return [self.document(v, here) for v in value]
        if not isinstance(value, dict):
            return value
        return {k: (self.context(v, here, ()) if k == "@context" else self.document(v, here)) for k, v in value.items()}

    def context(self, value: Any, here: Path, chain: tuple[Path, ...]) -> Any:
        """A context value: a reference, an inline context, or a list of them."""
        if isinstance(value, list):
            out: list = []
            for item in value:
                inlined = self.context(item, here, chain)
                out += inlined if isinstance(item, str) and isinstance(inlined, list) else [inlined]
            return out
        if isinstance(value, str):
            return self.referenced(value, here, chain)
        if not isinstance(value, dict):
            return value  # null, or what the parser will itself refuse
        out = {}
        imported = value.get("@import")
        if isinstance(imported, str):
            base = self.referenced(imported, here, chain)
            if isinstance(base, dict):
                out.update(base)
        for key, term in value.items():
            if key == "@import":
                continue
            if isinstance(term, dict) and "@context" in term:  # a scoped context
                term = {**term, "@context": self.context(term["@context"], here, chain)}
            out[key] = term
        return out

    def referenced(self, reference: str, here: Path, chain: tuple[Path, ...]) -> Any:
        """The "@context" of the file a reference names, its own references inlined in turn."""
        target = urljoin(here.as_uri(), reference)
        parts = urlsplit(target)
        if parts.scheme != "file":
            self.refuse(f"the JSON-LD context <{target}> (named in {here.name}) is not a local file, and kg "
                        f"never fetches over the network",
                        f"save the context in {self.root} and name it relatively, e.g. \"@context\": "
                        f"\"{Path(parts.path).name or 'context.jsonld'}\"")
        file = Path(unquote(parts.path)).resolve()
        if not file.is_relative_to(self.root):
            self.refuse(f"the JSON-LD context {reference!r} (named in {here.name}) is {file}, outside the folder "
                        f"{self.root} the file is read from", f"keep the suite's contexts in {self.root}")
        if file in chain:
            self.refuse(f"the JSON-LD context {file.name} names itself through "
                        f"{' -> '.join(p.name for p in chain + (file,))}", "break the cycle of context references")
        try:
            held = json.loads(file.read_text(encoding="utf-8"))
        except OSError as err:
            self.refuse(f"the JSON-LD context {reference!r} (named in {here.name}) cannot be read: {err.strerror}",
                        f"keep the context beside the file, at {file}")
        except (UnicodeDecodeError, ValueError) as err:
            self.refuse(f"the JSON-LD context {file.name} is not JSON: {err}", f"fix {file}")
        if not isinstance(held, dict) or "@context" not in held:
            self.refuse(f"the JSON-LD context file {file.name} has no top-level \"@context\"",
                        "a context document is a JSON object with a \"@context\" entry")
        inlined = self.context(held["@context"], file, chain + (file,))
        # a context retrieved by reference sets no base (JSON-LD 1.1 Context Processing, step 5.7)
        if isinstance(inlined, dict):
            inlined.pop("@base", None)
        elif isinstance(inlined, list):
            inlined = [{k: v for k, v in c.items() if k != "@base"} if isinstance(c, dict) else c for c in inlined]
        return inlined
