#!/usr/bin/env python3
"""How the management API scales with the number of targets (issue 14: "target creation stays cheap at 1,000").

For each N (default 10, 100, 1000) a fresh `hostwide serve` is started; over one admin-socket connection the
script creates N null backstores, N targets (generate_node_acls) and N LUNs, one JSON-RPC call each, then times
target_list, an iSCSI login with libiscsi's iscsi-inq to the last target, SendTargets discovery with iscsi-ls, and
a restart from the written configuration. With --config (the default) every call also writes the configuration
back (fsync, rename); --no-config measures the calls alone.

Prints one line per N; figures are wall-clock on whatever machine runs it: compare lines of one run, not runs.
Usage: bench/scripts/api-scale.py [--port 3363] [--no-config] [N...]
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Client:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.f = self.s.makefile("rwb")
        self.id = 0

    def call(self, method, params=None):
        self.id += 1
        req = {"jsonrpc": "2.0", "method": method, "id": self.id}
        if params is not None:
            req["params"] = params
        self.f.write((json.dumps(req) + "\n").encode())
        self.f.flush()
        resp = json.loads(self.f.readline())
        if "error" in resp:
            raise RuntimeError(f"{method} {params}: {resp['error']}")
        return resp["result"]


def start(args, workdir, config):
    sock = os.path.join(workdir, "admin.sock")
    cmd = [os.path.join(ROOT, "hostwide"), "serve", "--listen", f"127.0.0.1:{args.port}", "--admin-socket", sock,
           "--memory", "512m"]
    if config:
        cmd += ["--config", config]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:  # serve prints "listening on ..." once the admin socket is open
        if "listening on" in line:
            return proc, sock, time.monotonic() - t0
    raise RuntimeError("serve did not start (exit %s)" % proc.wait())


def stop(proc):
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def timed(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.monotonic()
        fn()
        times.append(time.monotonic() - t0)
    return statistics.median(times)


def run(args, n):
    workdir = tempfile.mkdtemp(prefix="h-api-scale-")
    config = None
    if not args.no_config:
        config = os.path.join(workdir, "serve.json")
        with open(config, "w") as f:
            f.write("{}\n")
    proc, sock, _ = start(args, workdir, config)
    try:
        c = Client(sock)
        base = len(c.call("target_list"))  # without --config serve starts with its default target
        iqn = lambda i: f"iqn.2026-12.io.hostwide.scale:t{i}"
        t0 = time.monotonic()
        for i in range(n):
            c.call("backstore_create", {"name": f"n{i}", "type": "null", "size": "1g"})
            c.call("target_create", {"name": iqn(i), "generate_node_acls": True})
            c.call("lun_create", {"target": iqn(i), "backstore": f"n{i}"})
        create = time.monotonic() - t0
        listed = timed(lambda: c.call("target_list"))
        assert len(c.call("target_list")) == base + n
        url = f"iscsi://127.0.0.1:{args.port}/{iqn(n - 1)}/0"
        login = timed(lambda: subprocess.run(["iscsi-inq", url], check=True, capture_output=True))
        discover = timed(lambda: subprocess.run(["iscsi-ls", f"iscsi://127.0.0.1:{args.port}"], check=True,
                                                capture_output=True), repeat=3)
        c.call("target_delete", {"name": iqn(0)})
        t0 = time.monotonic()
        c.call("target_create", {"name": iqn(0), "generate_node_acls": True})
        one_more = time.monotonic() - t0
    finally:
        stop(proc)
    restart = None
    if config:
        proc, _, restart = start(args, workdir, config)
        stop(proc)
    shutil.rmtree(workdir, ignore_errors=True)
    print(f"targets={n:5d}  create(3 calls/target)={create:8.3f}s  per_call={create / (3 * n) * 1000:7.2f}ms  "
          f"target_list={listed * 1000:7.1f}ms  login(iscsi-inq)={login * 1000:6.1f}ms  "
          f"discovery(iscsi-ls)={discover * 1000:7.1f}ms  target_create_at_n={one_more * 1000:6.1f}ms"
          + (f"  restart={restart:5.2f}s" if restart is not None else ""), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=3363)
    ap.add_argument("--no-config", action="store_true")
    ap.add_argument("counts", nargs="*", type=int, default=[10, 100, 1000])
    args = ap.parse_args()
    for tool in ("iscsi-inq", "iscsi-ls"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} not found (Debian: libiscsi-bin)")
    print(f"# hostwide management API scale, {'no --config' if args.no_config else 'persisted to --config'}")
    for n in args.counts:
        run(args, n)


if __name__ == "__main__":
    main()
