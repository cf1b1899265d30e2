"""Work units, writing, and the command line (headless path)."""
