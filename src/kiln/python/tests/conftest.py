"""Shared fixtures: the source tree, the zoo, test data read with onnx."""
import os
import pathlib

import numpy as np
import pytest

SOURCE = pathlib.Path(os.environ.get("KILN_SOURCE_DIR", pathlib.Path(__file__).parents[4]))
ZOO = SOURCE / "models" / "zoo"


def read_pb(path):
    """A TensorProto file as (name, array)."""
    from onnx import TensorProto, numpy_helper
    t = TensorProto()
    t.ParseFromString(pathlib.Path(path).read_bytes())
    return t.name, numpy_helper.to_array(t)


@pytest.fixture
def zoo():
    return ZOO


@pytest.fixture
def lenet_data():
    d = ZOO / "lenet5" / "test_data_set_0"
    inputs = dict(read_pb(p) for p in sorted(d.glob("input_*.pb")))
    outputs = [read_pb(p)[1] for p in sorted(d.glob("output_*.pb"))]
    return inputs, outputs


@pytest.fixture
def rng():
    return np.random.default_rng(7)
