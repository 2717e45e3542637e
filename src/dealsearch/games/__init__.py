"""The games dealsearch plays, one folder each; each registers itself in ``dealsearch.game``."""
