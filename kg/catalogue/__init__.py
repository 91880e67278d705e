"""The catalogue of named queries: one `.rq` file per query under queries/, named by its stem,
documented by a YAML header in `#+` comment lines (grlc-style), so the file stays plain SPARQL
that any engine runs.

One module per job (the imports go down this list, never up):
  values.py    engine answers decoded into Python values: IRI, term_value, the TSV readers, remembered
  binding.py   parameters bound as RDF terms into a query's text (bind, to_term); its code apart from
               its strings and comments (code_only, where_positions)
  model.py     the query model: NamedQuery, Param, Rate, Derivation; what a `#+` header holds
  parsing.py   reading the catalogue: a header parsed and checked against its SPARQL, load, lookup
  running.py   running a query and finishing its rows: run, stream, select, finish, Result
  reference.py the reference page, docs/queries.md (markdown)

Every name is here too, as `catalogue.X` has always read. A module reads its own constants: a test
changing one (MEMO_LIMIT) sets it on the module that holds it (`catalogue.values`), not here.
"""
from __future__ import annotations

from .values import (_BARE, _FLOAT_TYPES, _INTEGER_TYPES, _XSD_BOOLEAN, _XSD_DECIMAL,  # noqa: F401
                     _XSD_DOUBLE, _XSD_INTEGER, IRI, MEMO_LIMIT, XSD, NamedIRI, literal_value, remembered,
                     term_value, tsv_iri, tsv_term, tsv_value)
from .binding import (_BOUND_CALL, _CLAUSE_END, _IRIREF, _TOKEN, _VARNAME, _WHERE, ParameterError,  # noqa: F401
                      _Binder, _code_spans, bind, code_only, sparql_term, to_term, where_positions)
from .model import (COLUMN_TYPES, HEADER_KEYS, PARAM_KEYS, PARAM_TYPES, RATE_KEYS, TOKEN_TYPES, CatalogueError,
                    Derivation, NamedQuery, Param, Rate)
from .parsing import (_DERIVE, UnknownQuery, _parse, check_consistency, load, lookup, parse_file,  # noqa: F401
                      projected_variables)
from .running import (_BOOLEANS, Result, as_boolean, decode_tokens, finish, finished, run, run_check,  # noqa: F401
                      select, stream)
from .reference import _statuses_markdown, markdown  # noqa: F401

__all__ = ["COLUMN_TYPES", "HEADER_KEYS", "IRI", "MEMO_LIMIT", "PARAM_KEYS", "PARAM_TYPES", "RATE_KEYS",
           "TOKEN_TYPES", "XSD", "CatalogueError", "Derivation", "NamedIRI", "NamedQuery", "Param",
           "ParameterError", "Rate", "Result", "UnknownQuery", "as_boolean", "bind", "check_consistency",
           "code_only", "decode_tokens", "finish", "finished", "literal_value", "load", "lookup", "markdown",
           "parse_file", "projected_variables", "remembered", "run", "run_check", "select", "sparql_term",
           "stream", "term_value", "to_term", "tsv_iri", "tsv_term", "tsv_value", "where_positions"]
