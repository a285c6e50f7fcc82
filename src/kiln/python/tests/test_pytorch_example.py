"""The README's script: a PyTorch model exported with torch.onnx.export,
profiled, compiled and C-simulated with kiln, its predictions compared with
PyTorch's."""
import os
import runpy

from conftest import SOURCE


def test_pytorch_to_csim_script(tmp_path, capsys):
    script = SOURCE / "examples" / "pytorch_to_csim.py"
    assert len(script.read_text().splitlines()) < 30
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        runpy.run_path(str(script), run_name="__main__")
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert "bit-exact with kiln's emulator: True" in out
    lines = {l.split(":")[0]: l.split(":")[1] for l in out.splitlines() if ":" in l}
    assert float(lines["max |csim - PyTorch|"]) < 0.05
    assert float(lines["top-1 agreement"]) >= 0.95
    assert (tmp_path / "profile.png").stat().st_size > 5000
