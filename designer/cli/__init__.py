"""The ``designer`` command line: the same core as the window, without Qt."""
