"""LightGBM for the scikit-learn task (`model=lightgbm`), behind one clear line when the optional package is absent."""

from __future__ import annotations

from reprolab.errors import ConfigError


def lightgbm_classifier(**params):
    """`lightgbm.LGBMClassifier(**params)`; LightGBM is the `degradequery` extra."""
    try:
        from lightgbm import LGBMClassifier
    except ImportError:
        raise ConfigError("model=lightgbm needs LightGBM: pip install -e '.[degradequery]'") from None
    return LGBMClassifier(**params)
