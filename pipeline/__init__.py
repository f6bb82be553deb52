"""The scoring rules: pure functions and dataclasses over tables, with no Luigi and no file-system layout."""
