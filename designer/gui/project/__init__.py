"""The open project: the document that owns it, the undo commands, files and recovery."""
