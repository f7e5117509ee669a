"""Optional gradient-boosting libraries for the scikit-learn task (`model=lightgbm | xgboost | catboost`), each behind
one clear line when the package is absent (all three are the `degradequery` extra)."""

from __future__ import annotations

from importlib import import_module

from reprolab.cli.errors import ConfigError


def _optional(module: str, name: str, option: str):
    try:
        return getattr(import_module(module), name)
    except ImportError:
        raise ConfigError(f"model={option} needs {module}: pip install -e '.[degradequery]'") from None


def lightgbm_classifier(**params):
    """`lightgbm.LGBMClassifier(**params)`."""
    return _optional("lightgbm", "LGBMClassifier", "lightgbm")(**params)


def xgboost_classifier(**params):
    """`xgboost.XGBClassifier(**params)`."""
    return _optional("xgboost", "XGBClassifier", "xgboost")(**params)


def catboost_classifier(**params):
    """`catboost.CatBoostClassifier(**params)`."""
    return _optional("catboost", "CatBoostClassifier", "catboost")(**params)
