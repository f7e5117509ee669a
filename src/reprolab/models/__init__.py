"""Networks shared by several papers."""
