"""Tests of the public library, one file a family (package: their basenames repeat other folders')."""
