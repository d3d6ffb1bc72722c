"""The loss kit that GDI, DiCE and LBC build their learner losses from.

All three train an actor-critic with a dueling head off-policy: V toward its V-trace target, Q
toward its Retrace target, and the policy by IMPALA's importance-weighted policy gradient, each
term a mean over the trained rows of the batch. What differs between them is only which policy the
learner evaluates, which reward shaping and discount each network learns from, and the policy
term's score function. This module holds what they share:

* :class:`Rows`, the rows after burn-in of a time-major batch (T + 1 per sequence: T trained or
  padding rows and one bootstrap row), with the discounts and the taken actions' entries;
* :func:`masked_mean` over the trained rows;
* :func:`clipped_ratios`, rho = min(rho_bar, pi/mu) and c = min(c_bar, pi/mu) of the taken action;
* :func:`dueling_q`, Q = A - E_pi A + V;
* :func:`actor_critic_terms`, the three losses from the targets of :mod:`zoo_learner.targets`;
* :class:`AuxiliaryTasks`, the forward and inverse dynamics losses GDI's and LBC's tables switch on.

docs/algorithms/substrate.md describes each piece and where the papers define it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from .targets import pg_advantage, retrace, retrace_expected, vtrace


def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of `x` over the entries where `mask` is 1 (0 when there are none)."""
    # The denominator counts trained rows only, so padding neither dilutes the loss nor changes its
    # scale with how early episodes ended; the clamp makes an all-padding batch give 0, not 0/0.
    return (x * mask).sum() / mask.sum().clamp_min(1.0)


@dataclass(frozen=True)
class Rows:
    """The rows after burn-in of a time-major batch: T + 1 per sequence, the last one the bootstrap row.

    ``action`` (T+1, B, 1), ``train`` (T+1, B) as floats, ``mu`` (T+1, B, A) the stored behavior
    probabilities; ``reward`` and ``done`` (T, B) cover the rows that have a successor. ``legal``
    (T+1, B, A) holds the legal actions of a batch from an actor that masks actions, else None.
    """

    action: torch.Tensor
    train: torch.Tensor
    mu: torch.Tensor
    reward: torch.Tensor
    done: torch.Tensor
    legal: torch.Tensor | None = None

    @classmethod
    def after_burn_in(cls, batch: dict[str, torch.Tensor], burn_in: int) -> Rows:
        # Burn-in rows only warm up the recurrent state (R2D2's burn-in); the targets start after them.
        # The last row is the bootstrap row: it has an observation and a value but no reward or
        # termination of its own, hence [:-1] on those two.
        rows = slice(burn_in, None)
        legal = batch["legal"][rows] if "legal" in batch else None
        return cls(action=batch["action"][rows].unsqueeze(-1), train=batch["train"][rows].float(),
                   mu=batch["mu"][rows], reward=batch["reward"][rows][:-1], done=batch["done"][rows][:-1], legal=legal)

    @property
    def mask(self) -> torch.Tensor:
        """1 on the T rows that are trained, 0 on padding (T, B)."""
        return self.train[:-1]

    def discounts(self, gamma: float) -> torch.Tensor:
        """gamma * (1 - done_t): 0 after a terminal step, so nothing is bootstrapped across it."""
        return gamma * (1.0 - self.done)

    def taken(self, x: torch.Tensor) -> torch.Tensor:
        """The entries of the taken actions of per-action values `x` (T+1, B, A) -> (T+1, B)."""
        return x.gather(-1, self.action).squeeze(-1)

    def behavior_entropy(self) -> float:
        """Mean entropy of the stored behavior mu over the trained rows (a diagnostic)."""
        mu = self.mu[:-1]
        return float(masked_mean(-torch.xlogy(mu, mu).sum(-1), self.mask))


