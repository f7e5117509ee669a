"""Policy-gradient arithmetic any policy may use: group-relative advantages, the clipped ratio objective, KL."""
