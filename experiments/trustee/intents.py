"""The structured-intent language a small policy reads, the compact action language it writes, and BFCL's calls.

An intent is what a user asks, as clauses over slots (`a`, `b`, ... bound to real names by the task):
`"a/ move b c+; show d"` = "in folder a, move file b into a new folder c, then show file d". A slot written `?`
is an argument the user left out: the policy must `ask`, and the user answers with the slot to use.

The policy writes one action per turn: a compact tool call over slots (`cd a`, `mkdir c`, `mv b c`), `ask`, or
`end`. `to_call` turns an action into BFCL's call string (`mv(source='x.txt', destination='y')`) with the
parameter names of BFCL's GorillaFileSystem function doc (checked by `check_against_doc`). `plan` is the scripted
expert's action list for an intent: the procedure the policy has to learn (cd into the folder first, create a
missing destination before moving into it).
"""

from __future__ import annotations

import re

from reprolab.cli.errors import ConfigError

# compact action tool -> (BFCL function, its parameters filled from the slots in order, fixed arguments)
ACTION_TOOLS: dict[str, tuple[str, tuple[str, ...], dict]] = {
    "ls -a": ("ls", (), {"a": True}),
    "ls": ("ls", (), {}),
    "cd": ("cd", ("folder",), {}),
    "touch": ("touch", ("file_name",), {}),
    "mkdir": ("mkdir", ("dir_name",), {}),
    "cat": ("cat", ("file_name",), {}),
    "tail": ("tail", ("file_name",), {"lines": 1}),
    "find": ("find", ("name",), {"path": "."}),
    "grep": ("grep", ("file_name", "pattern"), {}),
    "wc -l": ("wc", ("file_name",), {"mode": "l"}),
    "wc -c": ("wc", ("file_name",), {"mode": "c"}),
    "echo": ("echo", ("content", "file_name"), {}),
    "mv": ("mv", ("source", "destination"), {}),
    "cp": ("cp", ("source", "destination"), {}),
    "du -h": ("du", (), {"human_readable": True}),
    "sort": ("sort", ("file_name",), {}),
}
# intent verb -> compact action tool (same slots, same order)
VERBS: dict[str, str] = {
    "list": "ls -a", "files": "ls", "go": "cd", "new": "touch", "dir": "mkdir", "show": "cat", "last": "tail",
    "find": "find", "grep": "grep", "lines": "wc -l", "chars": "wc -c", "write": "echo", "move": "mv",
    "copy": "cp", "usage": "du -h", "sort": "sort",
}
# intent verb -> the request in words, its slots' values in order (what an LM simulator reads, lm_simulator.py)
GLOSS: dict[str, str] = {
    "list": "list every file here, hidden ones too", "files": "list the files here", "go": "go into folder {0}",
    "new": "create the file {0}", "dir": "make the folder {0}", "show": "show the file {0}",
    "last": "show the last line of {0}", "find": "find the file {0}", "grep": "find the lines of {0} with '{1}'",
    "lines": "count the lines of {0}", "chars": "count the characters of {0}", "write": "write '{0}' into {1}",
    "move": "move {0} into the folder {1}", "copy": "copy {0} into the folder {1}", "usage": "show the disk usage",
    "sort": "sort the file {0}",
}
ASK, END = "ask", "end"
SLOT = re.compile(r"^[a-z]$")


def clauses(intent: str) -> tuple[str | None, list[list[str]]]:
    """(folder slot or None, [[verb, arg, ...], ...]) of `"a/ move b c+; show d"`."""
    text = intent.strip()
    folder = None
    if re.match(r"^[a-z?]/", text):
        folder, text = text[0], text[2:].strip()
    parts = [c.split() for c in text.split(";") if c.strip()]
    for part in parts:
        if part[0] not in VERBS:
            raise ConfigError(f"intent {intent!r}: unknown verb {part[0]!r}; choose one of {', '.join(VERBS)}")
    return folder, parts


def plan(intent: str, asked: str | None = None) -> list[str]:
    """The expert's actions for `intent`: `ask` first when a slot is `?` (then `asked` stands for it), `cd` into
    the folder, `mkdir` before a move or copy into a `+` folder, one tool call per clause, then `end`."""
    folder, parts = clauses(intent)
    actions = []
    if "?" in intent:
        actions.append(ASK)
        if asked is None:
            return actions

    def fill(slot: str) -> str:
        slot = slot.rstrip("+")
        return asked if slot == "?" else slot

    if folder:
        actions.append(f"cd {fill(folder)}")
    for verb, *args in parts:
        if verb in ("move", "copy") and args and args[-1].endswith("+"):
            actions.append(f"mkdir {fill(args[-1])}")
        actions.append(" ".join([VERBS[verb], *(fill(a) for a in args)]))
    return actions + [END]


def describe(intent: str, values: dict[str, str]) -> str:
    """The request in words, slots replaced by `values` (a slot without a value stays `?`):
    `"a/ move b c+"` -> "In the folder docs: move a.txt into the folder temp (create it first)."."""
    folder, parts = clauses(intent)

    def value(slot: str) -> str:
        return values.get(slot.rstrip("+"), "?")

    said = []
    for verb, *args in parts:
        text = GLOSS[verb].format(*map(value, args))
        said.append(text + (" (create it first)" if args and args[-1].endswith("+") else ""))
    where = f"In the folder {value(folder)}: " if folder else ""
    return where + "; then ".join(said) + "."


def split_action(action: str) -> tuple[str, list[str]]:
    """("mv", ["b", "c"]) of "mv b c"; the tool may hold a flag ("wc -l b" -> ("wc -l", ["b"]))."""
    words = action.split()
    if len(words) >= 2 and words[1].startswith("-"):
        return " ".join(words[:2]), words[2:]
    return (words[0] if words else ""), words[1:]


def to_call(action: str, bindings: dict[str, str]) -> str | None:
    """BFCL's call string for a compact action, or None when it is not a well-formed call over bound slots."""
    tool, slots = split_action(action)
    if tool not in ACTION_TOOLS:
        return None
    name, params, fixed = ACTION_TOOLS[tool]
    if len(slots) != len(params) or not all(SLOT.match(s) and s in bindings for s in slots):
        return None
    kwargs = {**{p: bindings[s] for p, s in zip(params, slots, strict=True)}, **fixed}
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"


def check_against_doc(doc: dict[str, dict]) -> None:
    """Every action's BFCL function and parameter names are in BFCL's function doc (raises when the wheel changed)."""
    for tool, (name, params, fixed) in ACTION_TOOLS.items():
        if name not in doc:
            raise ConfigError(f"BFCL's function doc has no {name!r} (action {tool!r}): another bfcl-eval version?")
        known = set(doc[name]["parameters"]["properties"])
        if not set(params) | set(fixed) <= known:
            raise ConfigError(f"BFCL's {name} takes {sorted(known)}, not {sorted(set(params) | set(fixed))}")
