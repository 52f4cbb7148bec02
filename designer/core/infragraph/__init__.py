"""InfraGraph ("infrastructure as a graph", Keysight, MIT): the design written as the schema
describes it, and an InfraGraph file read back as a project."""
