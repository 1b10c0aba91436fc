#!/usr/bin/env python3
"""Unit tests of initiator_report.py's verdict and medians on synthetic rounds: python3 bench/scripts/test_initiator_report.py"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import initiator_report as r  # noqa: E402


class VerdictTest(unittest.TestCase):
    def test_met_only_when_the_worst_pairing_reaches_the_goal(self):
        self.assertEqual(r.verdict([110, 120, 115], [100, 105, 108]), "met")

    def test_not_met_when_even_the_best_pairing_falls_short(self):
        self.assertEqual(r.verdict([80, 85, 90], [100, 95, 105]), "not met")

    def test_overlapping_rounds_are_inconclusive(self):
        self.assertEqual(r.verdict([98, 103, 101], [100, 99, 102]), "inconclusive")

    def test_a_higher_median_with_noisy_rounds_is_not_called_met(self):
        self.assertEqual(r.verdict([130, 60, 125], [100, 101, 99]), "inconclusive")

    def test_the_goal_is_a_parameter(self):
        self.assertEqual(r.verdict([160, 170], [100, 100], goal=1.5), "met")
        self.assertEqual(r.verdict([120, 130], [100, 100], goal=1.5), "not met")

    def test_missing_rounds_are_an_error_not_a_verdict(self):
        with self.assertRaises(ValueError):
            r.verdict([], [100])


class RowsTest(unittest.TestCase):
    LINES = [
        "randread-4k-qd1\thostwide\tiscsi-perf\t1\t100\t50.0\t-\n",
        "randread-4k-qd1\thostwide\thostwide\t1\t150\t60.0\t30.0\n",
        "randread-4k-qd1\thostwide\tiscsi-perf\t2\t300\t40.0\t-\n",
        "randread-4k-qd1\thostwide\thostwide\t2\t200\t70.0\t20.0\n",
        "randread-4k-qd1\thostwide\tiscsi-perf\t3\t200\t45.0\t-\n",
        "randread-4k-qd1\thostwide\thostwide\t3\t250\t65.0\t25.0\n",
    ]

    def test_medians_ratio_and_cpu(self):
        order, rounds = r.load(self.LINES)
        (row,) = r.rows(order, rounds, ["iscsi-perf", "hostwide"])
        ours = row["clients"]["hostwide"]
        self.assertEqual(ours["median_iops"], 200)
        self.assertEqual(ours["ratio"], 1.0)
        self.assertEqual(ours["verdict"], "inconclusive")
        self.assertEqual(ours["cpu_us_per_io_whole_process"], 65.0)
        self.assertEqual(ours["cpu_us_per_io_during_run"], 25.0)
        peer = row["clients"]["iscsi-perf"]
        self.assertNotIn("ratio", peer)
        self.assertEqual(peer["cpu_us_per_io_during_run"], 45.0)   # no own account: the whole-process figure


if __name__ == "__main__":
    unittest.main()
