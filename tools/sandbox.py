"""Run untrusted Python (a student's notebook and the kernel it starts) inside a bubblewrap sandbox.

Used by ``tools/grade.py``. The sandbox is Debian's ``bubblewrap`` (``bwrap``): it builds a private view of
the file system out of Linux namespaces for one command, with no daemon and no image. Inside it:

- the file system holds only what Python needs, read-only: ``/usr`` (and the ``/bin``, ``/lib`` links), a few
  files of ``/etc``, the Python installation, the venv, the ``scalinglib`` library and the grader's runner;
- ``HOME`` (``/home/student``, also the working folder) and ``/tmp`` are fresh, size-limited tmpfs mounts, gone
  when the sandbox ends; nothing else is writable;
- no network (a network namespace with only the loopback device, on which the kernel and the runner talk);
- its own process-id namespace: it sees only its own processes, and when its first process ends the kernel
  kills every process left in it; ``--die-with-parent`` ends it when the grader ends;
- no capabilities; as root, the runner first drops to a uid of its own (a random unused one), so that the
  process limit counts only that sandbox's processes and a break-out would hold no root rights;
- resource limits (``setrlimit``, set by the runner before the kernel starts, inherited by everything it
  starts): address space, CPU time, processes, open files, file size, no core dumps;
- where the grader may make a cgroup (root, or a delegated cgroup v2), one per sandbox that holds all its
  processes: their memory together and their number (``Cgroup``).

Why bubblewrap: it is the sandbox Flatpak builds on, packaged by every major distribution, maintained, small
enough to read, and works for an unprivileged user wherever user namespaces are enabled; it needs no daemon,
no image and no registry (Docker and Podman need one or the other, and Docker a root daemon), and unlike
``firejail`` (setuid root, a large profile language) or ``nsjail`` (not packaged in Debian stable) it adds
no privileged code to the machine. ``systemd-run`` gives limits but no private file system view for a user.
"""

from __future__ import annotations

import functools
import os
import random
import resource
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "tools" / "grade.py"
TOOLS = (RUNNER, ROOT / "tools" / "sandbox.py")   # the runner and what it imports from tools/
HOME = "/home/student"

MiB = 1 << 20
# Limits of one sandbox (see the notes in README "For instructors").
LIMITS = {
    "address_space": 4096 * MiB,   # RLIMIT_AS of each process: a kernel with numpy and matplotlib maps ~1 GB
    "processes": 96,               # RLIMIT_NPROC, threads included: runner + kernel use about 20
    "open_files": 256,             # RLIMIT_NOFILE of each process
    "file_size": 64 * MiB,         # RLIMIT_FSIZE: the largest file it may write
    "tmpfs": 256 * MiB,            # size of HOME and of /tmp (each; tmpfs lives in memory)
    "output": 4 * MiB,             # cell output kept by the runner (the rest is dropped and recorded)
    "result": 4 * MiB,             # what the grader reads back from the runner
}
# All the sandbox's processes together, when the grader may make a cgroup for it (root, or a delegated cgroup v2).
CGROUP_LIMITS = {"memory": 2048 * MiB, "processes": LIMITS["processes"]}
# A uid nobody uses, one per sandbox: the process limit counts the processes of a uid.
_UID_RANGE = (1_900_000_000, 2_100_000_000)


_TOPS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")


class Unavailable(RuntimeError):
    """No sandbox can be made here; the message says why."""


def _etc_files() -> list[str]:
    return [p for p in ("/etc/ld.so.cache", "/etc/localtime", "/etc/fonts", "/etc/alternatives",
                        "/etc/nsswitch.conf", "/etc/mime.types") if os.path.exists(p)]


def read_only_paths(python: Path) -> list[Path]:
    """What the sandbox sees, read-only, besides /usr: the Python installation, the venv, the library, the runner."""
    venv = Path(sys.prefix)
    paths = {Path(sys.base_prefix).resolve(), venv.resolve(), python.resolve().parent.parent,
             ROOT / "scalinglib", *TOOLS}
    return sorted(p for p in paths if str(p) != "/usr" and p.exists())


def protected_overlap(protected: list[Path], python: Path) -> str | None:
    """A folder that must stay out of reach but would be inside the sandbox's view (or contain part of it)."""
    for folder in protected:
        folder = folder.resolve()
        for path in [Path("/usr"), *read_only_paths(python)]:
            if folder == path or path in folder.parents:
                return f"{folder} is inside {path}, which the sandbox shows to the notebooks"
    return None


def fresh_uid() -> int:
    """A uid with no process and no account: random, high, checked against /proc and the passwd database."""
    import pwd

    used = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                used.add(entry.stat().st_uid)
            except OSError:
                pass
    while True:
        uid = random.SystemRandom().randrange(*_UID_RANGE)
        if uid in used:
            continue
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid


