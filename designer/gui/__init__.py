"""The window. All Qt lives under this package."""
