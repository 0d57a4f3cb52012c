"""The program every MPI rank runs for the measurement labs of Sections 3.5 and 3.8.

It is launched by :mod:`scalinglib.labs.launch` as ``mpiexec ... python _rank.py '<json>'`` and is
run as a script, not imported: importing the ``scalinglib`` package would cost every rank a second
of start-up (matplotlib and the rest), so this file imports nothing from it. It needs ``mpi4py``.
The scaling lab's ranks run :mod:`scalinglib.labs._scaling_rank`, which imports this file for its
helpers and its protocol and needs numpy too.

Protocol with the parent process, on standard output (Open MPI forwards every rank's output to
``mpiexec``, so this works across the nodes of a cluster without a shared temporary directory):

* ``@@scalinglib-started@@ <json>`` once every rank has initialised MPI and met at a barrier;
* ``@@scalinglib-result@@ <json>`` from rank 0 at the end: the timings;
* ``@@scalinglib-error@@ <json>`` from any rank that fails, before it aborts the job.

Every timing is taken with :func:`time.perf_counter` on the rank that does the work. Ranks that
have to wait while others are timed wait in a sleeping poll loop (``Test`` then ``sleep``, the
sleep doubling up to 4 ms), not in MPI's busy-waiting barrier, so that they leave the CPUs to the
ranks being timed.
"""

import json
import os
import sys
import time

STARTED_AT = time.time()            # wall clock, comparable with the parent's on the same machine

#: One BLAS thread per rank: the ranks are the parallelism being measured. Set before numpy loads.
ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
              "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")

STARTED = "@@scalinglib-started@@"
RESULT = "@@scalinglib-result@@"
ERROR = "@@scalinglib-error@@"

#: Seconds a sleeping poll loop first waits between two tests of a request, and at most: the wait
#: doubles each time, so a rank that waits long wakes rarely and leaves the CPUs to the ranks at work.
POLL_FIRST, POLL_LONGEST = 5e-5, 4e-3


def emit(tag, payload):
    sys.stdout.write(f"{tag} {json.dumps(payload)}\n")
    sys.stdout.flush()


def quiet_wait(request, longest=POLL_LONGEST):
    """Complete an MPI request without keeping a core busy."""
    pause = POLL_FIRST
    while not request.Test():
        time.sleep(pause)
        pause = min(2 * pause, longest)


def quiet_barrier(comm, longest=POLL_LONGEST):
    quiet_wait(comm.Ibarrier(), longest)


def median(values):
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else 0.5 * (ordered[mid - 1] + ordered[mid])


def barrier_seconds(comm, count=20):
    """Median time of one blocking barrier on ``comm`` (every rank of it must call this)."""
    times = []
    comm.Barrier()
    for _ in range(count):
        start = time.perf_counter()
        comm.Barrier()
        times.append(time.perf_counter() - start)
    return median(times)


def split_for_counts(world, counts):
    """One communicator per rank count K, holding world ranks 0..K-1 (None on the others)."""
    from mpi4py import MPI
    comms = {}
    for k in counts:
        colour = 0 if world.rank < k else MPI.UNDEFINED
        sub = world.Split(colour, world.rank)
        comms[k] = None if sub == MPI.COMM_NULL else sub
    return comms


def shares(total, parts):
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


# --- Section 3.5: the scaling lab's program lives in _scaling_rank.py, which adds itself to LABS ------------


# --- Section 3.8: ping-pong --------------------------------------------------------------------------
#
# A timed batch lasts ``target`` seconds whatever the machine does: rank 0 decides, after each round,
# whether to go on, and says so in the first byte of the next message (ping-pong) or in the first
# element of the vector it contributes (all-reduce: the others contribute 0 there, so the sum tells
# every rank). Rank 0 reads the clock once per round anyway, to decide, and keeps each round's time.
# A batch's timing is the median round: a round in which a rank waited for a CPU (on a busy machine
# that happens every few milliseconds) then moves the mean, not the median.

MIN_ROUNDS = 3


def median_round(rounds):
    """The median of a batch's round times."""
    return median(rounds)


