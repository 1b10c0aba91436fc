#!/usr/bin/env python3
"""Unit tests of rbd_report.py's ceiling, verdict and CPU model on synthetic rounds: python3 bench/scripts/test_rbd_report.py"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rbd_report as r  # noqa: E402


class CeilingTest(unittest.TestCase):
    def test_the_ceiling_is_librbd_directs_cpu_over_that_plus_the_hop(self):
        self.assertAlmostEqual(r.ceiling(120, 80), 0.6)
        self.assertEqual(r.ceiling(100, 0), 1.0)

    def test_no_cpu_for_librbd_direct_is_an_error(self):
        with self.assertRaises(ValueError):
            r.ceiling(0, 50)


class VerdictTest(unittest.TestCase):
    def test_below_when_even_the_best_pairing_stays_under_the_ceiling(self):
        # hostwide/direct 0.50-0.56 against a ceiling of 0.8-0.85
        self.assertEqual(r.ceiling_verdict([500, 520, 540], [960, 980, 1000], [0.80, 0.82, 0.85]), "below")

    def test_above_when_even_the_worst_pairing_exceeds_it(self):
        self.assertEqual(r.ceiling_verdict([900, 950, 920], [1000, 990, 1010], [0.60, 0.62, 0.65]), "above")

    def test_at_when_the_rounds_straddle_it_and_the_medians_are_close(self):
        self.assertEqual(r.ceiling_verdict([780, 820, 800], [1000, 980, 1020], [0.78, 0.80, 0.82]), "at")

    def test_straddling_rounds_with_a_distant_median_are_inconclusive(self):
        # noisy rounds: the extremes overlap the ceiling, but the medians' ratio is 0.6 of it
        self.assertEqual(r.ceiling_verdict([300, 480, 900], [1000, 950, 500], [0.80, 0.81, 0.82]), "inconclusive")

    def test_missing_rounds_are_an_error_not_a_verdict(self):
        with self.assertRaises(ValueError):
            r.ceiling_verdict([], [100], [0.8])


class CompareTest(unittest.TestCase):
    def test_higher_only_when_every_round_is_above_every_round_of_the_other(self):
        self.assertEqual(r.compare([110, 115, 112], [100, 105, 108]), "higher")
        self.assertEqual(r.compare([90, 95, 92], [100, 105, 108]), "lower")

    def test_overlapping_rounds_are_inconclusive_even_with_a_higher_median(self):
        self.assertEqual(r.compare([130, 104, 125], [100, 105, 108]), "inconclusive")

    def test_missing_rounds_are_an_error(self):
        with self.assertRaises(ValueError):
            r.compare([], [1])


def line(cell, row, rnd, ops, osd, gw, client, bs=4096):
    return f"{cell}\t{row}\t{rnd}\t{ops}\t{bs}\t{osd}\t{gw}\t{client}\n"


class ReportTest(unittest.TestCase):
    LINES = []
    for n in (1, 2, 3):
        LINES += [
            line("randread-4k-qd16", "librbd", n, 13000, 60, 0, 70),
            line("randread-4k-qd16", "librbd-direct", n, 13600 + 100 * n, 58, 0, 69 + n),
            line("randread-4k-qd16", "tgtd", n, 7300, 80, 130, 17),
            line("randread-4k-qd16", "hostwide", n, 11400, 66, 65, 14),
            line("randread-4k-qd16", "hop", n, 30000, "-", 25, 13),
        ]

    def test_ceiling_columns_from_the_medians_and_the_rounds(self):
        text, data = r.report(self.LINES, "3", "3", 2)
        (cell,) = data["cells"]
        e = cell["ceiling"]
        self.assertEqual(e["direct_us"], 58 + 71)          # OSD + client; librbd-direct has no gateway
        self.assertEqual(e["hop_us"], 25 + 13)             # target + client; the hop row has no OSD
        self.assertAlmostEqual(e["ceiling"], 129 / 167)
        self.assertEqual(len(e["ceiling_rounds"]), 3)
        self.assertAlmostEqual(e["ratio_librbd_direct"], 11400 / 13800)
        self.assertAlmostEqual(e["of_ceiling"], (11400 / 13800) / (129 / 167))
        self.assertEqual(e["hostwide_us"], 66 + 65 + 14)
        self.assertAlmostEqual(e["by_cpu"], 129 / 145)
        self.assertEqual(e["verdict"], "above")          # 0.83 against 0.77 in every pairing
        self.assertTrue(any(t.startswith("randread-4k-qd16") and t.endswith("above") for t in text))

    def test_the_at_rate_ceiling_takes_the_client_from_the_hostwide_row(self):
        text, data = r.report(self.LINES, "3", "3", 2)
        e = data["cells"][0]["ceiling"]
        self.assertEqual(e["hop_at_rate_us"], 25 + 14)     # the hop's target + the client as it drove hostwide
        self.assertAlmostEqual(e["ceiling_at_rate"], 129 / (129 + 39))
        self.assertAlmostEqual(e["of_ceiling_at_rate"], (11400 / 13800) / (129 / 168))
        self.assertTrue(any("H at rate" in t for t in text))

    def test_model_predicts_cores_over_the_cpu_sum(self):
        _, data = r.report(self.LINES, "3", "3", 2)
        m = data["cells"][0]["model"]
        self.assertAlmostEqual(m["hostwide"]["predicted_ops"], 2e6 / 145)
        self.assertAlmostEqual(m["hostwide"]["measured_over_predicted"], 11400 * 145 / 2e6)
        self.assertAlmostEqual(m["hop"]["predicted_ops"], 2e6 / 38)   # no OSD term for the hop row

    def test_hw_base_rows_give_a_comparison(self):
        lines = self.LINES + [line("randread-4k-qd16", "hw-base", n, 10000 + n, 66, 75 + n, 14) for n in (1, 2, 3)]
        text, data = r.report(lines, "3", "3", 2)
        self.assertEqual(data["cells"][0]["versus_base"], {"ops": "higher", "gateway_cpu_us_per_op": "lower"})
        self.assertTrue(any("ops higher" in t for t in text))

    def test_without_a_hop_row_there_is_no_ceiling(self):
        text, data = r.report([x for x in self.LINES if "\thop\t" not in x], "3", "3", 2)
        self.assertNotIn("ceiling", data["cells"][0])
        self.assertFalse(any("ceiling" in t for t in text))


if __name__ == "__main__":
    unittest.main()
