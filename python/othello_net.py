"""Reference forward pass of an othello-zero network with numpy alone.

Loads `model.safetensors` as written by `othello-zero export` (PyTorch layout) and computes the same outputs as
the Rust network and `model.onnx`: policy logits [B, 65], value [B, 1], margin [B, 1], ownership [B, 64]. The
input is [B, planes, 8, 8] float32 as described in `model-card.json`.

    import numpy as np, othello_net
    net = othello_net.load("export/model.safetensors")
    policy, value, margin, ownership = othello_net.forward(net, planes)
"""
import json
import struct

import numpy as np

BN_EPSILON = 1e-5


def load(path):
    """The tensors of a safetensors file, by name (float32 only)."""
    with open(path, "rb") as f:
        data = f.read()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_len])
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":
            raise ValueError(f"{path}: tensor {name} is {info['dtype']}, expected F32")
        start, end = info["data_offsets"]
        tensors[name] = np.frombuffer(data[base + start : base + end], dtype="<f4").reshape(info["shape"])
    return tensors


def conv(x, weight, bias=None):
    """Same-padded convolution: x [B, C, 8, 8], weight [O, C, k, k]."""
    k = weight.shape[2]
    p = k // 2
    b, c, h, w = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    out = np.zeros((b, weight.shape[0], h, w), dtype=np.float64)
    for dy in range(k):
        for dx in range(k):
            patch = padded[:, :, dy : dy + h, dx : dx + w]
            out += np.einsum("bchw,oc->bohw", patch, weight[:, :, dy, dx], optimize=True)
    if bias is not None:
        out += bias[None, :, None, None]
    return out


def batch_norm(x, net, prefix):
    scale = net[prefix + ".weight"] / np.sqrt(net[prefix + ".running_var"] + BN_EPSILON)
    shift = net[prefix + ".bias"] - net[prefix + ".running_mean"] * scale
    return x * scale[None, :, None, None] + shift[None, :, None, None]


def conv_bn(x, net, prefix):
    return batch_norm(conv(x, net[prefix + ".conv.weight"]), net, prefix + ".bn")


def linear(x, net, prefix):
    return x @ net[prefix + ".weight"].T + net[prefix + ".bias"]


def relu(x):
    return np.maximum(x, 0)


def forward(net, planes):
    """policy logits, value, margin, ownership (float64) for planes [B, planes, 8, 8]."""
    x = relu(conv_bn(np.asarray(planes, dtype=np.float64), net, "stem"))
    blocks = len({k.split(".")[1] for k in net if k.startswith("tower.")})
    for i in range(blocks):
        y = relu(conv_bn(x, net, f"tower.{i}.a"))
        x = relu(conv_bn(y, net, f"tower.{i}.b") + x)
    b = x.shape[0]
    policy = linear(relu(conv_bn(x, net, "policy_conv")).reshape(b, -1), net, "policy_fc")
    hidden = relu(linear(relu(conv_bn(x, net, "value_conv")).reshape(b, -1), net, "value_fc"))
    value = np.tanh(linear(hidden, net, "value_out"))
    margin = linear(hidden, net, "margin_out")
    ownership = np.tanh(conv(x, net["ownership_conv.weight"], net["ownership_conv.bias"])).reshape(b, 64)
    return policy, value, margin, ownership
