"""The design's transport in the window: the toolbar's picker (next to the gear profile) and
the text the inspector and the Traffic panel show."""
