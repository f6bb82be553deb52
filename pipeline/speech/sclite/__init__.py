"""``iescore sclite``: NIST sclite 2.10's inputs, alignment conventions and reports."""
