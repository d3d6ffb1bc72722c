"""LBC's learners: each member i is trained off-policy on the shared data with its own gamma_i and RS_i.

docs/algorithms/lbc.md describes each step and where the paper defines it. Member i's target policy
is pi_i = softmax(A_i) (temperature 1, independent of psi; over the legal actions when the actor
masks them). Per member:

    L_i = xi * 0.5 (vs - V_i)^2 + alpha * 0.5 (qs - Q_i(a))^2 - beta * rho (r_i + g_i vs' - V_i) log pi_i(a)

with vs from V-trace and qs from the standard Retrace (E_pi Q at the next state), averaged over the
trained rows; the update minimizes sum_i L_i. The members' parameters are disjoint, so this is N
separate learners (AdamW is per parameter) except that the gradient-norm clip is taken over all
members together. No entropy term.
"""

from __future__ import annotations

import torch
from zoo_learner.losses import (
    NO_AUXILIARY,
    AuxiliaryTasks,
    Rows,
    actor_critic_terms,
    clipped_ratios,
    dueling_q,
    masked_mean,
)
from zoo_learner.policy import masked_log_softmax
from zoo_learner.shaping import SHAPINGS

from .behavior import hybrid_log_probs
from .params import SHAPING_NAMES


class LBCLoss:
    """The loss of one update of every member (module docstring). `gammas` and `shapings` (Table 3's names)
    list one entry per trained network; `members` is the number of mixture components (reduce_H: one
    network, N components)."""

    def __init__(self, *, burn_in: int, gammas: list[float], shapings: list[str], members: int, rho_bar: float,
                 c_bar: float, scales: tuple[float, float, float], auxiliary: AuxiliaryTasks = NO_AUXILIARY):
        self.burn_in, self.gammas, self.members, self.auxiliary = burn_in, gammas, members, auxiliary
        self.shapings = [SHAPINGS[SHAPING_NAMES[name]] for name in shapings]
        self.rho_bar, self.c_bar, self.scales = rho_bar, c_bar, scales

    def components(self, adv: torch.Tensor) -> torch.Tensor:
        """Advantages (..., N, A) of the mixture's members; one network is repeated N times (reduce_H)."""
        # Under reduce_H (Table 12) the behavior still mixes N components, with psi's 2N coordinates,
        # but only one network is trained: its advantages stand in for all N.
        return adv if adv.shape[-2] == self.members else adv[..., :1, :].expand(*adv.shape[:-2], self.members, adv.shape[-1])

    def behavior_policy(self, adv: torch.Tensor, value: torch.Tensor, behavior: torch.Tensor,
                        legal: torch.Tensor | None = None) -> torch.Tensor:
        """log mu_psi for adv (B, heads, A) and behavior points (B, k), over the `legal` actions (B, A) when given."""
        return hybrid_log_probs(self.components(adv), behavior, legal)

    def __call__(self, net, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, dict[str, float]]:
        (adv, value), auxiliary, aux_parts = self.auxiliary.unroll(net, batch, self.burn_in)
        rows = Rows.after_burn_in(batch, self.burn_in)
        xi, alpha, beta = self.scales
        total, parts = auxiliary, {"loss_v": 0.0, "loss_q": 0.0, "loss_pi": 0.0, "rho": 0.0, **aux_parts}

        # Every member learns from all the data whatever psi produced it (Section 5.1.2, Algorithm 2's
        # learner i): its own target policy softmax(A_i), importance-corrected against the stored
        # mixture probability mu(a) with clips rho_bar and c_bar (Appendix B.2); its own discount and
        # reward shaping h_i = (gamma_i, RS_i) (Table 3); V_i by V-trace (B.2), Q_i = A_i - E_pi A_i + V_i
        # by Retrace with E_pi Q_i = V_i at the next state (B.3), and the policy by the
        # importance-weighted actor-critic gradient (B.1). When the actor masked actions, softmax(A_i)
        # is taken over the stored legal actions.
        for i, (gamma, shape) in enumerate(zip(self.gammas, self.shapings)):
            a, v = adv[..., i, :], value[..., i]
            log_pi = masked_log_softmax(a, rows.legal)
            pi = log_pi.exp().detach()
            log_pi_taken = rows.taken(log_pi)
            ratios = clipped_ratios(log_pi_taken, rows, self.rho_bar, self.c_bar)
            # Q_i is centred under pi_i (dueling_q), so E_pi_i Q_i = V_i exactly: the textbook Retrace's
            # next-state expectation is V_i itself, passed as `expected_q`.
            terms = actor_critic_terms(v, rows.taken(dueling_q(a, v, pi)), log_pi_taken, shape(rows.reward),
                                       rows.discounts(gamma), ratios, rows.mask, expected_q=v)
            total = total + xi * terms.v + alpha * terms.q + beta * terms.pi
            for name, number in terms.logged().items():
                parts[name] += number
            parts["rho"] += float(masked_mean(ratios.rho[:-1], rows.mask)) / len(self.gammas)
        return total, {**parts, "mu_entropy": rows.behavior_entropy()}
