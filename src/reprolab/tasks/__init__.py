"""Task modules shared by several papers."""