@functools.cache
def _options(bwrap: str) -> str:
    """What this bwrap's --help lists (older versions lack --size and --disable-userns)."""
    try:
        return subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def bwrap_command(bwrap: str, python: Path, argv: list[str], tmpfs: int = LIMITS["tmpfs"]) -> list[str]:
    """The bwrap command line that runs ``python argv`` in a fresh sandbox."""
    cmd = [bwrap, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net", "--unshare-ipc",
           "--unshare-uts", "--unshare-cgroup-try", "--hostname", "grading", "--clearenv"]
    if os.geteuid() == 0:
        # bwrap run by root mounts with full rights and, without a user namespace, keeps every capability:
        # keep only the two the runner needs to switch to its own uid (then it has none).
        cmd += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        cmd += ["--unshare-user", *(["--disable-userns"] if "--disable-userns" in _options(bwrap) else [])]
    size = ["--size", str(tmpfs)] if "--size" in _options(bwrap) else []     # bubblewrap 0.8 or newer
    # the private /tmp comes before the read-only paths, so that a venv or a clone that lives under /tmp is
    # bound on top of it (mounted after it, it would hide them)
    cmd += ["--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev", "--perms", "1777", *size, "--tmpfs", "/tmp"]
    for name in _TOPS[1:]:
        top = Path("/") / name
        if top.is_symlink():
            cmd += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            cmd += ["--ro-bind", str(top), str(top)]
    for path in _etc_files():
        cmd += ["--ro-bind", path, path]
    made: set[Path] = set()
    for path in read_only_paths(python):
        # bwrap would make the folders above a mount point 0700: make them 0755, so that the runner's uid sees in
        for parent in reversed(path.parents):
            if parent != Path("/") and parent not in made and not any(parent == Path("/") / top for top in _TOPS):
                made.add(parent)
                cmd += ["--perms", "0755", "--dir", str(parent)]
        cmd += ["--ro-bind", str(path), str(path)]
    cmd += ["--perms", "0777", *size, "--tmpfs", HOME, "--chdir", HOME]
    env = {"HOME": HOME, "PATH": f"{python.parent}:/usr/bin:/bin", "LANG": "C.UTF-8", "MPLBACKEND": "Agg",
           "TMPDIR": "/tmp", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PYTHONDONTWRITEBYTECODE": "1", "USER": "student", "LOGNAME": "student"}
    for key, value in env.items():
        cmd += ["--setenv", key, value]
    return [*cmd, "--", str(python), *argv]


def home_files() -> dict[str, str]:
    """Files to put in the sandbox's fresh HOME: matplotlib's font list (about 0.4 CPU-s to rebuild per kernel)."""
    try:
        import matplotlib
    except ImportError:
        return {}
    cache = Path(matplotlib.get_cachedir())
    return {f".cache/matplotlib/{p.name}": p.read_text() for p in cache.glob("fontlist-v*.json")
            if p.stat().st_size < 4 * MiB}


def set_limits(budget: float, processes: bool = True) -> None:
    """Resource limits of the sandbox's processes (called by the runner, inside, before any student code).

    ``processes``: limit their number too (in a sandbox the count covers the sandbox alone; outside one it
    would count every process of the user)."""
    def cap(which, value):
        soft, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (value, value))

    cap(resource.RLIMIT_AS, LIMITS["address_space"])
    if processes:
        cap(resource.RLIMIT_NPROC, LIMITS["processes"])
    cap(resource.RLIMIT_NOFILE, LIMITS["open_files"])
    cap(resource.RLIMIT_FSIZE, LIMITS["file_size"])
    cap(resource.RLIMIT_CORE, 0)
    cap(resource.RLIMIT_CPU, int(budget) + 10)


