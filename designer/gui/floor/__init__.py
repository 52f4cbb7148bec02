"""The Floor panel: rows of racks seen from above, rack elevations, moving devices."""
