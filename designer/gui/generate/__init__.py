"""The Generate dialog and its live preview."""