def drop_to(uid: int) -> None:
    """Become ``uid`` (group ``uid``, no supplementary groups); afterwards no capability is left."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    with open("/proc/self/status") as f:
        status = dict(line.split(":", 1) for line in f if ":" in line)
    if int(status["CapEff"].strip(), 16) or int(status["CapPrm"].strip(), 16) or os.getuid() != uid:
        raise SystemExit("the runner could not drop its rights")


class Cgroup:
    """A cgroup of one sandbox's own (cgroup v1 memory and pids, or v2), made beside the grader's, holding
    every process of the sandbox: memory and process count are limited for all of them together.

    ``Cgroup.make(name)`` returns None when the grader may not make one here."""

    def __init__(self, folders: list[Path], oom_files: list[Path]):
        self.folders, self.oom_files = folders, oom_files

    @staticmethod
    def _own() -> dict[str, Path]:
        """'memory', 'pids' (v1) or 'v2' -> the folder of the grader's own cgroup."""
        paths = {}
        with open("/proc/self/cgroup") as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                for name in controllers.split(",") if controllers else ["v2"]:
                    paths[name] = path
        own = {}
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, right = line.split(" - ", 1)
                root, point = left.split()[3:5]
                fstype, _, options = right.split()[:3]
                for name in ("memory", "pids", "v2"):
                    wanted = name in options.split(",") if fstype == "cgroup" else fstype == "cgroup2" and name == "v2"
                    if wanted and name in paths and paths[name].startswith(root):
                        own[name] = Path(point) / paths[name][len(root):].lstrip("/")
        return own

    @classmethod
    def make(cls, name: str, limits: dict = CGROUP_LIMITS) -> Cgroup | None:
        try:
            own = cls._own()
        except (OSError, ValueError):
            return None
        made: list[Path] = []
        try:
            if "memory" in own and "pids" in own:
                memory, pids = own["memory"] / name, own["pids"] / name
                memory.mkdir()
                made.append(memory)
                pids.mkdir()
                made.append(pids)
                (memory / "memory.limit_in_bytes").write_text(str(limits["memory"]))
                (memory / "memory.memsw.limit_in_bytes").exists() and \
                    (memory / "memory.memsw.limit_in_bytes").write_text(str(limits["memory"]))
                (pids / "pids.max").write_text(str(limits["processes"]))
                return cls(made, [memory / "memory.oom_control"])
            if "v2" in own and {"memory", "pids"} <= set((own["v2"] / "cgroup.subtree_control").read_text().split()):
                folder = own["v2"] / name
                folder.mkdir()
                made.append(folder)
                (folder / "memory.max").write_text(str(limits["memory"]))
                (folder / "memory.swap.max").exists() and (folder / "memory.swap.max").write_text("0")
                (folder / "pids.max").write_text(str(limits["processes"]))
                return cls(made, [folder / "memory.events"])
        except OSError:
            cls(made, []).remove()
        return None

    def wrap(self, cmd: list[str]) -> list[str]:
        """``cmd`` run by a shell that first moves itself into the cgroup (so everything it starts is in it)."""
        procs = [str(folder / "cgroup.procs") for folder in self.folders]
        script = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 97; shift; n=$((n-1)); done; exec "$@"'
        return ["/bin/sh", "-c", script, "sh", str(len(procs)), *procs, *cmd]

    def oom_kills(self) -> int:
        """How many processes the kernel killed for going past the memory limit."""
        for path in self.oom_files:
            try:
                for line in path.read_text().splitlines():
                    if line.startswith("oom_kill "):
                        return int(line.split()[1])
            except (OSError, ValueError):
                pass
        return 0

    def remove(self, wait: float = 15.0) -> None:
        """End any process still in the cgroup, then remove its folders (a memory cgroup is busy until the
        last of its processes is gone, which takes a moment on a crowded machine)."""
        import signal
        import time

        deadline = time.monotonic() + wait
        left = list(self.folders)
        while left and time.monotonic() < deadline:
            for folder in list(left):
                try:
                    for pid in (folder / "cgroup.procs").read_text().split():
                        try:
                            os.kill(int(pid), signal.SIGKILL)
                        except (ProcessLookupError, ValueError):
                            pass
                    folder.rmdir()
                    left.remove(folder)
                except FileNotFoundError:
                    left.remove(folder)
                except OSError:
                    pass
            if left:
                time.sleep(0.1)


_found: dict = {}


def find(bwrap: str | None = None) -> str:
    """The path of a working ``bwrap``, checked by starting the venv's Python in a sandbox; raises ``Unavailable``."""
    if sys.platform != "linux":
        raise Unavailable(f"the sandbox needs Linux (bubblewrap); this is {sys.platform}")
    path = bwrap or shutil.which("bwrap")
    if not path or not os.path.exists(path):
        raise Unavailable("bubblewrap (bwrap) is not installed; on Debian or Ubuntu: apt-get install bubblewrap "
                          "(`make grade` does it when run as root)")
    if path in _found:
        return path
    python = Path(sys.executable)
    probe = ("import importlib.util as u, os; assert all(map(u.find_spec, ('scalinglib', 'nbclient', 'ipykernel'))); "
             "print('ok', os.getcwd())")
    try:
        proc = subprocess.run(bwrap_command(path, python, ["-c", probe]), capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Unavailable(f"{path} could not start ({exc})") from exc
    if proc.returncode != 0 or not proc.stdout.startswith("ok " + HOME):
        why = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1][:300]
        raise Unavailable(f"{path} cannot make a sandbox here ({why}); user namespaces may be disabled")
    _found[path] = True
    return path
