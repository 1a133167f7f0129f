"""Prints "passed failed skipped" from a JUnit XML file (CTest's and pytest's), then the skip
reasons, counted, one "count × reason" a line (scripts/torch_versions.sh).

    python3 scripts/tools/junit_counts.py FILE.xml
"""
import collections
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
cases = list(root.iter("testcase"))
failed = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
skipped = sum(1 for c in cases if c.find("skipped") is not None)
print(len(cases) - failed - skipped, failed, skipped)


def reason(case, skip):
    # GoogleTest's message is "file:line" and the reason on the next line; CTest's names the skip
    # return code, and the test's own output ends with its reason.
    message = (skip.get("message") or skip.text or "").strip()
    if message.startswith("SKIP_RETURN_CODE"):
        message = (case.findtext("system-out") or "").strip() or message
    return message.splitlines()[-1] if message else "no reason given"


reasons = collections.Counter(reason(c, c.find("skipped")) for c in cases
                              if c.find("skipped") is not None)
for text, count in reasons.most_common():
    print(f"{count} × {text[:160]}")
