"""The Python module against the CLI and the zoo's PyTorch outputs: loading,
the golden interpreter with numpy in and out, configs, compile + csim,
profiles, errors as exceptions of one class per kind."""
import json
import os
import subprocess

import numpy as np
import pytest

import kiln


def cli(*args):
    return subprocess.run([os.environ["KILN"], *map(str, args)], capture_output=True, text=True)


def test_version_is_the_clis():
    assert cli("--version").stdout.strip() == "kiln " + kiln.__version__


def test_load_describes_the_model_as_kiln_info_does(zoo):
    m = kiln.load(zoo / "lenet5" / "model.onnx")
    info = json.loads(cli("info", zoo / "lenet5" / "model.onnx", "--json").stdout)
    assert m.info() == info
    assert m.total_macs == info["total_macs"] == 416520
    assert [l["op"] for l in m.layers][:2] == ["Conv", "Relu"]
    assert m.inputs[0]["shape"] == [1, 1, 28, 28]
    assert "lenet" not in repr(m) or "MACs" in repr(m)


def test_run_matches_pytorch(lenet_data, zoo):
    inputs, outputs = lenet_data
    m = kiln.load(zoo / "lenet5" / "model.onnx")
    got = m.run(inputs)
    assert list(got) == ["output"]
    y = got["output"]
    assert isinstance(y, np.ndarray) and y.dtype == np.float32 and y.shape == outputs[0].shape
    np.testing.assert_allclose(y, outputs[0], rtol=1e-3, atol=1e-5)


def test_run_takes_any_layout_and_refuses_bad_inputs(lenet_data, zoo):
    inputs, _ = lenet_data
    m = kiln.load(zoo / "lenet5" / "model.onnx")
    x = inputs["input"]
    fortran = np.asfortranarray(x)
    np.testing.assert_array_equal(m.run({"input": fortran})["output"], m.run(inputs)["output"])
    with pytest.raises(kiln.InvalidInputError) as e:
        m.run({"nope": x})
    assert "the model has no input of that name" in str(e.value)
    assert e.value.kind == "invalid" and e.value.where == "input 'nope'"
    with pytest.raises(kiln.InvalidInputError):
        m.run({"input": x[..., :27]})  # the wrong shape
    with pytest.raises(kiln.InvalidInputError):
        m.run({"input": x.astype(np.complex64)})


def test_error_classes_by_kind(tmp_path, zoo):
    assert issubclass(kiln.UnsupportedError, kiln.Error)
    assert issubclass(kiln.InternalError, kiln.Error)
    with pytest.raises(kiln.InvalidInputError) as e:
        kiln.load(tmp_path / "missing.onnx")
    assert e.value.hint or e.value.what
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(kiln.InvalidInputError):
        kiln.load(bad)


def test_default_config_and_compile_with_a_dict(tmp_path, zoo):
    m = kiln.load(zoo / "dense_a" / "model.onnx")
    cfg = kiln.default_config(m)
    assert cfg["Model"]["ReuseFactor"] == 1
    assert cfg["IOType"] == "io_parallel"
    cfg["Model"]["Precision"] = "ap_fixed<12,4>"
    p = kiln.compile(m, config=cfg, out_dir=tmp_path / "prj")
    assert (tmp_path / "prj" / "firmware").is_dir()
    assert p.estimate["total"]["latency"] >= 1
    assert p.estimate["device"]["name"] == "xcvu9p"
    assert p.report()["total"] == p.estimate["total"]
    with pytest.raises(kiln.InvalidInputError) as e:
        kiln.compile(m, config={"Model": {"ReuseFactr": 2}}, out_dir=tmp_path / "bad")
    assert "ReuseFactor" in str(e.value)  # the closest spelling
    assert not (tmp_path / "bad").exists()


def test_csim_on_given_samples_is_bit_exact_with_onnx_layout_outputs(tmp_path, zoo, rng):
    m = kiln.load(zoo / "conv2d_a" / "model.onnx")
    p = kiln.compile(m, out_dir=tmp_path / "prj", sets=["IOType=io_stream"])
    x = rng.uniform(-1, 1, size=(3, 1, 8, 8)).astype(np.float32)
    r = p.csim(x)
    assert r["bit_exact"] and r["samples"] == 3
    y = r["outputs"]["output"]
    assert y.shape == (3, 1, 6, 6)
    ref = np.stack([m.run({"input": x[i:i + 1]})["output"][0] for i in range(3)])
    assert np.max(np.abs(y - ref)) <= r["float_reference"]["max_abs_error"] + 1e-12
    assert r["float_reference"]["error_histogram"]["values"] == 3 * 36
    assert [l["layer"] for l in r["overflow"]]


