"""reprolab: Hydra-configured reproductions of NeurIPS 2026 papers on one shared Lightning trainer."""

__version__ = "0.1.0"