@dataclass(frozen=True)
class Ratios:
    """Importance ratios pi(a)/mu(a) of the taken actions, and their clips rho and c (0 on untrained rows)."""

    ratio: torch.Tensor
    rho: torch.Tensor
    c: torch.Tensor
    rho_bar: float

    def diagnostics(self, mask: torch.Tensor) -> dict[str, float]:
        """Mean rho and the fraction of ratios clipped by rho_bar, over the trained rows."""
        return {"rho": float(masked_mean(self.rho[:-1], mask)),
                "rho_clipped": float(masked_mean((self.ratio[:-1] > self.rho_bar).float(), mask))}


def clipped_ratios(log_pi_taken: torch.Tensor, rows: Rows, rho_bar: float, c_bar: float) -> Ratios:
    """Ratios of the learner's policy (log-probabilities of the taken actions, treated as constants)
    to the stored behavior; rho = min(rho_bar, ratio), c = min(c_bar, ratio)."""
    # pi/mu in log space: the learner's log pi comes from log-softmaxes (exact for tiny probabilities)
    # while mu is stored as probabilities, floored so that log 0 on padding rows stays finite. The
    # ratio is a constant of the loss (detached): V-trace and Retrace use it as a weight, not as a
    # function of the weights. Multiplying by `train` zeroes rho and c on padding, which makes the
    # targets there equal the current estimates (see zoo_learner.targets).
    log_mu = torch.log(rows.taken(rows.mu).clamp_min(1e-30))
    ratio = torch.exp(log_pi_taken.detach() - log_mu)
    return Ratios(ratio, ratio.clamp(max=rho_bar) * rows.train, ratio.clamp(max=c_bar) * rows.train, rho_bar)


def dueling_q(adv: torch.Tensor, value: torch.Tensor, pi: torch.Tensor) -> torch.Tensor:
    """Q(s, a) = A(s, a) - sum_b pi(b|s) A(s, b) + V(s), so that E_pi Q = V (pi is treated as a constant)."""
    # The dueling decomposition centred under the evaluated policy (GDI Eq. 9 and 11, LBC Appendix
    # B.3) rather than under the uniform mean of Wang et al. 2016: V and Q then describe the same
    # policy, so V-trace's V and Retrace's E_pi Q agree by construction.
    return adv - (pi.detach() * adv).sum(-1, keepdim=True) + value.unsqueeze(-1)


@dataclass(frozen=True)
class ActorCriticTerms:
    """The three losses of one network, each a mean over the trained rows."""

    v: torch.Tensor
    q: torch.Tensor
    pi: torch.Tensor

    def logged(self) -> dict[str, float]:
        return {"loss_v": self.v.item(), "loss_q": self.q.item(), "loss_pi": self.pi.item()}


def actor_critic_terms(value: torch.Tensor, q_taken: torch.Tensor, score: torch.Tensor, rewards: torch.Tensor,
                       discounts: torch.Tensor, ratios: Ratios, mask: torch.Tensor,
                       expected_q: torch.Tensor | None = None) -> ActorCriticTerms:
    """V-trace, Retrace and policy-gradient losses of one network on T + 1 rows.

    ``value`` and ``q_taken`` (T+1, B) are V and Q of the taken action, ``score`` (T+1, B) is the
    term whose gradient is the policy's (log pi(a), or DiCE's tau-scaled form); ``rewards`` and
    ``discounts`` (T, B) are already shaped and discounted for this network. ``expected_q``
    (T+1, B), E_pi Q, selects the textbook Retrace (Munos et al.); without it Retrace bootstraps
    from the sampled next action's Q as the GDI and DiCE papers print it. Targets are computed on
    detached estimates, so each loss moves only its own estimate:

        L_V = 0.5 (vs_t - V_t)^2,  L_Q = 0.5 (qs_t - Q_t(a_t))^2,  L_pi = -rho_t (r_t + g_t vs_{t+1} - V_t) score_t
    """
    # Semi-gradient targets: every target is computed from detached estimates, so the V loss moves
    # only V toward vs, the Q loss only Q(a) toward qs, and the policy term only the policy (through
    # `score`). V-trace uses the T trained rows' ratios; Retrace reads c at t + 1, so it takes all
    # T + 1 (the bootstrap row is never trained, so its c is 0 and Retrace bootstraps from its Q).
    fixed_v = value.detach()
    vs = vtrace(fixed_v, rewards, discounts, ratios.rho[:-1], ratios.c[:-1])
    if expected_q is None:
        qs = retrace(q_taken.detach(), rewards, discounts, ratios.c)
    else:
        qs = retrace_expected(q_taken.detach(), expected_q.detach(), rewards, discounts, ratios.c)
    advantage = pg_advantage(vs, fixed_v, rewards, discounts, ratios.rho[:-1])
    return ActorCriticTerms(v=masked_mean(0.5 * (vs[:-1] - value[:-1]) ** 2, mask),
                            q=masked_mean(0.5 * (qs[:-1] - q_taken[:-1]) ** 2, mask),
                            pi=masked_mean(-advantage * score[:-1], mask))


