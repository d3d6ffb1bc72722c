"""GDI's operator T: V-trace for V, Retrace for Q, the IMPALA policy gradient with clipped weights.

On each sequence the learner recomputes the learning policy pi = pi_lambda with the sequence's
stored lambda and its current weights, and corrects toward it from the stored behavior
probabilities mu: ratio = pi(a) / mu(a), rho = min(rho_bar, ratio), c = min(c_bar, ratio).
Q = A - sum_b pi(b) A(b) + V with pi detached. Per head i (one for I3; two for H3, with rewards
h_log and h_pow):

    L = xi * 0.5 (vs - V)^2 + alpha * 0.5 (qs - Q(a))^2 - beta * rho (r + g vs' - V) log pi^(i)(a)

averaged over the trained rows; for H3, pi^(i) is the mixture with the other head's advantages
detached, so each head gets the policy gradient of its own reward shaping. No entropy term.
"""

from __future__ import annotations

import torch

from zoo_learner.policy import mixture_log_probs
from zoo_learner.shaping import SHAPINGS
from zoo_learner.targets import pg_advantage, retrace, retrace_expected, vtrace

from .behavior import mixture_coefficients


def _masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (x * mask).sum() / mask.sum().clamp_min(1.0)


def dueling_q(adv: torch.Tensor, value: torch.Tensor, pi: torch.Tensor) -> torch.Tensor:
    """Q(s, a) = A(s, a) - sum_b pi(b|s) A(s, b) + V(s), so that E_pi Q = V (pi is treated as a constant)."""
    return adv - (pi.detach() * adv).sum(-1, keepdim=True) + value.unsqueeze(-1)


class GDILoss:
    """The loss of one learner update (see the module docstring); `shapings` names one reward transform per head."""

    def __init__(self, *, ablation: str, burn_in: int, gamma: float, rho_bar: float, c_bar: float,
                 scales: tuple[float, float, float], shapings: tuple[str, ...], retrace_form: str = "paper"):
        self.ablation, self.burn_in, self.gamma = ablation, burn_in, gamma
        self.rho_bar, self.c_bar, self.scales = rho_bar, c_bar, scales
        self.shapings = [SHAPINGS[name] for name in shapings]
        self.retrace_form = retrace_form

    def policy(self, adv: torch.Tensor, behavior: torch.Tensor, detach_head: int | None = None) -> torch.Tensor:
        """log pi_lambda over actions; adv (..., B, heads, A), behavior (B, k). Head 0 feeds the first
        component, the last head the second (the same head for I3)."""
        a1, a2 = adv[..., 0, :], adv[..., -1, :]
        if detach_head == 0:
            a1 = a1.detach()
        elif detach_head == 1:
            a2 = a2.detach()
        beta1, beta2, eps = mixture_coefficients(self.ablation, behavior)
        return mixture_log_probs(a1, a2, beta1, beta2, eps)

    def behavior_policy(self, adv: torch.Tensor, value: torch.Tensor, behavior: torch.Tensor) -> torch.Tensor:
        return self.policy(adv, behavior)

    def corrections(self, adv: torch.Tensor, batch: dict[str, torch.Tensor]):
        """(log pi, ratio, rho, c) on the rows after burn-in, from the learner's advantages `adv` and the
        batch's stored lambda and mu; rho and c are 0 on rows that are not trained."""
        rows = slice(self.burn_in, None)
        action = batch["action"][rows].unsqueeze(-1)
        train = batch["train"][rows].float()
        mu_taken = batch["mu"][rows].gather(-1, action).squeeze(-1)
        log_pi = self.policy(adv, batch["behavior"])
        ratio = torch.exp(log_pi.gather(-1, action).squeeze(-1).detach() - torch.log(mu_taken.clamp_min(1e-30)))
        return log_pi, ratio, ratio.clamp(max=self.rho_bar) * train, ratio.clamp(max=self.c_bar) * train

    def __call__(self, net, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, dict[str, float]]:
        adv, value = net.unroll(batch["obs"], batch["state"], batch["valid"], self.burn_in)
        rows = slice(self.burn_in, None)
        action = batch["action"][rows].unsqueeze(-1)
        train = batch["train"][rows].float()
        reward = batch["reward"][rows][:-1]
        discount = self.gamma * (1.0 - batch["done"][rows][:-1])
        heads = adv.shape[-2]
        log_pi, ratio, rho, c = self.corrections(adv, batch)
        pi = log_pi.exp().detach()
        mask = train[:-1]
        scale_v, scale_q, scale_pi = self.scales
        total, parts = 0.0, {"loss_v": 0.0, "loss_q": 0.0, "loss_pi": 0.0}
        for i in range(heads):
            r = self.shapings[i](reward)
            v, a = value[..., i], adv[..., i, :]
            q = dueling_q(a, v, pi)
            q_taken = q.gather(-1, action).squeeze(-1)
            vs = vtrace(v.detach(), r, discount, rho[:-1], c[:-1])
            if self.retrace_form == "paper":
                qs = retrace(q_taken.detach(), r, discount, c)
            else:
                qs = retrace_expected(q_taken.detach(), (pi * q).sum(-1).detach(), r, discount, c)
            advantage = pg_advantage(vs, v.detach(), r, discount, rho[:-1])
            own = log_pi if heads == 1 else self.policy(adv, batch["behavior"], detach_head=1 - i)
            log_pi_taken = own.gather(-1, action).squeeze(-1)[:-1].clamp_min(-1e3)
            loss_v = _masked_mean(0.5 * (vs[:-1] - v[:-1]) ** 2, mask)
            loss_q = _masked_mean(0.5 * (qs[:-1] - q_taken[:-1]) ** 2, mask)
            loss_pi = _masked_mean(-advantage * log_pi_taken, mask)
            total = total + scale_v * loss_v + scale_q * loss_q + scale_pi * loss_pi
            parts["loss_v"] += loss_v.item()
            parts["loss_q"] += loss_q.item()
            parts["loss_pi"] += loss_pi.item()
        mu = batch["mu"][rows][:-1]
        entropy = -(mu * torch.log(mu.clamp_min(1e-30))).sum(-1)
        parts.update(rho=float(_masked_mean(rho[:-1], mask)),
                     rho_clipped=float(_masked_mean((ratio[:-1] > self.rho_bar).float(), mask)),
                     mu_entropy=float(_masked_mean(entropy, mask)))
        return total, parts
