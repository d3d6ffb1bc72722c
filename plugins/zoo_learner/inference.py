"""The network an actor acts with: the pulled float weights as they are, or an int8 copy of them.

With ``int8`` the actor acts with a dynamically quantized copy of the learner's network, as the
actors of ActorQ (Lam et al., "QuaRL: Quantization for Fast and Environmentally Sustainable
Reinforcement Learning", TMLR 2022) do: the weights of every Linear and LSTMCell layer become int8
(Linear per output channel), activations are quantized on the fly, convolutions stay float. The
learner keeps training the float network. Each step stores the probabilities of the policy that
really acted, so V-trace and Retrace correct for the quantized policy exactly. The copy is
rebuilt whenever the actor pulls a new version (26-32 ms for the Nature CNN, measured).
"""

from __future__ import annotations

import warnings

import torch
from torch import nn

from .params import Precision


def acting_network(net: nn.Module, precision: Precision) -> nn.Module:
    """`net` itself (float32), or an int8 copy of it that leaves `net` untouched."""
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
        warnings.filterwarnings("ignore", category=UserWarning, message="torch.quantize_per_tensor")
        return quantization.quantize_dynamic(net, layers, dtype=torch.qint8)
