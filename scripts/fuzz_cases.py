"""The fuzzer's cases (scripts/fuzz_config.py): the CPU presets' composed configs surveyed once, and the overrides
drawn from them for a seed — a mutated number, a misspelt `+key` or group option, two keys that constrain each other,
a swapped data group."""

from __future__ import annotations

import fnmatch
import hashlib
import json
import math
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path

from omegaconf import DictConfig, ListConfig, OmegaConf

REPO_ROOT = Path(__file__).resolve().parents[1]
SURVEY_VERSION = "1"  # bump when Preset's fields change
CACHE = REPO_ROOT / ".cache" / "fuzz-config"  # the survey, and the cases' generated data (REPROLAB_CACHE)

FDR = ["debug=fdr"]
SHORT = {"trainer.max_steps": 2, "trainer.limit_val_batches": 2, "trainer.limit_test_batches": 2}
COMMON = ["print_config=false"]
# trainer keys that `debug=fdr` does not hide, or that would make the short cap run long: drawn under fdr
FDR_TRAINER_KEYS = {"max_steps", "max_epochs", "min_steps", "min_epochs", "max_time"}
KINDS = {"value": 50, "plus_typo": 10, "group_typo": 8, "pair": 20, "data_swap": 12}
VALUE_MUTATIONS = ("text", "zero", "negative", "huge", "fraction", "integer", "null")
GROUPS = ("data", "model", "task", "optimizer", "scheduler", "trainer", "callbacks", "logger", "device")


@dataclass
class Preset:
    name: str
    numbers: dict[str, int | float]  # dotted key → literal number in the composed config
    keys: list[str]  # every literal leaf key (for misspelt `+key`)
    choices: dict[str, str]  # group → option
    targets: list[str]  # `_target_`s, to import before forking


@dataclass
class Case:
    index: int
    preset: str
    kind: str
    what: str  # a few words: which mutation
    overrides: list[str]  # the drawn overrides (what the user typed)
    mode: str  # fdr | short
    args: list[str] = field(default_factory=list)  # the whole argv but hydra.run.dir
    keys: list[str] = field(default_factory=list)  # keys the error line should name
    rc: int | None = None
    outcome: str = ""
    error_line: str = ""
    seconds: float = 0.0  # wall
    cpu: float = 0.0  # user + system seconds of the case and its children
    tail: str = ""


# ---------------------------------------------------------------- survey: the CPU presets' composed configs

