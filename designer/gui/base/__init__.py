"""Foundations every part of the window stands on: background tasks, dialogs, settings,
style, icons, the wait cursor."""
