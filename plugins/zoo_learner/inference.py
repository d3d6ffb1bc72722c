"""The network an actor acts with: the pulled float weights as they are, or an int8 copy of them.

With ``int8`` the actor acts with a quantized copy of the learner's network, as the actors of
ActorQ (Lam et al., "QuaRL: Quantization for Fast and Environmentally Sustainable Reinforcement
Learning", TMLR 2022) do; the learner keeps training the float network. In the copy:

* every Linear (per output channel) and LSTMCell layer has int8 weights, its input quantized on the
  fly per batch (torch's dynamic quantization);
* a pixel torso's chain of Conv2d + ReLU layers (the Nature and MinAtar torsos) runs in int8 when the
  actor gives a batch of its uint8 observations to calibrate on: the raw pixels are read as quint8
  with scale 1/255, i.e. p / 255 exactly and without a float pass; weights are int8 per output
  channel, and each layer's output scale covers the largest activation of the calibration batch
  (larger ones later saturate). Other convolutions stay float.

Each step stores the probabilities of the policy that really acted, so V-trace and Retrace correct
for the quantized one exactly. Because activations are quantized per batch, an env's probabilities
depend very slightly on the other envs of its batch. The copy is rebuilt, and recalibrated on the
actor's current observations, whenever the actor pulls a new version.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import torch
from torch import nn

from .networks import Torso, scale_obs
from .params import Precision

PIXEL = 1.0 / 255.0


class Int8ConvStack(nn.Module):
    """Conv2d + ReLU layers, then Flatten, in int8, on raw uint8 pixels (read as quint8 with scale 1/255)."""

    def __init__(self, convs: Sequence[nn.Conv2d], calibration: torch.Tensor):
        super().__init__()
        self.layers = []  # (packed int8 weights and bias, output scale)
        x = scale_obs(calibration)
        with torch.no_grad():
            for conv in convs:
                x = torch.relu(conv(x))
                weight = conv.weight.detach()
                scales = weight.abs().amax((1, 2, 3)).clamp_min(1e-8) / 127
                zeros = torch.zeros(len(scales), dtype=torch.long)
                packed = torch.ops.quantized.conv2d_prepack(
                    torch.quantize_per_channel(weight, scales, zeros, 0, torch.qint8), conv.bias.detach(),
                    list(conv.stride), list(conv.padding), list(conv.dilation), conv.groups)
                self.layers.append((packed, max(float(x.max()), 1e-6) / 255))

    def forward(self, pixels: torch.Tensor) -> torch.Tensor:
        if pixels.dtype != torch.uint8:
            raise TypeError(f"int8 convolutions take the raw uint8 pixels; got {pixels.dtype}")
        q = torch._make_per_tensor_quantized_tensor(pixels.contiguous(), PIXEL, 0)  # p / 255, exactly
        for packed, scale in self.layers:
            q = torch.ops.quantized.conv2d_relu(q, packed, scale, 0)
        return q.dequantize().flatten(1)


def _conv_relu_chain(module: nn.Module) -> list[nn.Conv2d] | None:
    """The convolutions of a Sequential (Conv2d, ReLU)* Flatten with zero padding, else None."""
    if not isinstance(module, nn.Sequential) or len(module) < 3 or len(module) % 2 == 0:
        return None
    layers = list(module)
    convs, relus = layers[:-1:2], layers[1:-1:2]
    if not (isinstance(layers[-1], nn.Flatten) and all(isinstance(r, nn.ReLU) for r in relus)
            and all(isinstance(c, nn.Conv2d) and c.padding_mode == "zeros" for c in convs)):
        return None
    return convs


def _quantize_pixel_torsos(net: nn.Module, pixels: torch.Tensor) -> None:
    """Run the conv chain of every torso of `net` that has one in int8, on the raw pixels."""
    for module in list(net.modules()):
        torso = getattr(module, "torso", None)
        if isinstance(torso, Torso) and (convs := _conv_relu_chain(torso[0])):
            module.torso = nn.Sequential(Int8ConvStack(convs, pixels), *list(torso)[1:])


def acting_network(net: nn.Module, precision: Precision, pixels: torch.Tensor | None = None) -> nn.Module:
    """`net` itself (float32), or an int8 copy of it that leaves `net` untouched.

    `pixels`: a batch of the actor's raw observations; when they are uint8, pixel torsos' convolutions
    are calibrated on them and run in int8.
    """
    if precision == "float32":
        return net
    quantization = getattr(torch.ao, "quantization", None)
    if quantization is None or not hasattr(quantization, "quantize_dynamic"):
        raise ValueError(f"actor_precision int8 needs torch.ao.quantization.quantize_dynamic, which torch "
                         f"{torch.__version__} lacks; use actor_precision: float32")
    layers = {nn.Linear: quantization.per_channel_dynamic_qconfig, nn.LSTMCell: quantization.default_dynamic_qconfig}
    with warnings.catch_warnings():
        # torch marks torch.ao.quantization deprecated in favour of torchao; 2.13 still ships it
        warnings.filterwarnings("ignore", category=DeprecationWarning, message="torch.ao.quantization")
        warnings.filterwarnings("ignore", category=UserWarning, message="torch.quantize_per_")
        copy = quantization.quantize_dynamic(net, layers, dtype=torch.qint8)
        if pixels is not None and pixels.dtype == torch.uint8:
            _quantize_pixel_torsos(copy, pixels)
    return copy
