"""How many CPUs this process may really use: its CPU affinity, capped by a cgroup CPU quota.

Containers often show every CPU of the host while a quota (``docker run --cpus``, a Kubernetes CPU
limit) lets them use only a few; sizing a pool by ``os.cpu_count()`` there starts processes that
only get throttled.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: where Linux mounts the cgroup hierarchies (v2: one tree; v1: a tree per controller)
CGROUP_ROOT = Path("/sys/fs/cgroup")
#: the cgroups this process belongs to, one "number:controllers:path" line per hierarchy
MEMBERSHIPS = Path("/proc/self/cgroup")


@dataclass(frozen=True)
class UsableCpus:
    """The CPUs this process may run on, the quota that may limit them, and the usable count."""

    affinity: int
    quota: float | None  # CPUs' worth of time the cgroup quota allows per period; None: no quota

    @property
    def count(self) -> int:
        """Whole CPUs usable: the affinity, or fewer where a quota allows less (a fraction counts as one)."""
        if self.quota is None:
            return self.affinity
        return max(1, min(self.affinity, math.ceil(self.quota - 1e-9)))

    def __str__(self) -> str:
        quota = "no cgroup CPU quota" if self.quota is None else f"cgroup CPU quota {self.quota:g}"
        return f"{self.count} usable CPU{'s' if self.count != 1 else ''} (affinity {self.affinity}, {quota})"


def usable_cpus() -> UsableCpus:
    """This process's usable CPUs (a quota is found on Linux only)."""
    return UsableCpus(affinity=affinity_cpus(), quota=cgroup_quota())


def affinity_cpus() -> int:
    """CPUs this process may run on (its affinity where the platform tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity on this platform (macOS, Windows)
        return os.cpu_count() or 1


def cgroup_quota(root: Path = CGROUP_ROOT, memberships_file: Path = MEMBERSHIPS) -> float | None:
    """The tightest CPU quota (in CPUs) of this process's cgroup and its ancestors, v2 or v1; None
    where there is none or no cgroup file can be read."""
    try:
        memberships = memberships_file.read_text(encoding="latin-1").splitlines()
    except OSError:
        memberships = []
    quotas = []
    for line in memberships:
        _number, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if controllers == "":  # v2: "0::/path"
            quotas += _quotas_along(root, path, _v2_quota)
        elif "cpu" in controllers.split(","):  # v1: "4:cpu,cpuacct:/path"
            quotas += _quotas_along(root / controllers, path, _v1_quota)
            quotas += _quotas_along(root / "cpu", path, _v1_quota)
    if not memberships:  # no /proc/self/cgroup: the mounted root alone
        quotas += [_v2_quota(root), _v1_quota(root / "cpu")]
    found = [quota for quota in quotas if quota is not None]
    return min(found) if found else None


def _quotas_along(mount: Path, path: str, read: Callable[[Path], float | None]) -> list[float | None]:
    """The quota read in the cgroup folder of ``path`` under ``mount`` and in each of its parents up to
    the mount (inside a container the mount often is the container's own cgroup: the root counts)."""
    folder = mount / path.strip("/")
    found = []
    while True:
        found.append(read(folder))
        if folder == mount or mount not in folder.parents:
            return found
        folder = folder.parent


def _v2_quota(folder: Path) -> float | None:
    """``cpu.max`` holds "QUOTA PERIOD" in microseconds, or "max PERIOD" for none."""
    try:
        quota, period = (folder / "cpu.max").read_text(encoding="ascii").split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError, ZeroDivisionError):
        return None


def _v1_quota(folder: Path) -> float | None:
    """``cpu.cfs_quota_us`` is -1 for none; the period is in ``cpu.cfs_period_us``."""
    try:
        quota = int((folder / "cpu.cfs_quota_us").read_text(encoding="ascii"))
        period = int((folder / "cpu.cfs_period_us").read_text(encoding="ascii"))
        return None if quota <= 0 or period <= 0 else quota / period
    except (OSError, ValueError):
        return None
