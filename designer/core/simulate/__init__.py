"""Inputs for packet- and system-level simulators: htsim's fat-tree topology and connection
matrices, ASTRA-sim's network and system configuration."""
