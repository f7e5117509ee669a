"""The config hash of a sweep job: what the job trains, so that a rerun sweep knows which finished runs are its own."""

from __future__ import annotations

import hashlib
import json

from omegaconf import DictConfig, OmegaConf

HASH_FILE = "config_hash"
VOLATILE_KEYS = ("paths", "print_config", "resume", "ckpt_path")  # where files go, not what is trained


OPERATIONAL = ("callbacks.requeue", "callbacks.lost_rank", "callbacks.progress_log",
               "callbacks.last_checkpoint")  # when a run saves, stops or prints: not what it trains


def _without_caches(tree):
    """The tree without keys naming a cache folder (`cache_dir`, `*_cache_dir` at any depth): a cache is keyed by
    its own inputs and never changes what is trained, so moving or adding one must not rerun finished jobs."""
    if isinstance(tree, dict):
        return {k: _without_caches(v) for k, v in tree.items()
                if not (isinstance(k, str) and (k == "cache_dir" or k.endswith("_cache_dir")))}
    if isinstance(tree, list):
        return [_without_caches(v) for v in tree]
    return tree


def _under_paths(tree, folders: list[tuple[str, str]]):
    """Each string naming a place under a `paths` folder written as `${paths.<key>}/rest` (longest folder first):
    a run that reads another run's checkpoint (`${paths.log_dir}/...`) keeps its hash when the checkout moves."""
    if isinstance(tree, dict):
        return {k: _under_paths(v, folders) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_under_paths(v, folders) for v in tree]
    if isinstance(tree, str):
        for folder, key in folders:
            if tree == folder or tree.startswith(folder + "/"):
                return "${paths." + key + "}" + tree[len(folder):]
    return tree


def _operational_removed(tree: dict) -> dict:
    for dotted in OPERATIONAL:
        *parents, leaf = dotted.split(".")
        node = tree
        for key in parents:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(leaf, None)
    return tree


def _resolved(cfg: DictConfig) -> dict:
    try:
        return OmegaConf.to_container(cfg, resolve=True)
    except Exception:  # an interpolation only the job's runtime can resolve: hash it unresolved
        return OmegaConf.to_container(cfg, resolve=False)


def hashed_tree(cfg: DictConfig, resolved: dict | None = None) -> dict:
    """What the job trains: the composed config (resolved where it can be) without the keys naming where files go
    (`VOLATILE_KEYS`, cache folders), without `OPERATIONAL` keys, and with every path under a `paths` folder made
    relative to it. `resolved`: the job's config already resolved (train.check_config's)."""
    resolved = _resolved(cfg) if resolved is None else resolved
    paths = resolved.get("paths") if isinstance(resolved.get("paths"), dict) else {}
    folders = sorted(((v.rstrip("/"), k) for k, v in paths.items() if isinstance(v, str) and v.rstrip("/")),
                     key=lambda fk: -len(fk[0]))
    tree = {key: value for key, value in resolved.items() if key not in VOLATILE_KEYS}
    return _under_paths(_operational_removed(_without_caches(tree)), folders)


def config_hash(cfg: DictConfig, resolved: dict | None = None) -> str:
    """sha256 of `hashed_tree`: what the job trains."""
    return hashlib.sha256(json.dumps(hashed_tree(cfg, resolved), sort_keys=True, default=str).encode()).hexdigest()


def legacy_config_hash(cfg: DictConfig, resolved: dict | None = None) -> str:
    """The hash reprolab wrote before 2026-12-01 (absolute paths and operational callbacks included): a run
    folder holding it is still this job's, and `decide_job` rewrites it as `config_hash`."""
    resolved = _resolved(cfg) if resolved is None else resolved
    tree = _without_caches({key: value for key, value in resolved.items() if key not in VOLATILE_KEYS})
    return hashlib.sha256(json.dumps(tree, sort_keys=True, default=str).encode()).hexdigest()
