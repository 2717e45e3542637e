"""Durak (seed 002): see README.md here and /work/shared/RULES-DURAK.md."""
