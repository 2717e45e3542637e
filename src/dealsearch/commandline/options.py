"""Options shared by the ``dealsearch`` subcommands, the checks made when they are read, and
the help layout (examples at the end, every default shown)."""

from __future__ import annotations

import argparse
import os
import sqlite3
import stat
import textwrap
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..errors import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    BadInput,
    BadLog,
    BadOption,
    MissingDirectory,
    NotAFile,
)
from ..game import (
    MAX_SEED,
    Game,
    GameError,
    GameOptions,
    OptionSpec,
    game_names,
    get_game,
    make_options,
)
from ..text import counted, parse_duration, plain, quoted

if TYPE_CHECKING:
    from ..log import RecordLog

EXIT_MISMATCH = EXIT_FAILED  # verify --known, records --verify: a stored count is wrong
DEFAULT_DB = "dealsearch.sqlite"  # the log, in the current directory
# The one game the command line names: what --game means when it is not given (the framework
# below it names none; a spec, a campaign read through the CLI or a log always says its game).
DEFAULT_GAME = "beggar"
_SQLITE_MAGIC = b"SQLite format 3\x00"

__all__ = ["DEFAULT_DB", "DEFAULT_GAME", "EXIT_BAD_INPUT", "EXIT_MISMATCH", "EXIT_OK",
           "MAX_SEED", "BadInput", "HelpFormatter", "Parser",
           "add_game_options", "check_log_path", "examples", "game_options",
           "open_log", "option_values", "positive_int", "seed", "shared", "whole_number",
           "workers"]


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions are wrapped paragraph by paragraph, examples keep their lines; every
    option with a value shows its default, unless its help already says it in words
    (``default: every core``)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = []
        for paragraph in text.split("\n\n"):
            if paragraph.startswith("examples:"):  # commands: never wrapped
                paragraphs.append(textwrap.indent(paragraph, indent))
            else:
                paragraphs.append(textwrap.fill(" ".join(paragraph.split()), width,
                                                initial_indent=indent,
                                                subsequent_indent=indent))
        return "\n\n".join(paragraphs)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if ("default" in text or not action.option_strings or action.nargs == 0
                or action.default in (None, argparse.SUPPRESS)):
            return text
        return f"{text} (default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (exit status 2, from :func:`main`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """One line, not a usage dump: the user needs to know what is wrong."""
        raise BadOption(message)


def examples(*lines: str) -> str:
    """The epilog of a command's help: its examples, one command a line.

    >>> print(examples("dealsearch verify --known"))
    examples:
      dealsearch verify --known
    """
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def command(commands: Any, name: str, description: str, example_lines: Sequence[str],
            options: Sequence[str] = ()) -> argparse.ArgumentParser:
    """A command's parser: its description, the shared ``options`` it takes (:func:`shared`)
    and its examples (:func:`examples`), added to the ``commands`` of the main parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name, parents=[shared(*options)], description=description,
        epilog=examples(*example_lines))
    return parser


def whole_number(text: str) -> int:
    """An argparse type: a whole number of at least 0.

    >>> whole_number("abc")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 'abc' is not a whole number
    """
    value = _parse_whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    value = _parse_whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def workers(text: str) -> int:
    """An argparse type: a number of workers, at least 1, or 0 or ``auto`` for every core.

    >>> workers("auto"), workers("0"), workers("3")
    (0, 0, 3)
    """
    return 0 if text.strip().lower() == "auto" else whole_number(text)


MAX_DIGITS = 30   # of a whole number given: checked before int() converts it


def cores() -> int:
    """This machine's cores (what ``--workers 0`` or ``auto`` starts)."""
    return os.cpu_count() or 1


def add_workers_options(parser: argparse.ArgumentParser, what: str = "worker processes",
                        default: int | None = None) -> None:
    """``--workers N`` (``default`` None: every core) and ``--oversubscribe``, which allows
    more workers than cores (:func:`check_workers`)."""
    parser.add_argument("--workers", type=workers, metavar="N", default=default,
                        help=f"{what}; 0 or auto: every core; more than the cores only with "
                             f"--oversubscribe (default: {default or 'every core'})")
    parser.add_argument("--oversubscribe", action="store_true",
                        help="allow --workers above this machine's cores (they share the "
                             "cores: no more games get played, and start-up takes longer)")