def pingpong(world, cfg):
    """One-way time between ranks 0 and 1: half the median round trip of a batch."""
    from mpi4py import MPI
    pair = world.Split(0 if world.rank < 2 else MPI.UNDEFINED, world.rank)
    result = None
    if pair != MPI.COMM_NULL:
        buf = bytearray(max(cfg["sizes"]))
        me, other = pair.rank, 1 - pair.rank

        def batch(n, seconds):
            message = [buf, n, MPI.BYTE]              # buffer, count, type: no slice object per call
            pair.Barrier()
            if me == 1:
                while True:
                    pair.Recv(message, source=other, tag=7)
                    pair.Send(message, dest=other, tag=7)
                    if buf[0] == 0:
                        return None
            rounds = []
            start = previous = time.perf_counter()
            last = False
            while not last:
                last = len(rounds) + 1 >= MIN_ROUNDS and previous - start >= seconds
                buf[0] = 0 if last else 1
                pair.Send(message, dest=other, tag=7)
                pair.Recv(message, source=other, tag=7)
                now = time.perf_counter()
                rounds.append(now - previous)
                previous = now
            return median_round(rounds) / 2, len(rounds)

        seconds, rounds_used = [], []
        for n in cfg["sizes"]:
            batch(n, cfg["target"] / 4)                   # warm-up: connections, buffers, protocol
            timed = [batch(n, cfg["target"]) for _ in range(cfg["repeats"])]
            if me == 0:
                seconds.append([t for t, _ in timed])
                rounds_used.append(min(r for _, r in timed))
        barrier = barrier_seconds(pair)
        call = python_call_seconds(pair, buf) if me == 0 else None
        pair.Barrier()
        if me == 0:
            result = {"seconds": seconds, "rounds": rounds_used, "barrier": barrier, "python_call": call}
    quiet_barrier(world)
    return result


def python_call_seconds(comm, buf, calls=300, batches=25):
    """The Python layer's cost of one message of the ping-pong: its loops run against ``MPI.PROC_NULL``.

    MPI returns at once for a send to or a receive from ``MPI.PROC_NULL``, so what remains is what
    mpi4py and the interpreter add: the lab's loop bodies of both ranks (the calls, the clock, the
    bookkeeping) for one round trip, halved for one message. Best of ``batches`` batches of ``calls``
    round trips."""
    from mpi4py import MPI
    message = [buf, 8, MPI.BYTE]                      # the ping-pong's own message, as it passes it
    nobody = MPI.PROC_NULL
    best = float("inf")
    for _ in range(batches):
        rounds = []
        start = previous = time.perf_counter()
        for _ in range(calls):
            last = len(rounds) + 1 >= MIN_ROUNDS and previous - start >= 1e9        # rank 0's body
            buf[0] = 0 if last else 1
            comm.Send(message, dest=nobody, tag=7)
            comm.Recv(message, source=nobody, tag=7)
            now = time.perf_counter()
            rounds.append(now - previous)
            previous = now
            comm.Recv(message, source=nobody, tag=7)                                  # rank 1's body
            comm.Send(message, dest=nobody, tag=7)
            if buf[0] == 2:
                break
        best = min(best, (time.perf_counter() - start) / calls)
    return best / 2


def copy_seconds_per_byte(nbytes, batches=7):
    """Seconds per byte of a local copy of ``nbytes`` (``memcpy`` through a memoryview), best of batches."""
    src, dst = bytearray(b"\x01" * nbytes), bytearray(nbytes)
    view_src, view_dst = memoryview(src), memoryview(dst)
    best = float("inf")
    for _ in range(batches):
        reps = 20
        start = time.perf_counter()
        for _ in range(reps):
            view_dst[:] = view_src
        best = min(best, (time.perf_counter() - start) / reps)
    return best / nbytes


# --- Section 3.8: all-reduce -------------------------------------------------------------------------


