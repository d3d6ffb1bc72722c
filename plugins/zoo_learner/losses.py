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
* :func:`actor_critic_terms`, the three losses from the targets of :mod:`zoo_learner.targets`.

docs/algorithms/substrate.md describes each piece and where the papers define it.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .targets import pg_advantage, retrace, retrace_expected, vtrace


def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of `x` over the entries where `mask` is 1 (0 when there are none)."""
    return (x * mask).sum() / mask.sum().clamp_min(1.0)


@dataclass(frozen=True)
class Rows:
    """The rows after burn-in of a time-major batch: T + 1 per sequence, the last one the bootstrap row.

    ``action`` (T+1, B, 1), ``train`` (T+1, B) as floats, ``mu`` (T+1, B, A) the stored behavior
    probabilities; ``reward`` and ``done`` (T, B) cover the rows that have a successor.
    """

    action: torch.Tensor
    train: torch.Tensor
    mu: torch.Tensor
    reward: torch.Tensor
    done: torch.Tensor

    @classmethod
    def after_burn_in(cls, batch: dict[str, torch.Tensor], burn_in: int) -> Rows:
        rows = slice(burn_in, None)
        return cls(action=batch["action"][rows].unsqueeze(-1), train=batch["train"][rows].float(),
                   mu=batch["mu"][rows], reward=batch["reward"][rows][:-1], done=batch["done"][rows][:-1])

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
    log_mu = torch.log(rows.taken(rows.mu).clamp_min(1e-30))
    ratio = torch.exp(log_pi_taken.detach() - log_mu)
    return Ratios(ratio, ratio.clamp(max=rho_bar) * rows.train, ratio.clamp(max=c_bar) * rows.train, rho_bar)


def dueling_q(adv: torch.Tensor, value: torch.Tensor, pi: torch.Tensor) -> torch.Tensor:
    """Q(s, a) = A(s, a) - sum_b pi(b|s) A(s, b) + V(s), so that E_pi Q = V (pi is treated as a constant)."""
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
