"""Slow reference losses for the substrate's agents, written from the papers' sum forms one sequence and
one step at a time (no code shared with zoo_learner), and hand-made batches with an off-policy mu,
terminals inside sequences and padded rows.

The targets follow V-trace's and Retrace's definitions as sums (GDI App. B.1/B.2, DiCE Eq. 2 and 4,
LBC App. B.2/B.3) rather than the backward recursions the substrate computes:

    vs_t = V_t + sum_{k>=t} (prod_{t<=j<k} g_j c_j) rho_k (r_k + g_k V_{k+1} - V_k)
    qs_t = Q_t(a_t) + sum_{k>=t} (prod_{t<=j<k} g_j c_{j+1}) (r_k + g_k X_{k+1} - Q_k(a_k)) + (that weight at T) (X_T - Q_T(a_T))

with X = Q(a) (the sampled next action, as GDI and DiCE print Retrace) or X = E_pi Q (Munos et al.).
"""

from __future__ import annotations

import math

import pytest
import torch

DTYPE = torch.float64
ROWS, SEQS, ACTIONS = 6, 2, 3  # T + 1 rows per sequence (the last one the bootstrap row)


class FixedNet:
    """A 'network' whose unroll returns given advantages (T+1, B, heads, A) and values (T+1, B, heads)."""

    def __init__(self, adv: torch.Tensor, value: torch.Tensor):
        self.adv, self.value = adv, value

    def unroll(self, obs, state, valid, burn_in):
        return self.adv, self.value


