"""Exports: rows computed here (pure, tested without Qt), then thin writers per format."""
