"""Fabric Designer: design, generate and analyse GPU-cluster network fabrics."""

__version__ = "0.1.0"
APP_NAME = "Fabric Designer"
