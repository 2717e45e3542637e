"""The options of where the work runs (the backend, a Dask cluster's security: TLS files, the
dashboard), shared by every command that can run on a cluster (``search``, a game's own
commands)."""

from __future__ import annotations

import argparse

from ..errors import BadOption
from ..search.backends import BACKENDS, DaskSecurity


def add_backend_options(parser: argparse.ArgumentParser, work: str = "the work") -> None:
    """Where ``work`` runs: ``--backend``, ``--scheduler`` and a cluster's security
    (:func:`add_dask_options`)."""
    parser.add_argument("--backend", choices=BACKENDS,
                        help=f"where {work} runs: local processes or a Dask cluster (pip "
                             "install 'dealsearch[dask]') (default: local)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="dask: the scheduler, e.g. tcp://host:8786 or tls://host:8786 "
                             "(default: start a cluster of --workers processes on this "
                             "machine, listening on 127.0.0.1 only)")
    add_dask_options(parser)


def add_dask_options(parser: argparse.ArgumentParser) -> None:
    """The options of a Dask cluster's security: TLS files, and the dashboard."""
    parser.add_argument("--tls-ca-file", metavar="PEM",
                        help="dask, tls:// scheduler: the certificate authority (default: Dask's "
                             "configuration, distributed.comm.tls)")
    parser.add_argument("--tls-cert", metavar="PEM", help="dask, tls:// scheduler: this "
                        "client's certificate (default: Dask's configuration)")
    parser.add_argument("--tls-key", metavar="PEM", help="dask, tls:// scheduler: this "
                        "client's private key (default: in --tls-cert's file)")
    parser.add_argument("--dashboard", action="store_true",
                        help="dask, a cluster started here: serve its dashboard on 127.0.0.1 "
                             "(default: none)")


def dask_security(args: argparse.Namespace) -> DaskSecurity:
    """The TLS files given (--tls-ca-file, --tls-cert, --tls-key)."""
    return DaskSecurity(args.tls_ca_file, args.tls_cert, args.tls_key)


def chosen_backend(args: argparse.Namespace) -> str:
    """--backend, or dask when only --scheduler is given; one line where the options given do
    not apply to it (TLS files without a scheduler, a dashboard for a cluster not started
    here)."""
    if args.backend == "local" and args.scheduler is not None:
        raise BadOption("--scheduler needs --backend dask")
    if dask_security(args).given() and args.scheduler is None:
        raise BadOption("--tls-ca-file, --tls-cert and --tls-key are for a tls:// --scheduler")
    name: str = args.backend or ("dask" if args.scheduler is not None else "local")
    if args.dashboard and (name != "dask" or args.scheduler is not None):
        raise BadOption("--dashboard is for the cluster --backend dask starts (without "
                        "--scheduler; a scheduler you start serves its own)")
    return name
