#!/usr/bin/python3
"""Where the CPU went in scripts/bench-host.sh: which process and which of the daemon's threads.

  cpu_share.py sample OUT DAEMON_PID RELAY_PID
      Every second until killed, appends to OUT one line per thread of the daemon, the relay,
      nginx and PostgreSQL ("<time> <group> <tid> <ticks>"), and the machine's busy ticks
      ("<time> busy 0 <ticks>", all cores, from /proc/stat).
  cpu_share.py report OUT T0 T1
      Prints the CPU seconds each group used between the samples nearest to unix times T0 and T1,
      and the machine's total. A thread that ended between them is not counted in its group (wrk's
      windows, curl); what the groups leave of the machine's total is printed as "the rest".

Groups: the daemon's threads by name (reports, http-io, tick, send, deliver, mail, checkpoint;
unnamed ones as "daemon, other"), "relay (aiosmtpd)", "nginx", "postgres".
"""
import os
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")


def thread_ticks(pid):
    """(tid, thread name, utime + stime) for each thread of pid; empty once it is gone."""
    out = []
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                s = f.read()
        except OSError:
            continue
        name = s[s.index("(") + 1:s.rindex(")")]
        fields = s[s.rindex(")") + 2:].split()
        out.append((tid, name, int(fields[11]) + int(fields[12])))
    return out


def pids_named(names):
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % p) as f:
                if f.read().strip() in names:
                    found.append(int(p))
        except OSError:
            pass
    return found


def busy_ticks():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v) - v[3] - v[4]  # all but idle and iowait


def daemon_group(thread):
    if thread in ("reports", "http-io", "tick", "send", "deliver", "mail", "checkpoint"):
        return "daemon: " + thread
    return "daemon: other"


def sample(out_path, daemon, relay):
    with open(out_path, "a", buffering=1) as out:
        while True:
            t = time.time()
            lines = ["%.3f busy 0 %d" % (t, busy_ticks())]
            for tid, name, ticks in thread_ticks(daemon):
                lines.append("%.3f %s %s %d" % (t, daemon_group(name).replace(" ", "_"), tid, ticks))
            for tid, _, ticks in thread_ticks(relay):
                lines.append("%.3f relay_(aiosmtpd) %s %d" % (t, tid, ticks))
            for name in ("nginx", "postgres"):
                for pid in pids_named({name}):
                    for tid, _, ticks in thread_ticks(pid):
                        lines.append("%.3f %s %s %d" % (t, name, tid, ticks))
            out.write("\n".join(lines) + "\n")
            time.sleep(1)


def report(path, t0, t1):
    snaps = {}
    for line in open(path):
        p = line.split()
        if len(p) == 4:
            snaps.setdefault(float(p[0]), {})[(p[1], p[2])] = int(p[3])
    if not snaps:
        print("no CPU samples")
        return
    times = sorted(snaps)
    a = min(times, key=lambda t: abs(t - t0))
    b = min(times, key=lambda t: abs(t - t1))
    if b <= a:
        print("no CPU samples between the deadline and the last report")
        return
    used = {}
    for (group, tid), ticks in snaps[b].items():
        used[group] = used.get(group, 0) + ticks - snaps[a].get((group, tid), 0)
    busy = used.pop("busy", 0) / HZ
    cores = os.cpu_count() or 1
    span = b - a
    print("CPU used in the %.0f s from the deadline to the last report: %.0f CPU-s of %.0f"
          " (%d cores, %.0f%% busy)" % (span, busy, span * cores, cores, 100 * busy / (span * cores)))
    rows = sorted(((v / HZ, g.replace("_", " ")) for g, v in used.items()), reverse=True)
    for secs, group in rows:
        if secs >= 0.05:
            print("  %-22s %7.1f CPU-s  %4.0f%%" % (group, secs, 100 * secs / busy if busy else 0))
    rest = busy - sum(s for s, _ in rows)
    print("  %-22s %7.1f CPU-s  %4.0f%%" % ("the rest (wrk, ...)", rest,
                                           100 * rest / busy if busy else 0))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "sample":
        sample(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) == 5 and sys.argv[1] == "report":
        report(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
    else:
        sys.exit(__doc__)
