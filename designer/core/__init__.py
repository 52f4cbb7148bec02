"""The Qt-free core: model, catalog, file format, generators, solver and exports."""
