"""The multi-task learning engine: weightings (how task gradients combine) and architectures."""
