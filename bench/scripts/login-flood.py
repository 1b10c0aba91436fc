#!/usr/bin/env python3
"""Opens N TCP connections to an iSCSI portal that never log in, holds them, and reports how the target treated
them: how many it accepted and kept open, and how many it closed at once (a cap on connections not yet logged in).

    bench/scripts/login-flood.py HOST:PORT N [--source ADDR] [--hold SECONDS] [--pid PID]

--source binds the connections to a local address (e.g. 127.0.0.2), so that a normal login from 127.0.0.1 is a
different source address. --pid prints the target process's resident memory (VmRSS) before, while held and after
closing. Every connection sends nothing; the target's login timeout would close the ones it keeps.
"""
import argparse
import select
import socket
import sys
import time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("portal")
    ap.add_argument("n", type=int)
    ap.add_argument("--source", default=None)
    ap.add_argument("--hold", type=float, default=5.0)
    ap.add_argument("--pid", type=int, default=None)
    a = ap.parse_args()
    host, port = a.portal.rsplit(":", 1)
    port = int(port)
    if a.pid:
        print(f"rss before: {rss_kib(a.pid) / 1024:.1f} MiB", flush=True)
    socks = []
    failed = 0
    for _ in range(a.n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if a.source:
            s.bind((a.source, 0))
        try:
            s.connect((host, port))
            socks.append(s)
        except OSError:
            failed += 1
            s.close()
    time.sleep(min(a.hold, 1.0))
    # A connection the target closed is readable with EOF (or a reset); one it keeps is not readable.
    closed = 0
    for s in poll_readable(socks):
        try:
            if s.recv(1) == b"":
                closed += 1
        except OSError:
            closed += 1
    print(f"connections: {len(socks)} opened, {failed} refused at connect, {closed} closed by the target at once, "
          f"{len(socks) - closed} kept open", flush=True)
    if a.pid:
        print(f"rss while held: {rss_kib(a.pid) / 1024:.1f} MiB", flush=True)
    time.sleep(max(0.0, a.hold - 1.0))
    if a.pid:
        print(f"rss after holding {a.hold:.0f} s: {rss_kib(a.pid) / 1024:.1f} MiB", flush=True)
    for s in socks:
        s.close()
    if a.pid:
        time.sleep(2)
        print(f"rss 2 s after closing: {rss_kib(a.pid) / 1024:.1f} MiB", flush=True)


def poll_readable(socks):
    p = select.poll()
    by_fd = {}
    for s in socks:
        p.register(s, select.POLLIN)
        by_fd[s.fileno()] = s
    return [by_fd[fd] for fd, ev in p.poll(0) if ev & (select.POLLIN | select.POLLHUP | select.POLLERR)]


if __name__ == "__main__":
    sys.exit(main())