def leaves(heads: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Advantages and values that require gradients, spread enough that the ratios leave [1/1.05, 1.05]."""
    g = torch.Generator().manual_seed(seed)
    adv = (2.0 * torch.randn(ROWS, SEQS, heads, ACTIONS, generator=g, dtype=DTYPE)).requires_grad_()
    value = torch.randn(ROWS, SEQS, heads, generator=g, dtype=DTYPE).requires_grad_()
    return adv, value


def batch(behavior: list[list[float]], seed: int = 0) -> dict[str, torch.Tensor]:
    """A time-major batch without burn-in: mu drawn away from any learner policy, rewards of both signs
    and sizes above 1, sequence 0 with a terminal at row 1 that later rows continue after (a new
    episode), sequence 1 ending at row 2 with row 3 onwards padded."""
    g = torch.Generator().manual_seed(100 + seed)
    mu = 0.05 + torch.rand(ROWS, SEQS, ACTIONS, generator=g, dtype=DTYPE)  # no vanishing probability
    mu = mu / mu.sum(-1, keepdim=True)
    action = torch.multinomial(mu.reshape(-1, ACTIONS), 1, generator=g).reshape(ROWS, SEQS)
    reward = torch.tensor([[3.0, -2.0], [0.5, 7.0], [-4.0, 1.0], [2.0, 0.0], [-0.3, 0.0], [0.0, 0.0]], dtype=DTYPE)
    done = torch.zeros(ROWS, SEQS, dtype=DTYPE)
    done[1, 0] = done[2, 1] = 1.0
    train = torch.ones(ROWS, SEQS, dtype=torch.bool)
    train[-1] = False
    train[3:, 1] = False
    return {"obs": torch.zeros(ROWS, SEQS, 1), "state": torch.zeros(SEQS, 1),
            "valid": torch.ones(ROWS, SEQS, dtype=torch.bool), "action": action, "mu": mu, "reward": reward,
            "done": done, "train": train, "behavior": torch.tensor(behavior, dtype=DTYPE)}


def vtrace_sum(V: list[float], r: list[float], g: list[float], rho: list[float], c: list[float]) -> list[float]:
    steps = len(r)
    out = []
    for t in range(steps + 1):
        total, weight = V[t], 1.0
        for k in range(t, steps):
            total += weight * rho[k] * (r[k] + g[k] * V[k + 1] - V[k])
            weight *= g[k] * c[k]
        out.append(total)
    return out


def retrace_sum(Qa: list[float], r: list[float], g: list[float], c: list[float], X: list[float]) -> list[float]:
    steps = len(r)
    out = []
    for t in range(steps):
        total, weight = Qa[t], 1.0
        for k in range(t, steps):
            total += weight * (r[k] + g[k] * X[k + 1] - Qa[k])
            weight *= g[k] * c[k + 1]
        out.append(total + weight * (X[steps] - Qa[steps]))
    return out + [X[steps]]


def actor_critic(value, q_taken, score, pi_taken, batch, rewards, gamma: float, *, expected_q=None,
                 rho_bar: float = 1.05, c_bar: float = 1.05) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(L_V, L_Q, L_pi), each a mean over the trained rows, for one network.

    value, q_taken, score (T+1, B) carry the gradients; pi_taken (T+1, B) is the learner policy's
    probability of the taken action; rewards (T, B) are already shaped; expected_q selects Munos'
    Retrace. Ratios, targets and advantages are plain floats (constants)."""
    mu_taken = batch["mu"].gather(-1, batch["action"].unsqueeze(-1)).squeeze(-1)
    steps = rewards.shape[0]
    loss_v = loss_q = loss_pi = 0.0
    count = 0
    for b in range(value.shape[1]):
        train = [bool(batch["train"][t, b]) for t in range(steps + 1)]
        ratio = [float(pi_taken[t, b]) / float(mu_taken[t, b]) for t in range(steps + 1)]
        rho = [min(rho_bar, x) if on else 0.0 for x, on in zip(ratio, train)]
        c = [min(c_bar, x) if on else 0.0 for x, on in zip(ratio, train)]
        r = [float(rewards[t, b]) for t in range(steps)]
        g = [gamma * (1.0 - float(batch["done"][t, b])) for t in range(steps)]
        V = [float(value[t, b].detach()) for t in range(steps + 1)]
        Qa = [float(q_taken[t, b].detach()) for t in range(steps + 1)]
        X = Qa if expected_q is None else [float(expected_q[t, b].detach()) for t in range(steps + 1)]
        vs, qs = vtrace_sum(V, r, g, rho, c), retrace_sum(Qa, r, g, c, X)
        for t in range(steps):
            if train[t]:
                count += 1
                loss_v = loss_v + 0.5 * (vs[t] - value[t, b]) ** 2
                loss_q = loss_q + 0.5 * (qs[t] - q_taken[t, b]) ** 2
                loss_pi = loss_pi - rho[t] * (r[t] + g[t] * vs[t + 1] - V[t]) * score[t, b]
    return loss_v / count, loss_q / count, loss_pi / count


def taken(x: torch.Tensor, batch) -> torch.Tensor:
    return x.gather(-1, batch["action"].unsqueeze(-1)).squeeze(-1)


def softmax(logits: torch.Tensor) -> torch.Tensor:
    e = torch.exp(logits - logits.max(-1, keepdim=True).values)
    return e / e.sum(-1, keepdim=True)


def dueling(adv: torch.Tensor, value: torch.Tensor, pi: torch.Tensor) -> torch.Tensor:
    """Q = A - sum_b sg(pi(b)) A(b) + V."""
    return adv - (pi.detach() * adv).sum(-1, keepdim=True) + value.unsqueeze(-1)


# The papers' reward shapings, from their tables
def h_log(r):  # GDI Table 6, DiCE Table 5, LBC RS2
    return torch.where(r >= 0, 2.0 * torch.log(r.abs() + 1.0), -torch.log(r.abs() + 1.0))


def h_pow(r):  # GDI Table 6, H3's second head
    return torch.sign(r) * ((r.abs() + 1.0) ** 0.25 - 1.0) + 0.001 * r


def rs1(r):  # LBC Table 3
    return torch.sign(r) * (torch.sqrt(r.abs() + 1.0) - 1.0) + 0.001 * r


def rs3(r):  # LBC Table 3
    return 0.3 * torch.clamp(torch.tanh(r), max=0.0) + 5.0 * torch.clamp(torch.tanh(r), min=0.0)


def gradients(loss: torch.Tensor, *tensors: torch.Tensor) -> list[torch.Tensor]:
    return list(torch.autograd.grad(loss, tensors, allow_unused=False))


def assert_matches_reference(got, expected, leaves: tuple[torch.Tensor, ...], rel: float) -> None:
    """A loss's (total, parts) against the reference's: the totals and the parts to `rel`, and the gradients
    with respect to `leaves` to `rel` (and to rel / 1000 absolute, for entries near zero)."""
    (total, parts), (expected_total, expected_parts) = got, expected
    assert total.item() == pytest.approx(expected_total.item(), rel=rel)
    for grad, expected_grad in zip(gradients(total, *leaves), gradients(expected_total, *leaves)):
        assert torch.allclose(grad, expected_grad, rtol=rel, atol=rel / 1000)
    assert parts == pytest.approx(expected_parts, rel=rel)



def diagnostics(pi_taken, batch, rho_bar: float = 1.05) -> dict[str, float]:
    """The logged means over the trained rows that have a successor: rho, the fraction of ratios above
    rho_bar, and the entropy of the stored mu; pi_taken (T+1, B) as in :func:`actor_critic`."""
    pi_taken = pi_taken.detach()
    mu_taken = batch["mu"].gather(-1, batch["action"].unsqueeze(-1)).squeeze(-1)
    rho = clipped = entropy = 0.0
    count = 0
    for b in range(pi_taken.shape[1]):
        for t in range(pi_taken.shape[0] - 1):
            if batch["train"][t, b]:
                count += 1
                ratio = float(pi_taken[t, b]) / float(mu_taken[t, b])
                rho += min(rho_bar, ratio)
                clipped += float(ratio > rho_bar)
                entropy -= sum(float(p) * math.log(float(p)) for p in batch["mu"][t, b] if p > 0)
    return {"rho": rho / count, "rho_clipped": clipped / count, "mu_entropy": entropy / count}


def pull_on_a_repeated_action(loss, adv_row: list[float], value: float, behavior: torch.Tensor, reward: float,
                              rows: int = 6) -> float:
    """d loss / d A(action 0) over one sequence of `rows` rows that takes action 0 every step, with the
    advantages `adv_row` and value `value` at every row, the behavior point `behavior` (1, k) and a constant
    reward; mu is the loss's own behavior policy. > 0: gradient descent lowers that advantage."""
    actions = len(adv_row)
    adv = torch.tensor(adv_row).repeat(rows, 1, 1, 1).requires_grad_()  # (T+1, B=1, heads=1, A)
    values = torch.full((rows, 1, 1), value, requires_grad=True)
    mu = loss.behavior_policy(adv.detach()[:, 0], None, behavior)[None].exp().reshape(rows, 1, actions)
    data = {"obs": torch.zeros(rows, 1, 1), "state": torch.zeros(1, 1), "valid": torch.ones(rows, 1, dtype=bool),
            "action": torch.zeros(rows, 1, dtype=torch.long), "mu": mu, "reward": torch.full((rows, 1), reward),
            "done": torch.zeros(rows, 1), "train": torch.ones(rows, 1, dtype=bool), "behavior": behavior}
    data["train"][-1] = False
    total, _ = loss(FixedNet(adv, values), data)
    (grad,) = torch.autograd.grad(total, adv)
    return float(grad[:-1, 0, 0, 0].sum())
