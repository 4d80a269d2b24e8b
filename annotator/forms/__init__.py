"""Forms of the annotator pages, one module per area."""
