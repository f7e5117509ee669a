"""Console scripts (`reprolab-train`, `-eval`, `-table`, `-dashboard`, `-claims`), their exit codes and one-line errors."""
