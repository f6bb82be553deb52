"""The speech wing's campaign stages: each system of a WER campaign aligned, its statistics; its kind."""
