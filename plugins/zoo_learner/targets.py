"""Off-policy targets on time-major sequences: V-trace, Retrace (two forms) and the IMPALA advantage.

Shapes: values and Q-values have T+1 rows (the last is the bootstrap step), rewards, discounts,
rho and c have T rows (c for Retrace has T+1, see below). ``discounts[t] = gamma * (1 - done_t)``.
Rows a sequence does not train on (padding) get rho = c = 0, which makes their targets equal the
current estimates, so a sequence that ends early bootstraps from its last real step. Every input
is treated as a constant: call these on detached tensors.
"""

from __future__ import annotations

import torch


def vtrace(values: torch.Tensor, rewards: torch.Tensor, discounts: torch.Tensor,
           rho: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """vs_T = V_T; vs_t = V_t + rho_t (r_t + g_t V_{t+1} - V_t) + g_t c_t (vs_{t+1} - V_{t+1})."""
    steps = rewards.shape[0]
    vs = [values[steps]]
    for t in range(steps - 1, -1, -1):
        delta = rho[t] * (rewards[t] + discounts[t] * values[t + 1] - values[t])
        vs.append(values[t] + delta + discounts[t] * c[t] * (vs[-1] - values[t + 1]))
    return torch.stack(vs[::-1])


def retrace(q_taken: torch.Tensor, rewards: torch.Tensor, discounts: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """The paper's Retrace, with the sampled next action (`c` has T+1 rows; c[0] is unused).

    qs_T = Q_T(a_T); qs_t = r_t + g_t (c_{t+1} qs_{t+1} + (1 - c_{t+1}) Q_{t+1}(a_{t+1})).
    """
    steps = rewards.shape[0]
    qs = [q_taken[steps]]
    for t in range(steps - 1, -1, -1):
        nxt = c[t + 1] * qs[-1] + (1 - c[t + 1]) * q_taken[t + 1]
        qs.append(rewards[t] + discounts[t] * nxt)
    return torch.stack(qs[::-1])


def retrace_expected(q_taken: torch.Tensor, q_expected: torch.Tensor, rewards: torch.Tensor,
                     discounts: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Textbook Retrace (Munos et al.) with E_pi Q at the next state (`c` has T+1 rows).

    qs_T = E_pi Q_T; qs_t = r_t + g_t (E_pi Q_{t+1} + c_{t+1} (qs_{t+1} - Q_{t+1}(a_{t+1}))).
    """
    steps = rewards.shape[0]
    qs = [q_expected[steps]]
    for t in range(steps - 1, -1, -1):
        nxt = q_expected[t + 1] + c[t + 1] * (qs[-1] - q_taken[t + 1])
        qs.append(rewards[t] + discounts[t] * nxt)
    return torch.stack(qs[::-1])


def pg_advantage(vs: torch.Tensor, values: torch.Tensor, rewards: torch.Tensor, discounts: torch.Tensor,
                 rho: torch.Tensor) -> torch.Tensor:
    """IMPALA's advantage: rho_t (r_t + g_t vs_{t+1} - V_t), T rows."""
    return rho * (rewards + discounts * vs[1:] - values[:-1])
