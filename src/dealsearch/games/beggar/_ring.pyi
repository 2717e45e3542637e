"""``_ring.pyx`` has no Python API: ``_engine`` calls its C functions (see ``_ring.pxd``) for
deals of more than 64 cards."""
