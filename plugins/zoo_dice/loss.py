"""DiCE's learner loss: V-trace for V, Retrace for Q = V + A, and the tau-scaled policy gradient.

For each sequence the learner recomputes pi_tau = softmax(A / tau) with the sequence's stored tau and
its current weights; ratio = pi_tau(a) / mu(a), rho = min(rho_bar, ratio), c = min(c_bar, ratio).
The policy term is -sg(rho (r + g vs' - V)) * tau * log pi_tau(a), whose gradient
grad A(a) - sum_b pi_tau(b) grad A(b) has the same size for every tau. It is computed as
A(a) - sum_b sg(pi_tau(b)) A(b), which has exactly that gradient and stays finite at tau = inf
(its value differs from tau * log pi_tau(a) by a term that is constant in the weights). No entropy
term unless `entropy` > 0 (the paper's "entropy" ablation):

    L = xi * 0.5 (vs - V)^2 + alpha * 0.5 (qs - Q(a))^2 + beta * L_pi - entropy * H(pi_tau)

averaged over the trained rows of the batch (specs/dice.md sections 4.3, 7 and 14).
"""

from __future__ import annotations

from typing import Callable

import torch

from zoo_learner.policy import boltzmann_log_probs
from zoo_learner.targets import pg_advantage, retrace, retrace_expected, vtrace

from .behavior import inverse_temperature


def h_literal(r: torch.Tensor) -> torch.Tensor:
    """The paper's reward shape read literally: log(|r| + 1) * (2 * 1[r >= 0] - 1[r < 0])."""
    return torch.log1p(r.abs()) * torch.where(r >= 0, 2.0, -1.0).to(r.dtype)


def h_symmetric(r: torch.Tensor) -> torch.Tensor:
    """sign(r) * log(|r| + 1)."""
    return torch.sign(r) * torch.log1p(r.abs())


SHAPES: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "literal": h_literal, "symmetric": h_symmetric, "none": lambda r: r,
}


def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (x * mask).sum() / mask.sum().clamp_min(1.0)


def tau_scaled_log_prob(adv: torch.Tensor, beta: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
    """A(a) - sum_b sg(pi_tau(b)) A(b): the gradient of tau * log pi_tau(a), finite for every tau.

    adv (..., A), beta = 1/tau broadcasting against adv[..., 0], action (..., 1).
    """
    pi = boltzmann_log_probs(adv, beta).exp().detach()
    return adv.gather(-1, action).squeeze(-1) - (pi * adv).sum(-1)


def centered(adv: torch.Tensor, pi: torch.Tensor, mode: str) -> torch.Tensor:
    """The advantage as it enters Q = V + A: as is (none), minus its mean, or minus its pi-expectation."""
    if mode == "mean":
        return adv - adv.mean(-1, keepdim=True)
    if mode == "policy":
        return adv - (pi * adv).sum(-1, keepdim=True)
    return adv


class DiCELoss:
    """The loss of one learner update (module docstring)."""

    def __init__(self, *, burn_in: int, gamma: float, rho_bar: float, c_bar: float,
                 scales: tuple[float, float, float], entropy: float = 0.0, reward_shape: str = "literal",
                 retrace_variant: str = "standard", advantage_centering: str = "none"):
        self.burn_in, self.gamma, self.rho_bar, self.c_bar = burn_in, gamma, rho_bar, c_bar
        self.scales, self.entropy = scales, entropy
        self.shape = SHAPES[reward_shape]
        self.retrace_variant, self.centering = retrace_variant, advantage_centering

    def behavior_policy(self, adv: torch.Tensor, value: torch.Tensor, behavior: torch.Tensor) -> torch.Tensor:
        """log pi_tau = log softmax(A / tau) for adv (B, 1, A) and behavior points (B, 1)."""
        return boltzmann_log_probs(adv[:, 0], inverse_temperature(behavior))

    def __call__(self, net, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, dict[str, float]]:
        adv, value = net.unroll(batch["obs"], batch["state"], batch["valid"], self.burn_in)
        adv, value = adv[..., 0, :], value[..., 0]
        rows = slice(self.burn_in, None)
        action = batch["action"][rows].unsqueeze(-1)
        mask = batch["train"][rows].float()[:-1]
        reward = self.shape(batch["reward"][rows][:-1])
        discount = self.gamma * (1.0 - batch["done"][rows][:-1])
        beta = inverse_temperature(batch["behavior"]).expand(adv.shape[:-1])
        log_pi = boltzmann_log_probs(adv, beta)
        pi = log_pi.exp().detach()
        mu_taken = batch["mu"][rows].gather(-1, action).squeeze(-1)
        ratio = torch.exp(log_pi.gather(-1, action).squeeze(-1).detach() - torch.log(mu_taken.clamp_min(1e-30)))
        train = batch["train"][rows].float()
        rho, c = ratio.clamp(max=self.rho_bar) * train, ratio.clamp(max=self.c_bar) * train

        q = centered(adv, pi, self.centering) + value.unsqueeze(-1)
        q_taken = q.gather(-1, action).squeeze(-1)
        vs = vtrace(value.detach(), reward, discount, rho[:-1], c[:-1])
        if self.retrace_variant == "literal":
            qs = retrace(q_taken.detach(), reward, discount, c)
        else:
            qs = retrace_expected(q_taken.detach(), (pi * q).sum(-1).detach(), reward, discount, c)
        advantage = pg_advantage(vs, value.detach(), reward, discount, rho[:-1])
        scaled = tau_scaled_log_prob(adv, beta, action)[:-1]

        loss_v = masked_mean(0.5 * (vs[:-1] - value[:-1]) ** 2, mask)
        loss_q = masked_mean(0.5 * (qs[:-1] - q_taken[:-1]) ** 2, mask)
        loss_pi = masked_mean(-advantage * scaled, mask)
        entropy = masked_mean(-(log_pi.exp() * log_pi.clamp_min(-1e4)).sum(-1)[:-1], mask)
        xi, alpha, beta_pi = self.scales
        total = xi * loss_v + alpha * loss_q + beta_pi * loss_pi - self.entropy * entropy
        return total, {"loss_v": loss_v.item(), "loss_q": loss_q.item(), "loss_pi": loss_pi.item(),
                       "entropy": entropy.item(), "rho": float(masked_mean(rho[:-1], mask)),
                       "rho_clipped": float(masked_mean((ratio[:-1] > self.rho_bar).float(), mask)),
                       "inverse_tau": float(inverse_temperature(batch["behavior"]).mean())}
