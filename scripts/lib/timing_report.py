#!/usr/bin/env python3
"""Prints the stage table and the slowest tests of one scripts/test run.

Usage: timing_report.py TIMING_DIR TOTAL_SECONDS

TIMING_DIR holds `stages` (name, seconds, exit status per line, tab-separated,
written by scripts/lib/timing.sh) and the JUnit files of the ctest runs
(<stage>.junit.xml), one test per <testcase> with its seconds.
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

SLOWEST = 10
# A ctest test that runs a GoogleTest suite prints how many cases it runs.
GTEST_RUNNING = re.compile(r"\[==========\] Running (\d+) tests? from")


def stages(folder):
    rows = []
    path = os.path.join(folder, "stages")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 3:
                    rows.append((parts[0], int(parts[1]), int(parts[2])))
    return rows


def test_times(folder):
    """(seconds, stage, test name, status, cases) of every test of every run;
    cases is the number of GoogleTest cases the test ran (1 for other tests)."""
    times = []
    for path in sorted(glob.glob(os.path.join(folder, "*.junit.xml"))):
        stage = os.path.basename(path)[: -len(".junit.xml")]
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as e:
            print(f"  (cannot read {path}: {e})")
            continue
        for case in root.iter("testcase"):
            status = case.get("status", "run")
            if case.find("failure") is not None:
                status = "failed"
            out = case.findtext("system-out") or ""
            running = GTEST_RUNNING.search(out)
            cases = int(running.group(1)) if running else 1
            times.append((float(case.get("time", "0") or 0), stage, case.get("name", "?"), status, cases))
    return times


def minutes(seconds):
    return f"{seconds // 60:d}:{seconds % 60:02d}"


def main():
    folder, total = sys.argv[1], int(sys.argv[2])
    rows = stages(folder)
    width = max([len(r[0]) for r in rows] + [5])
    print(f"  {'stage':<{width}}  {'seconds':>7}  {'m:ss':>6}  result")
    for name, seconds, status in rows:
        result = "ok" if status == 0 else f"FAILED ({status})"
        print(f"  {name:<{width}}  {seconds:>7}  {minutes(seconds):>6}  {result}")
    print(f"  {'total':<{width}}  {total:>7}  {minutes(total):>6}  (budget 30:00 on a clean clone)")

    times = test_times(folder)
    if times:
        counts = {}
        for _, stage, _, _, cases in times:
            tests, stage_cases = counts.get(stage, (0, 0))
            counts[stage] = (tests + 1, stage_cases + cases)
        print()
        for stage, (tests, stage_cases) in counts.items():
            print(f"  {stage}: {tests} ctest tests, {stage_cases} test cases")
        print(f"  the {SLOWEST} slowest ctest tests:")
        for seconds, stage, name, status, _ in sorted(times, reverse=True)[:SLOWEST]:
            note = "" if status in ("run", "passed") else f"  [{status}]"
            print(f"  {seconds:8.2f} s  {stage:<12} {name}{note}")


if __name__ == "__main__":
    main()
