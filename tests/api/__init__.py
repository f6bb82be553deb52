"""Tests of the public library; a package, so their file names may repeat the families' test folders'."""
