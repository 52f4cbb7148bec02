"""Plan, simulate, accept in the window: File > Check Acceptance Results…, File > Write
Acceptance Test Plan…, File > Import InfraGraph…, and the InfraGraph, htsim and ASTRA-sim
entries of File > Export."""
