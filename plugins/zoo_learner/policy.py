"""Behavior policies built from advantages: Boltzmann components and their mixtures, in log space.

Each takes an optional `legal` mask (bool, broadcasting against the logits; True: the action may be
taken). Illegal actions get probability 0 and the rest are renormalized component by component: a
Boltzmann component is the softmax over the legal actions, beta = 0 the uniform policy over them, and
beta = inf the argmax among them. Without a mask every action is legal.
"""

from __future__ import annotations

import math

import torch


def legal_or_all(legal: torch.Tensor) -> torch.Tensor:
    """`legal` with every action legal on the rows where none is (a sequence's padding, or an env's final
    observation, whose action is ignored and which may have no legal move)."""
    return legal | ~legal.any(-1, keepdim=True)


def boltzmann_log_probs(logits: torch.Tensor, beta: torch.Tensor, legal: torch.Tensor | None = None) -> torch.Tensor:
    """log softmax(beta * logits) over the last axis; beta = 0 is uniform, beta = inf is argmax.

    `beta` broadcasts against ``logits[..., 0]``. At beta = inf the argmax action (first one on
    ties) gets log-probability 0 and every other action -inf. With `legal`, the softmax, the uniform
    policy and the argmax are taken over the legal actions (all of them on rows with none legal, such
    as padding); the others get -inf.
    """
    beta = beta.to(logits.dtype).unsqueeze(-1)
    greedy = torch.isinf(beta)
    scaled = torch.where(greedy, torch.zeros_like(beta), beta) * logits
    if legal is not None:
        legal = legal_or_all(legal)
        scaled = scaled.masked_fill(~legal, -math.inf)
    soft = torch.log_softmax(scaled, dim=-1)
    if not bool(greedy.any()):
        return soft
    best = (logits if legal is None else logits.masked_fill(~legal, -math.inf)).argmax(dim=-1, keepdim=True)
    onehot = torch.full_like(logits, -math.inf).scatter(-1, best, 0.0)
    return torch.where(greedy, onehot, soft)


def mixture_log_probs(
    logits1: torch.Tensor, logits2: torch.Tensor, beta1: torch.Tensor, beta2: torch.Tensor, eps: torch.Tensor,
    legal: torch.Tensor | None = None,
) -> torch.Tensor:
    """log( eps * softmax(beta1 * logits1) + (1 - eps) * softmax(beta2 * logits2) ), by logsumexp.

    eps in {0, 1} is exact: the absent component gets log weight -inf. An action both components
    exclude (a greedy component alone, or an illegal action) gets -inf and no gradient; logaddexp's
    own gradient there would be exp(-inf - -inf), NaN, and would reach every weight through the
    other actions. With `legal`, each component is masked (`boltzmann_log_probs`).
    """
    eps = eps.to(logits1.dtype).unsqueeze(-1)
    first = torch.log(eps) + boltzmann_log_probs(logits1, beta1, legal)  # log(0) = -inf
    second = torch.log1p(-eps) + boltzmann_log_probs(logits2, beta2, legal)
    excluded = torch.isneginf(first) & torch.isneginf(second)
    both = torch.logaddexp(first.masked_fill(excluded, 0.0), second.masked_fill(excluded, 0.0))
    return both.masked_fill(excluded, -math.inf)


def masked_log_softmax(logits: torch.Tensor, legal: torch.Tensor | None = None) -> torch.Tensor:
    """log softmax(logits) over the last axis, over the `legal` actions when given (the others -inf)."""
    if legal is None:
        return torch.log_softmax(logits, -1)
    return torch.log_softmax(logits.masked_fill(~legal_or_all(legal), -math.inf), -1)
