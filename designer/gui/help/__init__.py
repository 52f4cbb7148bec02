"""Help: the documentation pages shipped with the app, and the example projects."""
