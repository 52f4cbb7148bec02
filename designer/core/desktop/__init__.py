"""The application on the user's desktop: a menu entry and icon, a MIME type for project files
so a double-click opens them, and the desktop's list of recently used files.

Nothing here imports Qt; the command ``designer desktop`` and the window call it.
"""
