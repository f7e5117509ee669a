"""Sweeps: config hashing, skip/resume of finished jobs, their records, rehash, the Optuna study seed, a fixed tuning budget (tuning)."""
