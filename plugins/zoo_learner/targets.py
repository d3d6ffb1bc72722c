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
    # IMPALA's V-trace target (Espeholt et al. 2018, Section 4.1; GDI Appendix B.2) in its backward
    # recursive form (their Remark 1): vs_t - V_t = delta_t + g_t c_t (vs_{t+1} - V_{t+1}), with the
    # rho-clipped TD error delta_t. Walking t from the last row to the first costs O(T) instead of
    # the O(T^2) of the forward sum of products of c's. The bootstrap row starts it: vs_T = V_T.
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
    # The form GDI (Appendix B.1) and DiCE print: the next state's value is a c-weighted blend of the
    # corrected return qs_{t+1} and the sampled action's own estimate Q_{t+1}(a_{t+1}); c = 1 gives
    # the uncorrected n-step return, c = 0 one-step bootstrapping from Q(a_{t+1}). c is indexed by
    # the row it cuts, t + 1, hence its T + 1 rows.
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
    # Munos, Stepleton, Harutyunyan and Bellemare 2016 ("Safe and Efficient Off-Policy Reinforcement
    # Learning") written recursively: bootstrap from E_pi Q at the next state, then add the
    # trace-cut correction c_{t+1} (qs_{t+1} - Q_{t+1}(a_{t+1})) for the action that was taken. With
    # c = 0 this is expected SARSA; it is the form LBC (Appendix B.3) and DiCE's default use.
    steps = rewards.shape[0]
    qs = [q_expected[steps]]
    for t in range(steps - 1, -1, -1):
        nxt = q_expected[t + 1] + c[t + 1] * (qs[-1] - q_taken[t + 1])
        qs.append(rewards[t] + discounts[t] * nxt)
    return torch.stack(qs[::-1])


def pg_advantage(vs: torch.Tensor, values: torch.Tensor, rewards: torch.Tensor, discounts: torch.Tensor,
                 rho: torch.Tensor) -> torch.Tensor:
    """IMPALA's advantage: rho_t (r_t + g_t vs_{t+1} - V_t), T rows."""
    # Espeholt et al. 2018, Section 4.2: the policy gradient's advantage bootstraps from the V-trace
    # target vs_{t+1}, not from V_{t+1}, and is weighted by the clipped ratio rho_t of the row.
    return rho * (rewards + discounts * vs[1:] - values[:-1])
