"""Training tasks generated procedurally over BFCL's file-system function space, at a chosen difficulty.

A task is an intent (intents.py) over fresh slots, the names bound to them, a GorillaFileSystem initial state in
which the intent makes sense (files to show exist, files to create do not), and the gold calls (the expert's plan
as BFCL calls). Difficulty has four dimensions (the issue's): `chain` clauses (1-3), `distractors` extra tool names
in the tool list (0-3), `missing` an argument left out for the user to give (0-1), `errors` tool calls that fail
once and must be retried (0-2). Names come from a syllable pool with no BFCL name in it (so no BFCL state, name or
gold call is ever in a training task), and a prompt equal to a held-out task's prompt is never generated
(`environment.exclude=prompt`; `intent` also keeps out every held-out intent skeleton, a compositional split not
run in the claim). tests/experiments/trustee/test_tasks_and_curriculum.py checks both.

With TRUSTEE's LM simulator (lm_simulator.py) the LM writes a training task's intent (`propose`: its clauses, read
by `skeleton`); names, initial state, hidden argument, failing calls and gold calls are still built here, so every
generated task stays executable on BFCL's backends with known gold calls. Validation tasks are always drawn here.
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass

from experiments.trustee.intents import ACTION_TOOLS, ASK, END, plan, split_action, to_call
from experiments.trustee.intents import clauses as intent_clauses
from reprolab.cli.errors import ConfigError

SYLLABLES = ("zor", "vek", "mip", "tul", "qab", "rin", "xom", "dap", "yel", "fon", "gri", "hux")
EXTENSIONS = (".txt", ".log", ".dat")
WORDS = ("amber", "cobalt", "dune", "ember", "fjord", "gale", "haze", "iris")
# verb -> the kinds of its arguments: an existing file, a file to create, an existing folder, a folder to create,
# a folder to create or not (move/copy: `+` when it must be created), a word in the file, a text to write
ARG_KINDS = {
    "list": (), "files": (), "usage": (), "go": ("folder",), "new": ("new_file",), "dir": ("new_folder",),
    "show": ("file",), "last": ("file",), "lines": ("file",), "chars": ("file",), "sort": ("file",),
    "find": ("file",), "grep": ("file", "word"), "write": ("text", "file"), "move": ("file", "dest"),
    "copy": ("file", "dest"),
}
EXTRA_TOOLS = ("pwd", "rm", "rmdir", "diff")
TOOL_NAMES = tuple(sorted({t.split()[0] for t in ACTION_TOOLS} | set(EXTRA_TOOLS)))
LETTERS = "abcdefghijklmnopqrstuv"          # w: the gold calls' stand-in for a missing slot; x, y, z: the user's
ASKED_LETTERS = ("x", "y", "z")


@dataclass(frozen=True)
class Difficulty:
    chain: int = 1
    distractors: int = 0
    missing: int = 0
    errors: int = 0


LIMITS = Difficulty(chain=3, distractors=3, missing=1, errors=2)
FLOOR = Difficulty(chain=1, distractors=0, missing=0, errors=0)


def tool_header(intent_actions: list[str], distractors: int, rng: random.Random) -> str:
    """`[cd mkdir mv]`: the tools the intent needs plus `distractors` others, in a random order (BFCL lists a task's
    functions for the model; a small policy gets their names)."""
    needed = sorted({split_action(a)[0].split()[0] for a in intent_actions if a not in (ASK, END)})
    others = [t for t in TOOL_NAMES if t not in needed]
    tools = needed + rng.sample(others, min(distractors, len(others)))
    rng.shuffle(tools)
    return "[" + " ".join(tools) + "]"


def prompt_of(header: str, intent: str) -> str:
    return f"{header} {intent}>"


def skeleton(intent: str, chain: int) -> tuple[bool, list[tuple[str, list[str]]]] | None:
    """(in a folder?, [(verb, argument kinds), ...]) of an intent written in the intent language (`"a/ move b c+;
    show d"`), as `TaskGenerator.draw_intent` draws it; None unless it is `chain` clauses, each a known verb with
    its number of one-letter slots (`+` only on a move or copy's folder), `go` only last."""
    text = intent.strip()
    if not re.fullmatch(r"([a-z]/ )?[a-z]+( [a-z]\+?)*(; [a-z]+( [a-z]\+?)*)*", text):
        return None
    try:
        folder, parts = intent_clauses(text)
    except ConfigError:
        return None
    if len(parts) != chain or any(p[0] == "go" for p in parts[:-1]):
        return None
    drawn = []
    for verb, *args in parts:
        kinds = ARG_KINDS[verb]
        if len(args) != len(kinds) or any(a.endswith("+") and k != "dest" for a, k in zip(args, kinds, strict=True)):
            return None
        drawn.append((verb, ["new_dest" if a.endswith("+") else "folder" if k == "dest" else k
                             for a, k in zip(args, kinds, strict=True)]))
    return folder is not None, drawn


class TaskGenerator:
    """`task(difficulty, rng)` -> a training task record; `exclude`: what a task's `key` ("prompt": the text the
    policy reads, or "intent") must never equal (the held-out tasks'); `propose(difficulty, rng)`: the simulator's
    task role, a drawn skeleton or None (then the intent is drawn here)."""

    def __init__(self, exclude: tuple[str, ...] | list[str] = (), key: str = "intent", max_tries: int = 200,
                 propose=None):
        self.exclude, self.key, self.max_tries, self.propose = set(exclude), key, max_tries, propose

    def names(self, rng: random.Random, count: int) -> list[str]:
        out: list[str] = []
        while len(out) < count:
            name = "".join(rng.sample(SYLLABLES, 2))
            if name not in out:
                out.append(name)
        return out

    def draw_intent(self, difficulty: Difficulty, rng: random.Random) -> tuple[bool, list[tuple[str, list[str]]]]:
        verbs = [v for v in ARG_KINDS if v != "go"]
        chosen = [rng.choice(verbs) for _ in range(difficulty.chain)]
        if rng.random() < 0.15:
            chosen[-1] = "go"                     # a change of folder ends a request
        clauses = []
        for verb in chosen:
            kinds = list(ARG_KINDS[verb])
            if "dest" in kinds:
                kinds[kinds.index("dest")] = rng.choice(("folder", "new_dest"))
            clauses.append((verb, kinds))
        return rng.random() < 0.5, clauses

    def task(self, difficulty: Difficulty, rng: random.Random, uid: str = "", propose: bool = True) -> dict:
        for _ in range(self.max_tries):
            record = self.build(difficulty, rng, uid, propose)
            if record.get(self.key) not in self.exclude:
                return record
        raise RuntimeError(f"no intent outside the excluded set after {self.max_tries} tries at {difficulty}")

    def build(self, difficulty: Difficulty, rng: random.Random, uid: str, propose: bool = True) -> dict:
        proposed = self.propose(difficulty, rng) if propose and self.propose is not None else None
        in_folder, clauses = proposed or self.draw_intent(difficulty, rng)
        letters, stems = iter(LETTERS), iter(self.names(rng, 12))
        slots: dict[str, str] = {}
        here: dict = {}                            # the folder the request is about (home, or the `a/` folder)
        home = {"type": "directory", "contents": here}
        folder = None
        if in_folder:
            folder = next(letters)
            slots[folder] = next(stems)
            home = {"type": "directory", "contents": {slots[folder]: {"type": "directory", "contents": here}}}
        here[f".{next(stems)}"] = {"type": "file", "content": "hidden"}          # ls and ls -a differ
        here[next(stems) + rng.choice(EXTENSIONS)] = {"type": "file", "content": "spare line"}
        parts = []
        for verb, kinds in clauses:
            args = []
            for kind in kinds:
                letter = next(letters)
                if kind == "word":
                    name = rng.choice(WORDS)
                    here[slots[args[0]]]["content"] = f"{name} one\nplain two"
                elif kind == "text":
                    name = f"{rng.choice(WORDS)} {rng.choice(WORDS)}"
                else:
                    name = next(stems) + (rng.choice(EXTENSIONS) if "file" in kind else "")
                    if kind == "file":
                        here[name] = {"type": "file", "content": f"{rng.choice(WORDS)} data"}
                    elif kind == "folder":
                        here[name] = {"type": "directory", "contents": {}}
                slots[letter] = name
                args.append(letter + ("+" if kind == "new_dest" else ""))
            parts.append(" ".join([verb, *args]))
        intent = (f"{folder}/ " if folder else "") + "; ".join(parts)
        config = {"GorillaFileSystem": {"root": {"home_" + rng.choice(SYLLABLES): home}}}
        return self.finish(intent, slots, folder, config, difficulty, rng, uid)

    def finish(self, intent: str, slots: dict, folder: str | None, config: dict, difficulty: Difficulty,
               rng: random.Random, uid: str) -> dict:
        """Hide a slot for the user (missing), pick the calls that fail once (errors), write header and gold."""
        hidden = None
        arguments = [s for s in slots if s != folder]
        if difficulty.missing and arguments:
            letter = rng.choice(arguments)
            hidden = slots.pop(letter)
            intent = re.sub(rf"\b{letter}\b", "?", intent)
        truth = {**slots, **({"w": hidden} if hidden else {})}
        actions = plan(intent, asked="w" if hidden else None)
        gold = [to_call(a, truth) for a in actions if a not in (ASK, END)]
        fail_at = sorted(rng.sample(range(len(gold)), min(difficulty.errors, len(gold))))
        header = tool_header(actions, difficulty.distractors, rng)
        return {"prompt": prompt_of(header, intent), "intent": intent, "slots": slots, "hidden": hidden,
                "fail_at": fail_at, "initial_config": config, "classes": ["GorillaFileSystem"], "gold": gold,
                "difficulty": asdict(difficulty), "uid": uid, "split": "train"}
