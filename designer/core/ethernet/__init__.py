"""Ethernet (RoCE) fabrics on a real routing stack: switch configs, the live check in
network namespaces, and the LLDP as-built."""
