"""LBC's learners: each member i is trained off-policy on the shared data with its own gamma_i and RS_i.

Member i's target policy is pi_i = softmax(A_i) (temperature 1, independent of psi); its ratios are
pi_i(a) / mu(a) with the logged mixture probability mu(a), rho = min(rho_bar, .), c = min(c_bar, .).
Q_i = A_i - sum_b sg(pi_i(b)) A_i(b) + V_i, so E_pi Q_i = V_i. Per member:

    L_i = xi * 0.5 (vs - V_i)^2 + alpha * 0.5 (qs - Q_i(a))^2 - beta * rho (r_i + g_i vs' - V_i) log pi_i(a)

with vs from V-trace and qs from the standard Retrace (E_pi Q at the next state), averaged over the
trained rows; the update minimizes sum_i L_i. The members' parameters are disjoint, so this is N
separate learners (AdamW is per parameter) except that the gradient-norm clip is taken over all
members together. No entropy term (specs/lbc.md 2.5).
"""

from __future__ import annotations

import torch

from zoo_learner.targets import pg_advantage, retrace_expected, vtrace

from .behavior import hybrid_log_probs
from .shaping import SHAPINGS


def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (x * mask).sum() / mask.sum().clamp_min(1.0)


class LBCLoss:
    """The loss of one update of every member (module docstring). `gammas` and `shapings` list one entry
    per trained network; `members` is the number of mixture components (reduce_H: one network, N components)."""

    def __init__(self, *, burn_in: int, gammas: list[float], shapings: list[str], members: int, rho_bar: float,
                 c_bar: float, scales: tuple[float, float, float]):
        self.burn_in, self.gammas, self.members = burn_in, gammas, members
        self.shapings = [SHAPINGS[name] for name in shapings]
        self.rho_bar, self.c_bar, self.scales = rho_bar, c_bar, scales

    def components(self, adv: torch.Tensor) -> torch.Tensor:
        """Advantages (..., N, A) of the mixture's members; one network is repeated N times (reduce_H)."""
        return adv if adv.shape[-2] == self.members else adv[..., :1, :].expand(*adv.shape[:-2], self.members, adv.shape[-1])

    def behavior_policy(self, adv: torch.Tensor, value: torch.Tensor, behavior: torch.Tensor) -> torch.Tensor:
        """log mu_psi for adv (B, heads, A) and behavior points (B, k)."""
        return hybrid_log_probs(self.components(adv), behavior)

    def __call__(self, net, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, dict[str, float]]:
        adv, value = net.unroll(batch["obs"], batch["state"], batch["valid"], self.burn_in)
        rows = slice(self.burn_in, None)
        action = batch["action"][rows].unsqueeze(-1)
        train = batch["train"][rows].float()
        mask = train[:-1]
        raw = batch["reward"][rows][:-1]
        log_mu = torch.log(batch["mu"][rows].gather(-1, action).squeeze(-1).clamp_min(1e-30))
        xi, alpha, beta = self.scales
        total, parts = 0.0, {"loss_v": 0.0, "loss_q": 0.0, "loss_pi": 0.0, "rho": 0.0}
        for i, (gamma, shape) in enumerate(zip(self.gammas, self.shapings)):
            a, v = adv[..., i, :], value[..., i]
            log_pi = torch.log_softmax(a, -1)
            pi = log_pi.exp().detach()
            log_pi_taken = log_pi.gather(-1, action).squeeze(-1)
            ratio = torch.exp(log_pi_taken.detach() - log_mu)
            rho, c = ratio.clamp(max=self.rho_bar) * train, ratio.clamp(max=self.c_bar) * train
            r, discount = shape(raw), gamma * (1.0 - batch["done"][rows][:-1])
            q = a - (pi * a).sum(-1, keepdim=True) + v.unsqueeze(-1)
            q_taken = q.gather(-1, action).squeeze(-1)
            vs = vtrace(v.detach(), r, discount, rho[:-1], c[:-1])
            qs = retrace_expected(q_taken.detach(), v.detach(), r, discount, c)
            advantage = pg_advantage(vs, v.detach(), r, discount, rho[:-1])
            loss_v = masked_mean(0.5 * (vs[:-1] - v[:-1]) ** 2, mask)
            loss_q = masked_mean(0.5 * (qs[:-1] - q_taken[:-1]) ** 2, mask)
            loss_pi = masked_mean(-advantage * log_pi_taken[:-1], mask)
            total = total + xi * loss_v + alpha * loss_q + beta * loss_pi
            for name, part in (("loss_v", loss_v), ("loss_q", loss_q), ("loss_pi", loss_pi)):
                parts[name] += part.item()
            parts["rho"] += float(masked_mean(rho[:-1], mask)) / len(self.gammas)
        mu = batch["mu"][rows][:-1]
        parts["mu_entropy"] = float(masked_mean(-torch.xlogy(mu, mu).sum(-1), mask))
        return total, parts
