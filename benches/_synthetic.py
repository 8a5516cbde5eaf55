"""Deterministic synthetic catalogues shaped like ../shared/data/mcp_mixed.tools.jsonl.

MCP-style names (``verb_object`` on ``server-N``), 10–60 word descriptions drawn from a Zipf-like
vocabulary, 1–8 schema keys. Written by us; no third-party text.
"""

from __future__ import annotations

import itertools
import random

from toolsift import Tool

VERBS = (
    "get list create update delete search find fetch send read write run query open close "
    "merge add remove sync export import upload download start stop schedule cancel"
).split()
OBJECTS = (
    "issue pull_request file folder message channel user event calendar record table row "
    "column page document image video invoice payment customer order ticket repo branch "
    "commit release build job pod cluster bucket secret key token note task project comment "
    "review alert metric log trace dashboard report email contact lead deal"
).split()
WORDS = (
    "the a an of to for in with from by and or on at as is are this that it its returns "
    "given specified optional required list results details data information current new "
    "existing id name value values query filter limit page size sort order status type "
    "repository account workspace organization team project service api endpoint request "
    "response json text content summary description title url path directory storage cloud "
    "database server client remote local network cache index search match score rank tool "
    "agent model prompt context session time date range start end duration timezone location "
    "address city country price amount currency balance transaction report chart graph table "
    "spreadsheet sheet cell formula email inbox thread reply draft label attachment calendar "
    "meeting invite schedule reminder notification alert webhook event trigger workflow action "
    "pipeline build deploy release version branch commit merge diff review issue bug feature "
    "user member role permission access token secret credential key certificate policy"
).split()
KEYS = (
    "id name query path limit offset owner repo branch title body content channel text user "
    "email start end timezone format page per_page sort order status url method headers"
).split()


def synthetic_tools(n: int, seed: int = 7) -> list[Tool]:
    rng = random.Random(seed)
    weights = [1.0 / (i + 1) ** 0.9 for i in range(len(WORDS))]
    tools = []
    servers = max(1, n // 13)
    for i in range(n):
        verb, obj = rng.choice(VERBS), rng.choice(OBJECTS)
        server = f"server-{rng.randrange(servers)}"
        raw = f"{verb}_{obj}_{i}"
        words = rng.choices(WORDS, weights=weights, k=rng.randint(10, 60))
        words[rng.randrange(len(words))] = obj.replace("_", " ")
        description = f"{verb.capitalize()} {' '.join(words)}."
        keys = rng.sample(KEYS, rng.randint(1, 8))
        schema = {"type": "object", "properties": {k: {"type": "string"} for k in keys}}
        tools.append(
            Tool(
                name=f"mcp__{server}__{raw}",
                description=description,
                input_schema=schema,
                server=server,
                mcp_tool_name=raw,
            )
        )
    return tools


def synthetic_queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = [rng.choice(VERBS), rng.choice(OBJECTS).replace("_", " ")]
        words += rng.choices(WORDS[20:], k=rng.randint(0, 4))
        out.append(" ".join(words))
    return out


def synthetic_documents(
    n: int, seed: int = 7, *, description: bool = False
) -> tuple[list[str], list[list[tuple[int, str]]]]:
    """``(names, documents)`` for the raw engines, shaped like ``ToolIndex``'s documents of
    :func:`synthetic_tools` (name, label, server, MCP name, 200-character summary, schema keys;
    with ``description``, also the full description as field 7, as ``ToolIndex`` passes it) but
    generated directly, without ``Tool`` objects, so that a million take seconds."""
    rng = random.Random(seed)
    weights = [1.0 / (i + 1) ** 0.9 for i in range(len(WORDS))]
    cum = list(itertools.accumulate(weights))
    servers = max(1, n // 13)
    names: list[str] = []
    docs: list[list[tuple[int, str]]] = []
    choices, randrange, randint, sample = rng.choices, rng.randrange, rng.randint, rng.sample
    for i in range(n):
        verb, obj = VERBS[randrange(len(VERBS))], OBJECTS[randrange(len(OBJECTS))]
        server = f"server-{randrange(servers)}"
        raw = f"{verb}_{obj}_{i}"
        words = choices(WORDS, cum_weights=cum, k=randint(10, 60))
        words[randrange(len(words))] = obj.replace("_", " ")
        full = f"{verb.capitalize()} {' '.join(words)}."
        name = f"mcp__{server}__{raw}"
        fields = [(0, name), (1, f"{server}/{raw}"), (2, server), (3, raw), (4, full[:200])]
        fields.extend((5, key) for key in sample(KEYS, randint(1, 8)))
        if description:
            fields.append((7, full))
        names.append(name)
        docs.append(fields)
    return names, docs


#: OMP ``search_tool_bm25``'s field weights, in field-id order (``FieldWeights().as_list()``; the
#: "omp" profile's).
FIELD_WEIGHTS = [6.0, 4.0, 2.0, 4.0, 2.0, 1.0, 4.0, 0.0, 0.0, 0.0]


def profile_setup(profile: str) -> tuple[list[float], float, bool]:
    """``(field weights, delta, with description)`` that ``ToolIndex`` uses for ``profile``
    (``FieldWeights.for_profile``, ``default_delta``); the description goes in as a field where
    its weight scores it (english), as ``ToolIndex`` passes it."""
    from toolsift import FieldWeights
    from toolsift._text.documents import default_delta

    weights = FieldWeights.for_profile(profile)
    return weights.as_list(), default_delta(profile), weights.description > 0
