"""Data modules and utilities shared by several papers."""
