"""Delta-Adapter (arXiv 2605.07940): exemplar-based image editing from a semantic delta, single-pair supervision."""
