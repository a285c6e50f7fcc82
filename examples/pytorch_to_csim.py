# A PyTorch model to C-simulated FPGA predictions with kiln, compared with PyTorch.
import numpy as np
import torch

import kiln

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 5)).eval()
x = torch.randn(100, 16)
torch.onnx.export(net, x[:1], "jet.onnx", input_names=["x"], output_names=["y"])

model = kiln.load("jet.onnx")
print(model)
profile = kiln.profile(model, {"x": x.numpy()})           # per-layer ranges on real data
kiln.plot_profile(profile, "profile.png")                  # the precision plot
config = kiln.default_config(model)
config["Model"]["Precision"] = "ap_fixed<18,8>"
project = kiln.compile(model, config=config, out_dir="jet_prj", force=True)
print("estimated latency:", project.estimate["total"]["latency"], "cycles")
result = project.csim(x.numpy())                           # g++ C simulation of the HLS project
with torch.no_grad():
    expected = net(x).numpy()
y = result["outputs"]["y"]
print("bit-exact with kiln's emulator:", result["bit_exact"])
print("max |csim - PyTorch|: %.4f" % np.abs(y - expected).max())
print("top-1 agreement: %.2f" % np.mean(y.argmax(1) == expected.argmax(1)))
