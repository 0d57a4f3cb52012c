"""Run a lab from the command line and print its table: the one command for a cluster.

    python -m scalinglib.labs scaling                        # this machine
    python -m scalinglib.labs scaling --hostfile hosts.txt   # the hosts of an Open MPI hostfile
    salloc -N 2 --ntasks-per-node=32 python -m scalinglib.labs scaling     # inside a Slurm allocation
    python -m scalinglib.labs pingpong --hostfile hosts.txt --transport auto --map-by-node
    python -m scalinglib.labs allreduce --hostfile hosts.txt --ranks 2 4 8 16 32 64
"""

from __future__ import annotations

import argparse
import sys

from .launch import MPILaunchError
from .run import DEFAULT_ALGORITHMS, allreduce, pingpong, scaling


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scalinglib.labs", description=__doc__.split("\n\n")[0])
    parser.add_argument("lab", choices=["scaling", "pingpong", "allreduce"])
    parser.add_argument("--hostfile", help="an Open MPI hostfile: one 'host slots=N' per line")
    parser.add_argument("--ranks", type=int, nargs="+", help="rank counts K (scaling, allreduce)")
    parser.add_argument("--k-cpu", type=int, help="usable CPUs of the whole job (default: read from the machine, "
                                                     "the hostfile's slots or the Slurm allocation)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="scaling: least length of a timed run")
    parser.add_argument("--serial-fraction", type=float, default=0.1,
                        help="scaling: share of a one-rank step that rank 0 computes alone")
    parser.add_argument("--step-seconds", type=float, default=0.01, help="scaling: one step's compute on one core")
    parser.add_argument("--allreduce-bytes", type=int, default=2**20, help="scaling: bytes all-reduced every step")
    parser.add_argument("--transport", default=None, choices=["shm", "tcp", "auto"],
                        help="pingpong, allreduce (default: shm on one machine, auto with a hostfile or Slurm)")
    parser.add_argument("--algorithms", nargs="+", default=list(DEFAULT_ALGORITHMS), help="allreduce")
    parser.add_argument("--map-by-node", action="store_true", help="place consecutive ranks on different nodes")
    parser.add_argument("--launcher", default="mpiexec", choices=["mpiexec", "srun"])
    parser.add_argument("--timeout", type=float, default=3600.0)
    args = parser.parse_args(argv)
    transport = args.transport
    common = {"hostfile": args.hostfile, "launcher": args.launcher, "timeout": args.timeout,
              "mpiexec_args": ["--map-by", "node"] if args.map_by_node else []}
    try:
        if args.lab == "scaling":
            lab = scaling(args.ranks, seconds=args.seconds, repeats=args.repeats, serial_fraction=args.serial_fraction,
                          step_seconds=args.step_seconds, allreduce_bytes=args.allreduce_bytes, k_cpu=args.k_cpu,
                          transport=transport, **common)
            print(lab)
        elif args.lab == "pingpong":
            lab = pingpong(transport=transport, repeats=args.repeats, **common)
            print(lab)
        else:
            lab = allreduce(algorithms=args.algorithms, ranks=args.ranks, repeats=args.repeats, transport=transport,
                            k_cpu=args.k_cpu, **common)
            print(lab.summary())
            for k in lab.ks:
                print()
                print(lab.table(int(k)))
    except (MPILaunchError, ValueError, TypeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
