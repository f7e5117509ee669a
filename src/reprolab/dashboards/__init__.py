"""Dashboards as code: conf/dashboard/<paper>.yaml specs → W&B workspaces (wandb-workspaces)."""
