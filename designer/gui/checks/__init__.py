"""Checks against real stacks: the InfiniBand subnet manager and the routed RoCE fabric."""
