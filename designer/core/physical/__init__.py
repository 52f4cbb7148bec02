"""The physical layer: racks and rows, where devices sit, real cable lengths, NetBox rows and
the optional lines of a complete bill of materials.

``floor`` holds the saved models (no fabric import, so the project model can hold them);
``placement`` makes a default plan for any fabric and checks racks; ``lengths`` measures every
cable; ``extras`` adds the optional BOM lines; ``netbox`` and ``cabling`` make export rows.
"""
