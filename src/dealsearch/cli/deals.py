"""The deals a command is given (``verify``, ``rank``): arguments, ``-`` for standard input
or files of deals, each read within bounds; a deal that does not parse as one line of error;
and the numbered deals of a layout (``--rank``, ``rank``)."""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from .. import __name__ as package_name
from ..commandline.options import EXIT_BAD_INPUT
from ..errors import BadInput, NoSuchFile, NotAFile, NotATextFile
from ..game import Game, GameError, GameOptions
from ..text import QUOTE_LIMIT, count, one_line, quoted

if TYPE_CHECKING:
    from ..search.distinct import DistinctDeals

MAX_DEAL_FILE = 64 * 2**20   # bytes of a file of deals: hundreds of thousands of deals
MAX_LINE = 64 * 2**10        # characters of a line of standard input


def _is_path(source: str) -> bool:
    """Whether ``source`` names something on disk."""
    try:
        os.stat(source)
    except (OSError, ValueError):
        return False
    return True


def _could_name_a_file(text: str) -> bool:
    """Whether ``text`` could be a file's name: not too long for one (a text too long to be a
    file name is a deal), and holding no NUL."""
    try:
        os.stat(text)
    except OSError as error:
        return error.errno != errno.ENAMETOOLONG
    except ValueError:
        return False
    return True


def _read_deal_file(source: str) -> list[str]:
    """The lines of a file of deals: a regular file of at most :data:`MAX_DEAL_FILE` bytes
    (never a device such as /dev/zero, read without end, nor a named pipe, which would wait
    for a writer: opened without blocking, it is refused before anything is read)."""
    try:
        with os.fdopen(os.open(source, os.O_RDONLY | os.O_NONBLOCK), "rb") as file:
            kind = os.fstat(file.fileno())
            if stat.S_ISDIR(kind.st_mode):
                raise NotAFile(f"{source} is a directory, not a file of deals")
            if not stat.S_ISREG(kind.st_mode):
                raise NotAFile(f"{source} is not a regular file of deals")
            data = file.read(MAX_DEAL_FILE + 1)
    except IsADirectoryError:
        raise NotAFile(f"{source} is a directory, not a file of deals") from None
    except OSError as error:
        raise NoSuchFile(f"cannot read {source}: {error.strerror}") from None
    if len(data) > MAX_DEAL_FILE:
        raise NotATextFile(f"{source} is over {MAX_DEAL_FILE // 2**20} MiB: split it, or "
                           "give it on standard input (verify -)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = "\0"
    if "\0" in text:  # NUL is valid UTF-8 but never in text
        raise NotATextFile(f"{source} is not a text file (not UTF-8 text)")
    return text.splitlines()


def _stdin_lines() -> Iterator[str]:
    """Standard input's lines, each at most :data:`MAX_LINE` characters (a deal is far
    shorter; /dev/zero is one endless line)."""
    try:
        for number, line in enumerate(iter(lambda: sys.stdin.readline(MAX_LINE + 1), ""), 1):
            if len(line) > MAX_LINE:
                raise NotATextFile(f"stdin, line {number}: over {count(MAX_LINE)} characters, "
                                   "not a deal")
            yield line
    except UnicodeDecodeError:
        raise NotATextFile("standard input is not text (not UTF-8 text)") from None


def deal_texts(sources: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(where, text) of every deal given: arguments, '-' (stdin) or files, one deal a line."""
    for source in sources:
        if not source.strip():   # Path('') is the current directory: not what was meant
            raise BadInput("an empty argument is not a deal: give a deal, '-' or a file of "
                           "deals")
        if source == "-":
            lines: Iterator[tuple[int, str]] = enumerate(_stdin_lines(), 1)
            name = "stdin"
        elif _is_path(source):
            lines = enumerate(_read_deal_file(source), 1)
            name = source
        else:
            yield "", source
            continue
        for number, line in lines:
            line = line.split("#", 1)[0].strip()
            if line:
                yield f"{name}, line {number}: ", line


def not_a_deal(game: Game, where: str, text: str, error: Exception) -> int:
    """A given text that is no deal of ``game``: a misspelt file name raises
    :class:`NoSuchFile`; otherwise its error line is printed (``where`` it was read) and the
    exit status of bad input returned, for the command to go on with the next deal."""
    if not where and not game.looks_like_deal(text) and _could_name_a_file(text):
        named = text if len(text) <= QUOTE_LIMIT else quoted(text)
        raise NoSuchFile(f"no such file: {named}") from None
    print(f"{package_name}: error: {where}{one_line(error)}", file=sys.stderr)
    return EXIT_BAD_INPUT


def deal_numbering(game: Game, options: GameOptions) -> DistinctDeals:
    """The numbered deals of the options' layout; one line of bad input if it has none."""
    # (imported here: the search package is more than a verify of a deal, or its help, needs)
    from ..search.distinct import numbering

    try:
        return numbering(game.layout(options))
    except (GameError, ValueError) as error:
        raise BadInput(f"no ranks: {error}") from None
