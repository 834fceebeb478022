"""The ``junit`` format: one test suite per file, one failing test case per finding."""

from __future__ import annotations

import re
from typing import TextIO
from xml.etree import ElementTree as ET

from teamwire.validator.findings import LintReport, Severity
from teamwire.validator.reporters.text import location
from teamwire.validator.rules import REGISTRY

# XML 1.0 cannot carry these characters, even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def write(report: LintReport, stream: TextIO, color: bool = False) -> None:
    """The report as a JUnit XML document."""
    suites = ET.Element("testsuites", name="teamwire lint")
    total = failures = 0
    for file_report in report.files:
        findings = [f for f in file_report.findings]
        suite = ET.SubElement(suites, "testsuite", name=_clean(file_report.file),
                              tests=str(max(1, len(findings))), failures=str(len(findings)),
                              errors="0", skipped="0")
        total += max(1, len(findings))
        failures += len(findings)
        if not findings:
            ET.SubElement(suite, "testcase", name="teamwire lint",
                          classname=_clean(file_report.file))
            continue
        for finding in findings:
            rule = REGISTRY.get(finding.rule)
            name = rule.name if rule is not None else finding.rule
            case = ET.SubElement(suite, "testcase",
                                 name=_clean(f"{finding.rule} {name}: {location(finding)}"),
                                 classname=_clean(file_report.file))
            kind = "error" if finding.severity is Severity.ERROR else finding.severity.value
            failure = ET.SubElement(case, "failure", message=_clean(finding.message),
                                    type=f"{finding.rule} ({kind})")
            failure.text = _clean(f"{location(finding)}: {finding.message}\n"
                                  + (finding.snippet or ""))
    suites.set("tests", str(total))
    suites.set("failures", str(failures))
    suites.set("errors", "0")
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    stream.write(ET.tostring(suites, encoding="unicode"))
    stream.write("\n")
