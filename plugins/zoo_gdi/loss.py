"""GDI's operator T: V-trace for V, Retrace for Q, the IMPALA policy gradient with clipped weights.

docs/algorithms/gdi.md describes each step and where the paper defines it. Per head i (one for I3;
two for H3, learning from rewards h_log and h_pow):

    L = xi * 0.5 (vs - V)^2 + alpha * 0.5 (qs - Q(a))^2 - beta * rho (r + g vs' - V) log pi^(i)(a)

averaged over the trained rows; for H3, pi^(i) is the mixture with the other head's advantages
detached, so each head gets the policy gradient of its own reward shaping. No entropy term.
"""

from __future__ import annotations

import torch
from zoo_learner.losses import NO_AUXILIARY, AuxiliaryTasks, Ratios, Rows, actor_critic_terms, clipped_ratios, dueling_q
from zoo_learner.policy import mixture_log_probs
from zoo_learner.shaping import SHAPINGS

from .behavior import mixture_coefficients

__all__ = ["GDILoss", "dueling_q"]


class GDILoss:
    """The loss of one learner update (see the module docstring); `shapings` names one reward transform per head."""

    def __init__(self, *, ablation: str, burn_in: int, gamma: float, rho_bar: float, c_bar: float,
                 scales: tuple[float, float, float], shapings: tuple[str, ...], retrace_form: str = "paper",
                 auxiliary: AuxiliaryTasks = NO_AUXILIARY):
        self.ablation, self.burn_in, self.gamma, self.auxiliary = ablation, burn_in, gamma, auxiliary
        self.rho_bar, self.c_bar, self.scales = rho_bar, c_bar, scales
        self.shapings = [SHAPINGS[name] for name in shapings]
        self.retrace_form = retrace_form

    def policy(self, adv: torch.Tensor, behavior: torch.Tensor, detach_head: int | None = None,
               legal: torch.Tensor | None = None) -> torch.Tensor:
        """log pi_lambda over actions; adv (..., B, heads, A), behavior (B, k). Head 0 feeds the first
        component, the last head the second (the same head for I3); `legal` (..., B, A) masks both."""
        a1, a2 = adv[..., 0, :], adv[..., -1, :]
        if detach_head == 0:
            a1 = a1.detach()
        elif detach_head == 1:
            a2 = a2.detach()
        beta1, beta2, eps = mixture_coefficients(self.ablation, behavior)
        return mixture_log_probs(a1, a2, beta1, beta2, eps, legal)

    def behavior_policy(self, adv: torch.Tensor, value: torch.Tensor, behavior: torch.Tensor,
                        legal: torch.Tensor | None = None) -> torch.Tensor:
        return self.policy(adv, behavior, legal=legal)

    def corrections(self, adv: torch.Tensor, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, ...]:
        """(log pi, ratio, rho, c) on the rows after burn-in, from the learner's advantages `adv` and the
        batch's stored lambda and mu; rho and c are 0 on rows that are not trained."""
        log_pi, ratios = self._corrected_policy(adv, batch, Rows.after_burn_in(batch, self.burn_in))
        return log_pi, ratios.ratio, ratios.rho, ratios.c

    def _corrected_policy(self, adv: torch.Tensor, batch: dict[str, torch.Tensor],
                          rows: Rows) -> tuple[torch.Tensor, Ratios]:
        log_pi = self.policy(adv, batch["behavior"], legal=rows.legal)
        return log_pi, clipped_ratios(rows.taken(log_pi), rows, self.rho_bar, self.c_bar)

    def __call__(self, net, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, dict[str, float]]:
        (adv, value), auxiliary, aux_parts = self.auxiliary.unroll(net, batch, self.burn_in)
        rows = Rows.after_burn_in(batch, self.burn_in)
        discounts = rows.discounts(self.gamma)

        # The learning policy is the family's member at the sequence's stored lambda under the current
        # weights (pi_lambda, the paper's Eq. 10 and 12 in Appendix F), over the stored legal actions
        # when the actor masked them; its ratios to the stored mu are clipped at rho_bar and c_bar
        # (Appendix B.1 and B.2).
        log_pi, ratios = self._corrected_policy(adv, batch, rows)
        pi = log_pi.exp().detach()

        # Each head learns from its own shaped rewards (Table 6: h_log for I3; h_log and h_pow for H3's
        # two parameter sets, Eq. 11), with Q centred under pi so that E_pi Q = V (Eq. 9). V follows
        # V-trace, Q the Retrace printed in Appendix B.1 (or the textbook form), the policy IMPALA's
        # gradient (B.2); no entropy term (Table 6). H3's policy term differentiates the mixture
        # through this head only, the other head's advantages detached, so that theta_i follows the
        # policy gradient of its own rewards (Algorithm 3 updates theta_1 and theta_2 separately).
        scale_v, scale_q, scale_pi = self.scales
        total, parts = auxiliary, {"loss_v": 0.0, "loss_q": 0.0, "loss_pi": 0.0, **aux_parts}
        heads = adv.shape[-2]
        for i in range(heads):
            v, q = value[..., i], dueling_q(adv[..., i, :], value[..., i], pi)
            own_log_pi = log_pi if heads == 1 else self.policy(adv, batch["behavior"], 1 - i, rows.legal)
            score = rows.taken(own_log_pi).clamp_min(-1e3)  # finite where a greedy mixture gives an action 0
            # E_pi Q: None selects the Retrace printed in Appendix B.1 (sampled next action), else the
            # textbook form bootstraps from sum_a pi(a) Q(a) at the next state.
            expected_q = None if self.retrace_form == "paper" else (pi * q).sum(-1)
            terms = actor_critic_terms(v, rows.taken(q), score, self.shapings[i](rows.reward), discounts, ratios,
                                       rows.mask, expected_q)
            total = total + scale_v * terms.v + scale_q * terms.q + scale_pi * terms.pi
            for name, number in terms.logged().items():
                parts[name] += number
        return total, {**parts, **ratios.diagnostics(rows.mask), "mu_entropy": rows.behavior_entropy()}