def preset_names() -> list[str]:
    from reprolab.config.compose import CONF_DIR

    root = CONF_DIR / "experiment"
    return sorted(p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.yaml"))


def group_options(group: str) -> list[str]:
    from reprolab.config.compose import CONF_DIR

    return sorted(p.stem for p in (CONF_DIR / group).glob("*.yaml"))


def _literal_leaves(node: DictConfig, path: str = ""):
    """(dotted key, value) of every literal leaf: no interpolation, no missing value, no list."""
    for key in node:
        where = f"{path}.{key}" if path else str(key)
        if OmegaConf.is_missing(node, key) or OmegaConf.is_interpolation(node, key):
            continue
        child = node[key]
        if isinstance(child, DictConfig):
            yield from _literal_leaves(child, where)
        elif not isinstance(child, ListConfig):
            yield where, child


def survey(patterns: list[str]) -> list[Preset]:
    """Every preset matching `patterns` whose composed device group is cpu, with its literal leaves; kept in the
    fuzzer's cache under the hash of conf/ (composing the 128 presets takes ~30 s of CPU)."""
    from reprolab.config.compose import CONF_DIR

    names = [n for n in preset_names() if any(fnmatch.fnmatch(n, pattern) for pattern in patterns)]
    digest = hashlib.sha256(SURVEY_VERSION.encode())
    for path in sorted(CONF_DIR.rglob("*.yaml")):
        digest.update(str(path.relative_to(CONF_DIR)).encode() + path.read_bytes())
    kept = CACHE / f"survey-{digest.hexdigest()[:16]}.json"
    if kept.is_file():
        return [p for p in (Preset(**p) for p in json.loads(kept.read_text())) if p.name in names]
    found = compose_presets(names)
    if len(names) == len(preset_names()):
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_text(json.dumps([asdict(p) for p in found]))
    return found


def compose_presets(names: list[str]) -> list[Preset]:
    from hydra import compose, initialize_config_dir

    from reprolab.config.compose import CONF_DIR

    found = []
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        for name in names:
            cfg = compose(config_name="train", overrides=[f"experiment={name}"], return_hydra_config=True)
            choices = {g: str(o) for g, o in cfg.hydra.runtime.choices.items() if g in GROUPS and o is not None}
            if choices.get("device") != "cpu":
                continue
            leaves = [(k, v) for k, v in _literal_leaves(cfg) if not k.startswith(("hydra.", "paths."))]
            numbers = {k: v for k, v in leaves if isinstance(v, int | float) and not isinstance(v, bool)}
            targets = sorted({str(v) for k, v in leaves if k.endswith("._target_")})
            found.append(Preset(name, numbers, [k for k, _ in leaves if not k.endswith("_")], choices, targets))
    return found


# ---------------------------------------------------------------- drawing cases

def misspell(word: str, rng: random.Random, taken: set[str]) -> str:
    """A typo of `word` (a letter dropped, doubled, two swapped or replaced) that is not in `taken`."""
    for _ in range(50):
        i = rng.randrange(len(word))
        how = rng.choice(("drop", "double", "swap", "replace"))
        if how == "drop" and len(word) > 2:
            typo = word[:i] + word[i + 1:]
        elif how == "double":
            typo = word[:i] + word[i] + word[i:]
        elif how == "swap" and i + 1 < len(word):
            typo = word[:i] + word[i + 1] + word[i] + word[i + 2:]
        else:
            typo = word[:i] + rng.choice("aeiosnrt") + word[i + 1:]
        if typo != word and typo not in taken and typo.strip("_"):
            return typo
    return word + "x"


def mutate_value(value, how: str):
    integer = isinstance(value, int)
    if how == "text":
        return "abc"
    if how == "zero":
        return 0
    if how == "negative":
        return -abs(value) if value else -1
    if how == "huge":
        return 10**12 if integer else 1e12
    if how == "fraction":  # a fraction where an integer stood; for a float key, an integer instead
        return value + 0.5 if integer else int(math.ceil(abs(value))) + 1
    if how == "integer":  # "the reverse": an integer where a fraction stood (or a fraction where an integer)
        return int(math.ceil(abs(value))) + 1 if not integer else round(value / 3 + 0.25, 2) or 0.5
    return "null"


def short_caps(p: Preset, taken: set[str]) -> list[str]:
    return [f"{_set(p, k)}{v}" for k, v in SHORT.items() if k not in taken]


def key_mode(key: str) -> str:
    group, _, rest = key.partition(".")
    if group == "trainer" and rest not in FDR_TRAINER_KEYS or group == "callbacks":
        return "short"
    return "fdr"


def draw_value(p: Preset, rng: random.Random) -> Case | None:
    if not p.numbers:
        return None
    key = rng.choice(sorted(p.numbers))
    how = rng.choice(VALUE_MUTATIONS)
    return Case(0, p.name, "value", f"{how} {key}", [f"{key}={mutate_value(p.numbers[key], how)}"], key_mode(key),
                keys=[key])


def draw_plus_typo(p: Preset, rng: random.Random) -> Case | None:
    key = rng.choice(sorted(p.keys))
    parent, _, last = key.rpartition(".")
    siblings = {k.rpartition(".")[2] for k in p.keys if k.rpartition(".")[0] == parent}
    typo = misspell(last, rng, siblings)
    full = f"{parent}.{typo}" if parent else typo
    value = p.numbers.get(key, 1)
    return Case(0, p.name, "plus_typo", f"+{full} for {key}", [f"+{full}={value}"], key_mode(key), keys=[full])


def draw_group_typo(p: Preset, rng: random.Random) -> Case | None:
    group = rng.choice(sorted(p.choices))
    option = p.choices[group]
    typo = misspell(option.rpartition("/")[2], rng, set(group_options(group)))
    typo = f"{option.rpartition('/')[0]}/{typo}" if "/" in option else typo
    return Case(0, p.name, "group_typo", f"{group}={typo} for {option}", [f"{group}={typo}"], "fdr", keys=[group])


def _set(p: Preset, key: str) -> str:
    """`key=` when the composed config has the key, else `+key=` (what Hydra asks a new key to be written as)."""
    group = key.split(".")[0]
    return f"{key}=" if key in p.numbers or key in p.keys or group not in ("trainer",) else f"+{key}="


def draw_pair(p: Preset, rng: random.Random) -> Case | None:
    """Two keys that constrain each other."""
    k = rng.choice((1, 2, 3, 5, 8))
    pairs = [
        ("limit_train_batches < val_check_interval",
         [f"{_set(p, 'trainer.limit_train_batches')}{k}", f"{_set(p, 'trainer.val_check_interval')}{k * 2 + rng.randrange(50)}"]),
        ("limit_train_batches < log_every_n_steps",
         [f"{_set(p, 'trainer.limit_train_batches')}{k}", f"{_set(p, 'trainer.log_every_n_steps')}{k + 10}"]),
        ("accumulate_grad_batches > max_steps",
         [f"{_set(p, 'trainer.accumulate_grad_batches')}{k + 4}", f"trainer.max_steps={rng.choice((1, 2))}"]),
        ("accumulate_grad_batches > limit_train_batches",
         [f"{_set(p, 'trainer.accumulate_grad_batches')}{k + 7}", f"{_set(p, 'trainer.limit_train_batches')}{k}"]),
        ("limit_val_batches=0 with a monitored checkpoint",
         [f"{_set(p, 'trainer.limit_val_batches')}0", f"{_set(p, 'trainer.limit_train_batches')}{k}"]),
        ("check_val_every_n_epoch > max_epochs",
         [f"{_set(p, 'trainer.check_val_every_n_epoch')}{k + 3}", f"trainer.max_epochs={rng.choice((1, 2))}",
          f"{_set(p, 'trainer.limit_train_batches')}{k}"]),
        ("val_check_interval fraction with limit_train_batches=1",
         [f"{_set(p, 'trainer.limit_train_batches')}1", f"{_set(p, 'trainer.val_check_interval')}0.{rng.randrange(1, 9)}"]),
    ]
    if "data.batch_size" in p.numbers:
        sizes = [k for k in p.numbers if k.startswith("data.") and any(w in k.rpartition(".")[2] for w in
                                                                      ("n_", "num_", "size", "samples", "train"))
                 and k != "data.batch_size" and isinstance(p.numbers[k], int)]
        big = rng.choice((10**4, 10**6))
        pairs.append(("batch_size > dataset size", [f"data.batch_size={big}"] +
                      ([f"{rng.choice(sorted(sizes))}={rng.choice((1, 2, 3))}"] if sizes else [])))
    sched = [k for k in p.numbers if k.startswith("scheduler.") and "warmup" in k]
    if sched:
        pairs.append(("warmup > max_steps", [f"{rng.choice(sched)}={50 + rng.randrange(500)}", "trainer.max_steps=3"]))
    what, overrides = rng.choice(pairs)
    keys = [o.split("=")[0].lstrip("+") for o in overrides]
    return Case(0, p.name, "pair", what, overrides, "short", keys=keys)


def draw_data_swap(p: Preset, rng: random.Random) -> Case | None:
    options = [o for o in group_options("data") if o != p.choices.get("data")]
    option = rng.choice(options)
    return Case(0, p.name, "data_swap", f"data={option} for {p.choices.get('data')}", [f"data={option}"], "fdr",
                keys=["data"])


DRAW = {"value": draw_value, "plus_typo": draw_plus_typo, "group_typo": draw_group_typo, "pair": draw_pair,
        "data_swap": draw_data_swap}


def draw_cases(presets: list[Preset], n: int, seed: int) -> list[Case]:
    rng = random.Random(seed)
    kinds, weights = zip(*KINDS.items(), strict=True)
    cases: list[Case] = []
    papers = sorted({p.name.split("/")[0] for p in presets})
    while len(cases) < n:
        paper = rng.choice(papers)  # each paper alike: one paper's many presets do not take the draw
        preset = rng.choice([p for p in presets if p.name.split("/")[0] == paper])
        case = DRAW[rng.choices(kinds, weights)[0]](preset, rng)
        if case is None:
            continue
        case.index = len(cases)
        taken = {o.split("=")[0].lstrip("+") for o in case.overrides}
        mode = FDR if case.mode == "fdr" else ["logger=none", *short_caps(preset, taken)]
        case.args = [f"experiment={preset.name}", *COMMON, *mode, *case.overrides]
        cases.append(case)
    return cases