def check_workers(count: int, oversubscribe: bool, config: str | None = None) -> None:
    """Refuse (one line) more local workers than cores, unless ``--oversubscribe``; the
    line names the ``config`` file where the count comes from one."""
    if count > cores() and not oversubscribe:
        what = f"--workers {count}" if config is None else f"workers = {count} (in {config})"
        raise BadOption(f"{what} is more than this machine's "
                        f"{counted(cores(), 'cores')}: more workers would only share them; add "
                        "--oversubscribe to insist")


def rank_span(text: str) -> tuple[int, int]:
    """An argparse type: ranks ``START:END`` (END excluded), whole numbers, START < END.

    >>> rank_span("90_016_849_000_000:90016849200000")
    (90016849000000, 90016849200000)
    """
    start, colon, end = text.partition(":")
    if not colon:
        raise argparse.ArgumentTypeError(f"{text!r} is not START:END (e.g. 0:1000000)")
    first, last = _parse_whole(start), _parse_whole(end)
    if not 0 <= first < last:
        raise argparse.ArgumentTypeError(f"{text!r}: START must be at least 0 and below END")
    return first, last


def _parse_whole(text: str) -> int:
    digits = text.strip().replace("_", "").lstrip("+-")
    if digits.isascii() and digits.isdigit() and len(digits) > MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"{text!r} is too large")
    try:
        return int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def duration(text: str) -> float:
    """An argparse type: a time budget such as ``8h``, ``30m``, ``90s`` or ``1h30m``."""
    try:
        return parse_duration(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def seed(text: str) -> int:
    """An argparse type: a PRNG seed, 0 to :data:`MAX_SEED`.

    >>> seed("7")
    7
    """
    try:
        value = _parse_whole(text)
    except argparse.ArgumentTypeError:
        value = -1
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a seed is a whole number from 0 to {MAX_SEED}")
    return value


EMPTY_LOG = "an empty argument is not a log: give a file name, e.g. dealsearch.sqlite"


def check_log_path(path: str | Path, must_exist: bool = False) -> None:
    """Raise :class:`BadInput` unless ``path`` can be a log: a SQLite database, an empty file,
    or (unless ``must_exist``) a new file in an existing directory. Checked before any work
    starts, so a bad ``--db`` never leaves workers running or a run half-written.
    """
    if isinstance(path, str) and not path:   # Path("") is ".", which is no log's name
        raise BadInput(EMPTY_LOG)
    path = Path(path)
    if str(path) == ":memory:":   # SQLite's log in memory: a search's alone, nothing to read
        if must_exist:
            raise BadLog("no log at :memory: (a log in memory is gone with its search)")
        return
    try:
        exists, is_dir = path.exists(), path.is_dir()
        parent = exists or path.parent.is_dir()
    except OSError as error:   # a name too long for a file, say: not a log's name at all
        raise BadLog(f"{quoted(path)} cannot be a log: {error.strerror}") from None
    if not exists:
        if must_exist:
            raise BadLog(f"no log at {path}")
        if not parent:
            raise MissingDirectory(f"no directory {path.parent} for the log {path}")
        return
    if is_dir:
        raise NotAFile(f"{path} is a directory, not a log")
    try:   # without blocking: a named pipe would wait for a writer
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                raise NotAFile(f"{path} is not a regular file, not a log")
            head = file.read(len(_SQLITE_MAGIC))
    except OSError as error:
        raise BadLog(f"cannot read the log {path}: {error.strerror}") from None
    if head and head != _SQLITE_MAGIC:  # SQLite makes an empty file a new database
        raise BadLog(f"{path} is not a dealsearch log (not a SQLite database)")


def open_log(path: str | Path, must_exist: bool = False) -> RecordLog:
    """The log at ``path`` after :func:`check_log_path`; what SQLite still refuses (a damaged
    database, no permission) is :class:`BadLog` too. A log that must exist is there to be
    read (``records``, ``report``): it is opened read-only, without the write lock."""
    from ..log import RecordLog  # the log's modules only for a command that opens one

    check_log_path(path, must_exist)
    try:
        log = RecordLog(path, readonly=must_exist)
    except sqlite3.DatabaseError as error:  # OperationalError included
        raise BadLog(f"cannot open the log {path}: {error}") from None
    return log


def shared(*names: str) -> argparse.ArgumentParser:
    """A parent parser holding the options that commands share, each spelt, typed and
    explained once: ``db`` (the log), ``game`` (one of the registered games) and ``target``
    (a length to project the cost of). A command takes them with
    :func:`command` (``command(commands, NAME, ..., options=("db", "game"))``).

    >>> shared("db", "target").parse_args(["--target", "9000"])
    Namespace(db='dealsearch.sqlite', target=9000)
    """
    parent = argparse.ArgumentParser(add_help=False)
    for name in names:
        if name == "db":
            parent.add_argument("--db", default=DEFAULT_DB, help="the log")
        elif name == "game":
            parent.add_argument("--game", choices=game_names(), default=DEFAULT_GAME,
                                metavar="NAME",
                                help=f"the game: {', '.join(game_names())} (default: "
                                     f"{DEFAULT_GAME}); --game NAME --help lists its options")
        elif name == "target":
            parent.add_argument("--target", type=positive_int, metavar="N",
                                help="random runs: project the deals, core-hours and time to "
                                     "reach a game of N (in the game's first measure)")
        else:
            raise ValueError(f"no shared option {name!r}")
    return parent


def add_game_options(parser: argparse.ArgumentParser, game: Game | None = None,
                     exclude: Collection[str] = ()) -> None:
    """The chosen game's option group, from its :attr:`Game.option_specs` (no defaults here:
    an option not given is left to the game, and ``--resume`` can tell what was given)."""
    game = game or get_game(DEFAULT_GAME)
    group = parser.add_argument_group(f"{game.title} options (--game {game.name})")
    for spec in game.option_specs:
        if spec.name in exclude:
            continue
        flag = f"--{spec.name.replace('_', '-')}"
        if spec.switch:
            group.add_argument(flag, dest=spec.name, action="store_true", default=None,
                               help=_with_default(spec))
            continue
        kwargs: dict[str, Any] = {"dest": spec.name, "type": _option_type(spec.parse),
                                  "help": _with_default(spec), "metavar": spec.metavar}
        if spec.choices is not None:
            kwargs["choices"] = [spec.parse(choice) for choice in spec.choices]
            kwargs["metavar"] = spec.metavar or "{" + ",".join(spec.choices) + "}"
        group.add_argument(flag, **kwargs)


def _with_default(spec: OptionSpec) -> str:
    """The option's help ending in its default, unless the game's help already names it
    (the parser's own default stays None, so that what was given can be told apart)."""
    if "default" in spec.help:
        return spec.help
    if spec.switch:
        return f"{spec.help} (default: off)"
    return f"{spec.help} (default: {plain(spec.default)})"


def _option_type(parse: Any) -> Any:
    def convert(text: str) -> Any:
        if parse is int:   # its length checked before it is converted (Python's 4,300 digits)
            return _parse_whole(text)
        try:
            return parse(text)
        except (ValueError, TypeError) as error:
            raise argparse.ArgumentTypeError(str(error) or f"bad value {text!r}") from None
    convert.__name__ = getattr(parse, "__name__", "value")
    return convert


def option_values(args: argparse.Namespace, game: Game, exclude: Collection[str] = ()
                  ) -> dict[str, Any]:
    """The game options given on the command line (those not given are left out)."""
    return {spec.name: getattr(args, spec.name) for spec in game.option_specs
            if spec.name not in exclude and getattr(args, spec.name, None) is not None}


def game_options(args: argparse.Namespace, game: Game, exclude: Collection[str] = ()
                 ) -> GameOptions:
    """The game's options given on the command line (:func:`option_values`), the others
    their defaults; bad input is one line (exit status 2)."""
    try:
        return make_options(game, option_values(args, game, exclude))
    except GameError as error:
        raise BadInput(str(error)) from None
