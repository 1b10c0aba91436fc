#!/usr/bin/env python3
"""Unit tests of rbd_threads.py's thread groups and per-op figures: python3 bench/scripts/test_rbd_threads.py"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rbd_threads as t  # noqa: E402


class GroupTest(unittest.TestCase):
    def test_numbered_threads_share_a_group(self):
        self.assertEqual(t.group("msgr-worker-2"), "msgr-worker")
        self.assertEqual(t.group("io_context_pool"), "io_context_pool")
        self.assertEqual(t.group("iscsi-conn-/127"), "iscsi-conn")
        self.assertEqual(t.group("rbd-poll-rbd/ho"), "rbd-poll")
        self.assertEqual(t.group("GC Thread#1"), "GC Thread")


class RoundTest(unittest.TestCase):
    def test_per_op_cpu_switches_and_the_ended_threads(self):
        before = {"(process)": (100, 0), "msgr-worker": (40, 1000), "rbd-poll": (10, 500), "iscsi-conn": (30, 700)}
        # iscsi-conn ended: its ticks are only in the process's total
        after = {"(process)": (300, 0), "msgr-worker": (140, 3000), "rbd-poll": (30, 2500)}
        g = t.round_groups(before, after, ops=10_000, hz=100)
        self.assertAlmostEqual(g["msgr-worker"][0], 100)     # 1 s of CPU over 10,000 ops
        self.assertAlmostEqual(g["msgr-worker"][1], 0.2)
        self.assertAlmostEqual(g["rbd-poll"][1], 0.2)
        self.assertAlmostEqual(g["(ended)"][0], 80)          # 200 ticks in all, 120 in live threads
        self.assertNotIn("iscsi-conn", g)

    def test_format_round_trips_and_summary_takes_medians(self):
        s = t.fmt_groups({"a": (10.0, 1.0), "b": (2.0, 0.5)})
        self.assertEqual(t.parse_groups(s), {"a": (10.0, 1.0), "b": (2.0, 0.5)})
        lines = [f"c\thostwide\t{n}\ta={us}/1.00;b=2.0/0.50\n" for n, us in ((1, 10), (2, 30), (3, 20))]
        (head, row) = t.summary(lines)
        self.assertIn("a 20/1.00", row)


if __name__ == "__main__":
    unittest.main()
