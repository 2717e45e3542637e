"""``dealsearch rank``: each deal's rank, its number in the layout's space (parsing and printing).

The rank is what ``search exhaustive --ranks`` covers and ``verify --rank`` plays: the
layout's deals numbered in lexicographic order of the card codes
(:mod:`dealsearch.search.distinct`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..commandline.options import EXIT_OK, add_game_options, command, game_options
from ..game import Game, GameError, get_game
from .deals import deal_numbering, deal_texts, not_a_deal


def add_parser(commands: Any, game: Game) -> argparse.ArgumentParser:
    """The ``rank`` command, with ``game``'s options."""
    rank = command(
        commands, "rank",
        "Print each deal's rank: its number among the distinct deals of the "
        "layout the game's options make, in lexicographic order of the card "
        "codes (the order search exhaustive --ranks covers and verify --rank "
        "plays). A deal is given as an argument, '-' reads one deal per line "
        "from standard input, and a file name one deal per line from that file.",
        ["dealsearch rank --rules italian 00302020303100000310/00100200002000000010",
         "dealsearch rank --deck ------JJQQK ------/JJQQK"], options=["game"])
    rank.add_argument("deals", nargs="+", metavar="DEAL",
                      help="a deal in any notation, '-' or a file of deals")
    rank.add_argument("--json", action="store_true", help="one JSON object per deal per line")
    add_game_options(rank, game)
    return rank


def run(args: argparse.Namespace) -> int:
    """``dealsearch rank``: print each deal's rank (exit 2 if a deal could not be read)."""
    game = get_game(args.game)
    options = game_options(args, game)
    deals = deal_numbering(game, options)
    status = EXIT_OK
    for where, text in deal_texts(args.deals):
        try:
            row = game.parse(text, options)
            number = deals.number(row)
        except (GameError, ValueError) as error:
            status = not_a_deal(game, where, text, error)
            continue
        canonical = game.format(deals.row(number), options)
        if args.json:
            print(json.dumps({"deal": canonical, "rank": number}), flush=True)
        else:
            print(f"{number}  {canonical}", flush=True)
    return status

