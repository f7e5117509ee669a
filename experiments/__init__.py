"""Paper packages: one sub-package per reproduced paper (models, data, task logic, claim checks)."""
