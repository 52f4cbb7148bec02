"""File > Export from the window: BOM, cabling, images and the PDF report."""
