"""DiCE's learner loss: V-trace for V, Retrace for Q = V + A, and the tau-scaled policy gradient.

docs/algorithms/dice.md describes each step and where the paper defines it. The policy term is
-sg(rho (r + g vs' - V)) * tau * log pi_tau(a), whose gradient grad A(a) - sum_b pi_tau(b) grad A(b)
has the same size for every tau. It is computed as A(a) - sum_b sg(pi_tau(b)) A(b), which has
exactly that gradient and stays finite at tau = inf (its value differs from tau * log pi_tau(a) by a
term that is constant in the weights). No entropy term unless `entropy` > 0 (the paper's "entropy"
ablation):

    L = xi * 0.5 (vs - V)^2 + alpha * 0.5 (qs - Q(a))^2 + beta * L_pi - entropy * H(pi_tau)

averaged over the trained rows of the batch.
"""

from __future__ import annotations

import torch
from zoo_learner.losses import NO_AUXILIARY, AuxiliaryTasks, Rows, actor_critic_terms, clipped_ratios, masked_mean
from zoo_learner.policy import boltzmann_log_probs, legal_or_all
from zoo_learner.shaping import SHAPINGS
from zoo_learner.shaping import h_log as h_literal
from zoo_learner.shaping import h_signed_log as h_symmetric

from .behavior import inverse_temperature
from .params import REWARD_SHAPES

__all__ = ["DiCELoss", "h_literal", "h_symmetric", "tau_scaled_log_prob"]


def tau_scaled_log_prob(adv: torch.Tensor, beta: torch.Tensor, action: torch.Tensor,
                        legal: torch.Tensor | None = None) -> torch.Tensor:
    """A(a) - sum_b sg(pi_tau(b)) A(b): the gradient of tau * log pi_tau(a), finite for every tau.

    adv (..., A), beta = 1/tau broadcasting against adv[..., 0], action (..., 1); pi_tau over the
    `legal` actions when given.
    """
    # tau log pi_tau(a) = A(a) - tau logsumexp_b(A(b) / tau); its gradient is grad A(a) minus the
    # pi_tau-weighted mean of grad A(b). Writing A(a) - sum_b sg(pi_tau(b)) A(b) keeps that gradient
    # and drops the tau logsumexp, which is infinite at tau = inf (beta = 0, the uniform policy).
    pi = boltzmann_log_probs(adv, beta, legal).exp().detach()
    return adv.gather(-1, action).squeeze(-1) - (pi * adv).sum(-1)


def centered(adv: torch.Tensor, pi: torch.Tensor, mode: str, legal: torch.Tensor | None = None) -> torch.Tensor:
    """The advantage as it enters Q = V + A: as is (none), minus its mean (over the `legal` actions
    when given), or minus its pi-expectation."""
    if mode == "mean" and legal is not None:
        legal = legal_or_all(legal)
        return adv - (adv * legal).sum(-1, keepdim=True) / legal.sum(-1, keepdim=True)
    if mode == "mean":
        return adv - adv.mean(-1, keepdim=True)
    if mode == "policy":
        return adv - (pi * adv).sum(-1, keepdim=True)
    return adv


class DiCELoss:
    """The loss of one learner update (module docstring)."""

    def __init__(self, *, burn_in: int, gamma: float, rho_bar: float, c_bar: float,
                 scales: tuple[float, float, float], entropy: float = 0.0, reward_shape: str = "literal",
                 retrace_variant: str = "standard", advantage_centering: str = "none",
                 auxiliary: AuxiliaryTasks = NO_AUXILIARY):
        self.burn_in, self.gamma, self.rho_bar, self.c_bar = burn_in, gamma, rho_bar, c_bar
        self.auxiliary = auxiliary
        self.scales, self.entropy = scales, entropy
        self.shape = SHAPINGS[REWARD_SHAPES[reward_shape]]
        self.retrace_variant, self.centering = retrace_variant, advantage_centering

    def behavior_policy(self, adv: torch.Tensor, value: torch.Tensor, behavior: torch.Tensor,
                        legal: torch.Tensor | None = None) -> torch.Tensor:
        """log pi_tau = log softmax(A / tau) for adv (B, 1, A) and behavior points (B, 1), over the `legal`
        actions (B, A) when given."""
        return boltzmann_log_probs(adv[:, 0], inverse_temperature(behavior), legal)

    def __call__(self, net, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, dict[str, float]]:
        (adv, value), auxiliary, aux_parts = self.auxiliary.unroll(net, batch, self.burn_in)
        adv, value = adv[..., 0, :], value[..., 0]
        rows = Rows.after_burn_in(batch, self.burn_in)

        # The learning policy is pi_tau = softmax(A / tau) at the sequence's stored tau under the
        # current weights (Section 3.1, Algorithm 3); its ratios to the stored mu are clipped at
        # rho_bar and c_bar as in V-trace and Retrace (Section 2); over the stored legal actions when
        # the actor masked them.
        beta = inverse_temperature(batch["behavior"]).expand(adv.shape[:-1])
        log_pi = boltzmann_log_probs(adv, beta, rows.legal)
        pi = log_pi.exp().detach()
        ratios = clipped_ratios(rows.taken(log_pi), rows, self.rho_bar, self.c_bar)

        # V follows V-trace (Eq. 4 and 5), Q = V + A the Retrace target (Eq. 2 and 3; by default the
        # textbook form with E_pi_tau Q at the next state), both on shaped rewards (Table 5). The
        # policy follows Eq. 8, IMPALA's gradient (Eq. 6) multiplied by tau so its size does not
        # depend on the temperature the sequence explored with.
        q = centered(adv, pi, self.centering, rows.legal) + value.unsqueeze(-1)
        terms = actor_critic_terms(
            value, rows.taken(q), tau_scaled_log_prob(adv, beta, rows.action, rows.legal), self.shape(rows.reward),
            rows.discounts(self.gamma), ratios, rows.mask,
            expected_q=None if self.retrace_variant == "literal" else (pi * q).sum(-1))

        # Table 5 lists no entropy regularization; the entropy ablation (Section 4.3) adds H(pi_tau).
        # H(pi_tau) = -sum_b pi log pi; the floor on log pi keeps 0 * log 0 at 0 for the actions a
        # near-greedy pi_tau gives probability 0 (0 * -inf would be NaN).
        entropy = masked_mean(-(log_pi.exp() * log_pi.clamp_min(-1e4)).sum(-1)[:-1], rows.mask)
        xi, alpha, beta_pi = self.scales
        total = xi * terms.v + alpha * terms.q + beta_pi * terms.pi - self.entropy * entropy + auxiliary
        return total, {**terms.logged(), **aux_parts, "entropy": entropy.item(), **ratios.diagnostics(rows.mask),
                       "inverse_tau": float(inverse_temperature(batch["behavior"]).mean())}
