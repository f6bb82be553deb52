"""Luigi tasks: one module per stage, thin wrappers that read artifacts, call ``pipeline`` and write."""
