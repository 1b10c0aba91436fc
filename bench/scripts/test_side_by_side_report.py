#!/usr/bin/env python3
"""Unit tests of side_by_side_report.py's CPU bound (--cpu) on synthetic rounds: python3 bench/scripts/test_side_by_side_report.py"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import side_by_side_report as r  # noqa: E402


def cpu_file(lines):
    f = tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False)
    f.write("".join("\t".join(str(x) for x in line) + "\n" for line in lines))
    f.close()
    return f.name


def row(cell, mib_s):
    return {"cell": cell, "client": "qemu-img", "block_size": 1 << 20, "median_mib_s": {"hostwide-file": mib_s}}


class CpuBoundTest(unittest.TestCase):
    def test_bound_is_cores_over_client_plus_target_cpu_per_mib(self):
        # 1000 MiB per round, 0.4 s client and 0.6 s target: 1 ms/MiB, so 2 cores move at most 2000 MiB/s
        per = r.load_cpu(cpu_file([("write-1m-qd16-s1", "qemu-img", "hostwide-file", 1, 1000, 0.4, 0.6, 3000, 4000)]))
        (c,) = r.cpu_rows([row("write-1m-qd16-s1", 1500)], per, 2)
        self.assertAlmostEqual(c["cpu_bound_mib_s"], 2000)
        self.assertAlmostEqual(c["of_bound"], 0.75)
        self.assertAlmostEqual(c["client_ms_per_mib"], 0.4)
        self.assertAlmostEqual(c["target_reads_per_mib"], 3.0)
        self.assertAlmostEqual(c["target_writes_per_mib"], 4.0)

    def test_medians_per_mib_across_rounds(self):
        per = r.load_cpu(cpu_file([
            ("write-1m-qd4-s1", "qemu-img", "hostwide-file", 1, 100, 0.1, 0.1, 0, 0),
            ("write-1m-qd4-s1", "qemu-img", "hostwide-file", 2, 200, 0.1, 0.2, 0, 0),
            ("write-1m-qd4-s1", "qemu-img", "hostwide-file", 3, 100, 0.3, 0.3, 0, 0)]))
        (c,) = r.cpu_rows([row("write-1m-qd4-s1", 100)], per, 2)
        self.assertAlmostEqual(c["client_ms_per_mib"], 1.0)  # of 1.0, 0.5, 3.0
        self.assertAlmostEqual(c["target_ms_per_mib"], 1.0)  # of 1.0, 1.0, 3.0

    def test_small_blocks_and_unmeasured_targets_get_no_row(self):
        per = r.load_cpu(cpu_file([("write-1m-qd1-s1", "qemu-img", "tgtd", 1, 100, 0.1, 0.1, 0, 0)]))
        small = {"cell": "randwrite-4k-qd1-s1", "client": "qemu-img", "block_size": 4096,
                 "median_mib_s": {"hostwide-file": 50}}
        self.assertEqual(r.cpu_rows([small, row("write-1m-qd1-s1", 900)], per, 2), [])

    def test_small_block_bound_is_per_operation(self):
        # 100 MiB of 4 KiB writes = 25,600 ops; 0.256 s client and 0.512 s target: 10 + 20 us per op, 2 cores
        per = r.load_cpu(cpu_file([("randwrite-4k-qd1-s8", "qemu-img", "tgtd", 1, 100, 0.256, 0.512, 0, 0)]))
        small = {"cell": "randwrite-4k-qd1-s8", "client": "qemu-img", "block_size": 4096,
                 "median_iops": {"tgtd": 40000, "hostwide-file": 1}}
        (c,) = r.cpu_rows_small([small, row("write-1m-qd1-s1", 900)], per, 2)
        self.assertAlmostEqual(c["client_us_per_op"], 10)
        self.assertAlmostEqual(c["target_us_per_op"], 20)
        self.assertAlmostEqual(c["cpu_bound_iops"], 2 / 30e-6)
        self.assertAlmostEqual(c["of_bound"], 40000 * 30e-6 / 2)

    def test_iperf3_bound_from_sender_and_receiver(self):
        per = r.load_cpu(cpu_file([("iperf3", "iperf3", "loopback", 1, 8000, 1.0, 3.0, 0, 0)]))
        ip = r.iperf_cpu(per, 2)
        self.assertAlmostEqual(ip["sender_ms_per_mib"], 0.125)
        self.assertAlmostEqual(ip["cpu_bound_mib_s"], 4000)

    def test_older_files_without_syscall_columns_still_load(self):
        per = r.load_cpu(cpu_file([("write-1m-qd1-s1", "qemu-img", "hostwide-file", 1, 100, 0.1, 0.1)]))
        (c,) = r.cpu_rows([row("write-1m-qd1-s1", 900)], per, 2)
        self.assertEqual(c["target_reads_per_mib"], 0)


if __name__ == "__main__":
    unittest.main()