def allreduce(world, cfg):
    """All-reduce of float32 vectors (MPI_SUM) at each size on K = each count of ranks, with the
    algorithm fixed for the whole job by the launcher; and gamma, MPI's own time per byte to add."""
    from array import array

    from mpi4py import MPI
    sizes, counts = cfg["sizes"], cfg["counts"]
    comms = split_for_counts(world, counts)
    largest = max(sizes)
    send = array("f", bytes(largest))
    recv = array("f", bytes(largest))
    for i in range(1, len(send)):
        send[i] = 1.0 + (world.rank + i) % 7

    gamma = copy = None
    if world.rank == 0:                         # MPI's reduction, on one rank while the others sleep
        acc = array("f", bytes(cfg["gamma_bytes"]))
        src = array("f", bytes(cfg["gamma_bytes"]))
        count = len(acc)
        best = float("inf")
        for _ in range(7):
            reps = 20
            start = time.perf_counter()
            for _ in range(reps):
                MPI.SUM.Reduce_local([src, count, MPI.FLOAT], [acc, count, MPI.FLOAT])
            best = min(best, (time.perf_counter() - start) / reps)
        gamma = best / cfg["gamma_bytes"]
        copy = copy_seconds_per_byte(cfg["gamma_bytes"])
    quiet_barrier(world)

    seconds, barrier = {}, {}
    for k in counts:
        sub = comms[k]
        if sub is not None:
            lead = sub.rank == 0
            rows = []
            for n in sizes:
                count = n // 4
                s, d = [send, count, MPI.FLOAT], [recv, count, MPI.FLOAT]

                def batch(target, s=s, d=d, sub=sub, lead=lead):
                    sub.Barrier()
                    rounds = []
                    start = previous = time.perf_counter()
                    while True:
                        if lead:
                            done = len(rounds) + 1 >= MIN_ROUNDS and previous - start >= target
                            send[0] = 0.0 if done else 1.0
                        sub.Allreduce(s, d, op=MPI.SUM)
                        if lead:
                            now = time.perf_counter()
                            rounds.append(now - previous)
                            previous = now
                        if recv[0] < 0.5:
                            break
                    # every rank leaves each all-reduce within a message of the others, so the lead
                    # rank's rounds last as long as everyone's
                    return median_round(rounds) if lead else None

                batch(cfg["target"] / 4)
                rows.append([batch(cfg["target"]) for _ in range(cfg["repeats"])])
            b = barrier_seconds(sub)
            if lead:
                seconds[str(k)], barrier[str(k)] = rows, b
        quiet_barrier(world)
    if world.rank != 0:
        return None
    return {"seconds": seconds, "gamma": gamma, "copy": copy, "barrier": barrier}


LABS = {"pingpong": pingpong, "allreduce": allreduce}


def fail(world, message):
    emit(ERROR, {"rank": world.rank if world is not None else -1, "message": message})
    if world is not None:
        world.Abort(3)
    sys.exit(3)


def main(argv):
    for var in ONE_THREAD:
        os.environ[var] = "1"
    cfg = json.loads(argv[1])
    if cfg.get("fail_rank") is not None:             # for the tests: a rank that dies on purpose
        fail_rank = int(cfg["fail_rank"])
    else:
        fail_rank = None
    from mpi4py import MPI
    world = MPI.COMM_WORLD
    init_done = time.time()
    try:
        if world.rank == fail_rank:
            raise RuntimeError(f"rank {fail_rank} was told to fail (a test of the launcher)")
        if world.size < cfg.get("min_ranks", 1):
            raise RuntimeError(f"the job has {world.size} ranks; the {cfg['lab']} lab needs {cfg['min_ranks']}")
        quiet_barrier(world)
        starts = world.gather(init_done - STARTED_AT, root=0)
        hosts = world.gather(MPI.Get_processor_name(), root=0)
        if world.rank == 0:
            emit(STARTED, {"size": world.size, "started_at": STARTED_AT})
        began = time.perf_counter()
        result = LABS[cfg["lab"]](world, cfg)
        took = time.perf_counter() - began
        if world.rank == 0:
            result["rank_startup"] = starts
            result["hosts"] = hosts
            result["size"] = world.size
            result["measure_seconds"] = took
            result["library"] = MPI.Get_library_version().strip().splitlines()[0]
            result["rank0_started_at"] = STARTED_AT
            emit(RESULT, result)
        quiet_barrier(world)
    except Exception as err:                          # noqa: BLE001 - every failure must reach the parent
        fail(world, f"{type(err).__name__}: {err}")


if __name__ == "__main__":
    main(sys.argv)