def forward_dynamics_loss(predicted: torch.Tensor, target: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """0.5 * the mean squared error per feature between predicted (T, B, E) and detached target next
    embeddings, averaged over the rows where `mask` (T, B) is 1: only the prediction learns from it."""
    return masked_mean(0.5 * (predicted - target.detach()).pow(2).mean(-1), mask)


def inverse_dynamics_loss(logits: torch.Tensor, action: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of the taken actions (T, B) under `logits` (T, B, A), averaged over the rows where `mask` is 1."""
    nll = -torch.log_softmax(logits, -1).gather(-1, action.unsqueeze(-1)).squeeze(-1)
    return masked_mean(nll, mask)


@dataclass(frozen=True)
class AuxiliaryTasks:
    """The auxiliary dynamics tasks' weights (0: off) and the unroll that adds their loss.

    A pair of rows (t, t+1) is a transition when row t is trained: the trained rows of a sequence
    are consecutive steps of one episode, the last followed by the episode's final observation (the
    bootstrap row) or by the next step, and never by padding or by another episode's row. The
    terminal step is a transition like any other (its next observation is the final one).
    """

    forward: float = 0.0
    inverse: float = 0.0

    @property
    def on(self) -> bool:
        return self.forward > 0 or self.inverse > 0

    def unroll(self, net, batch: dict[str, torch.Tensor], burn_in: int) -> tuple[Any, Any, dict[str, float]]:
        """(adv, value) of ``net.unroll``, the weighted auxiliary loss (0 when off) and its diagnostics."""
        if not self.on:
            return net.unroll(batch["obs"], batch["state"], batch["valid"], burn_in), 0.0, {}
        # The dynamics models read the torso's embeddings of rows t and t + 1 and the action between
        # them; the mask of trained rows t is exactly the set of pairs that are real transitions
        # (class docstring), so padding and episode boundaries never enter these losses.
        heads, embeddings = net.unroll_embedded(batch["obs"], batch["state"], batch["valid"], burn_in)
        rows = Rows.after_burn_in(batch, burn_in)
        mask, action = rows.mask, rows.action[:-1, ..., 0]
        total, parts = 0.0, {}
        for dynamics in net.dynamics(embeddings, action):  # one per network (GDI-H3 and LBC have several)
            if self.forward > 0:
                loss = forward_dynamics_loss(dynamics.predicted, dynamics.target, mask)
                total = total + self.forward * loss
                parts["loss_forward"] = parts.get("loss_forward", 0.0) + loss.item()
            if self.inverse > 0:
                loss = inverse_dynamics_loss(dynamics.logits, action, mask)
                total = total + self.inverse * loss
                parts["loss_inverse"] = parts.get("loss_inverse", 0.0) + loss.item()
        return heads, total, parts


#: both tasks off (the losses' default)
NO_AUXILIARY = AuxiliaryTasks()
