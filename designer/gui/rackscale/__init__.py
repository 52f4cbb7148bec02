"""The window's view of rack-scale systems: an NVL72 drawn as one rack that opens to its
trays, and the palette's section of them."""
