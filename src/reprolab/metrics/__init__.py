"""Metrics shared by several papers (binary classification, open-set recognition, retrieval)."""
