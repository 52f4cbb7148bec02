"""Design-space sweeps: the dialog, its axes, runner and plot."""