def test_profile_on_arrays_has_distributions(zoo, rng):
    m = kiln.load(zoo / "dense_a" / "model.onnx")
    x = rng.normal(size=(20, 8)).astype(np.float32)
    p = kiln.profile(m, {"input": x})
    assert p["samples"] == 20
    first = p["layers"][0]
    assert first["op"] == "Input"
    assert first["result"]["min"] == pytest.approx(float(x.min()))
    counts = first["result"]["log2"]["counts"]
    assert sum(counts) + first["result"]["zeros"] == x.size


def test_plots_are_written(tmp_path, zoo, rng):
    m = kiln.load(zoo / "conv2d_a" / "model.onnx")
    prof = kiln.profile(m, samples=10)
    fig = kiln.plot_profile(prof)
    assert len(fig.axes[0].patches) > 0
    kiln.plot_profile(prof, tmp_path / "p.png")
    assert (tmp_path / "p.png").stat().st_size > 5000
    p = kiln.compile(m, out_dir=tmp_path / "prj")
    kiln.plot_estimate(p.estimate, tmp_path / "e.png")
    kiln.plot_csim(p.csim(samples=4), tmp_path / "c.png")
    assert (tmp_path / "e.png").stat().st_size > 5000 and (tmp_path / "c.png").stat().st_size > 5000


def test_rtl_rtlsim_and_its_errors(tmp_path, zoo):
    m = kiln.load(zoo / "vecmul_a" / "model.onnx")
    d = kiln.rtl(m, out_dir=tmp_path / "rtl")
    assert d.report["latency_cycles"] >= 1
    s = d.rtlsim(samples=4, simulator="icarus")
    assert s["bit_exact"] and s["latency_agrees"] and s["samples"] == 4
    # Given samples (inputs of shape [8], no batch dimension): 3 of them.
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(3, 8)
    y = x[::-1].copy()
    s = d.rtlsim({"x": x, "y": y}, simulator="icarus")
    assert s["bit_exact"] and s["samples"] == 3
    got = s["outputs"]["output"]  # the design's own output bits, as values
    assert got.shape == (3, 8)
    np.testing.assert_allclose(got, x * y, atol=2.0 ** -8)
    assert not np.array_equal(got[0], got[1])
    with pytest.raises(kiln.InvalidInputError) as e:
        d.rtlsim({"x": x[0], "y": x[0]}, simulator="icarus")  # one sample without its axis
    assert "rank 1 for an input of shape 8" in str(e.value)
    with pytest.raises(kiln.InvalidInputError):
        d.rtlsim(x, simulator="icarus")  # two inputs need a dict
    with pytest.raises(kiln.InvalidInputError):
        d.rtlsim(simulator="modelsim")


def test_explore_returns_the_frontier_and_each_point_builds(tmp_path, zoo):
    m = kiln.load(zoo / "thxprlsg" / "model.onnx")
    x = kiln.explore(m, part="xcvu9p-flga2104-2L-e", out_dir=tmp_path / "x")
    pts = x["points"]
    assert len(pts) >= 3 and x["frontier"]["strategy"] == "kiln"
    lat = [p["latency_cycles"] for p in pts]
    assert lat == sorted(lat)  # equal latencies trade one resource for another
    # The slowest point's config builds the design it priced.
    p = pts[-1]
    d = kiln.rtl(m, config=tmp_path / "x" / p["config"], out_dir=tmp_path / "d")
    assert d.report["latency_cycles"] == p["latency_cycles"]
    assert d.report["estimate"]["lut"] == p["lut"]
    kiln.plot_frontier(x, tmp_path / "frontier.png")
    assert (tmp_path / "frontier.png").stat().st_size > 1000
    with pytest.raises(kiln.InvalidInputError) as e:
        kiln.explore(m, part="xcvu9p-flga2104-2L-e", out_dir=tmp_path / "y", objective="speed")
    assert "is not an objective" in str(e.value)


def test_explore_under_a_small_cache_gives_the_same_frontier_and_emits_c(tmp_path, zoo):
    m = kiln.load(zoo / "thxprlsg" / "model.onnx")
    a = kiln.explore(m, part="xcvu9p-flga2104-2L-e", out_dir=tmp_path / "a")
    b = kiln.explore(m, part="xcvu9p-flga2104-2L-e", out_dir=tmp_path / "b", cache_memory_mb=1,
                     emit=["bambu"])
    key = lambda x: [(p["latency_cycles"], p["lut"]) for p in x["points"]]
    assert key(a) == key(b)
    assert b["frontier"]["emitted"] == ["bambu"]
    assert (tmp_path / "b" / "bambu" / "bambu" / "bambu.sh").exists()
    with pytest.raises(kiln.InvalidInputError):
        kiln.explore(m, part="xcvu9p-flga2104-2L-e", out_dir=tmp_path / "c", cache_memory_mb=0)
