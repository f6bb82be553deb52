"""The coreference wing's stages: one response scored against the key, for campaigns."""
