"""DeepArrhythmia (arXiv 2605.16441): segment-contextualised beat classification with selective evidence."""
