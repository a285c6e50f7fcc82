"""The HTML report in a real browser: Debian's chromium, headless, loads the
report of a zoo model (estimate, precision profile, C simulation) from disk
with the network off, and every picture must have been laid out with a size
(the report's own script marks each figure); a screenshot goes to the test's
output directory (KILN_TEST_OUTPUT)."""
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import ZOO


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("chromium is not installed (scripts/install-deps.sh installs it)")


def browse(html, *args, profile_dir):
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile_dir}", "--virtual-time-budget=5000"]
    return subprocess.run([chromium(), *flags, *args, html.as_uri()], capture_output=True,
                          text=True, timeout=180)


def test_every_picture_of_the_report_renders(tmp_path):
    kiln = os.environ["KILN"]
    prj = tmp_path / "lenet"
    subprocess.run([kiln, "compile", ZOO / "lenet5" / "model.onnx", "-o", prj], check=True,
                   capture_output=True)
    subprocess.run([kiln, "csim", prj, "--samples", "8"], check=True, capture_output=True)
    html = tmp_path / "report.html"
    r = subprocess.run([kiln, "report", prj, "--html", html], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = html.read_text()
    assert "<script src" not in text and "http://" not in text.split("<svg")[0]
    dom = browse(html, "--dump-dom", profile_dir=tmp_path / "chrome1").stdout
    figures = re.findall(r'<figure id="plot\d+" class="plot" data-rendered="(\w+)"', dom)
    assert figures == ["yes", "yes", "yes"], figures  # estimate, profile, csim
    assert 'data-rendered="3"' in dom
    out = pathlib.Path(os.environ.get("KILN_TEST_OUTPUT", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    shot = out / "report_lenet5.png"
    browse(html, f"--screenshot={shot}", "--window-size=1200,2600", profile_dir=tmp_path / "chrome2")
    assert shot.stat().st_size > 20000
