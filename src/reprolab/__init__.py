"""reprolab: Hydra-configured reproductions of NeurIPS 2026 papers on one shared Lightning trainer."""

__version__ = "0.1.0"

import warnings  # noqa: E402

# `python -m reprolab.config.paths` (README, Data) runs a module this package has already imported: runpy's warning about it is noise.
warnings.filterwarnings("ignore", message=r"'reprolab\.config\.paths' found in sys\.modules", category=RuntimeWarning)

from reprolab.config import paths as _paths  # noqa: E402,F401  (registers ${project_root:} and ${data_root:})
from reprolab.sweeps import study_seed as _study_seed  # noqa: E402,F401  (registers the ${study_seed:...} resolver)
