"""Behavior policies built from advantages: Boltzmann components and their mixtures, in log space."""

from __future__ import annotations

import math

import torch


def boltzmann_log_probs(logits: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    """log softmax(beta * logits) over the last axis; beta = 0 is uniform, beta = inf is argmax.

    `beta` broadcasts against ``logits[..., 0]``. At beta = inf the argmax action (first one on
    ties) gets log-probability 0 and every other action -inf.
    """
    beta = beta.to(logits.dtype).unsqueeze(-1)
    greedy = torch.isinf(beta)
    soft = torch.log_softmax(torch.where(greedy, torch.zeros_like(beta), beta) * logits, dim=-1)
    if not bool(greedy.any()):
        return soft
    best = logits.argmax(dim=-1, keepdim=True)
    onehot = torch.full_like(logits, -math.inf).scatter(-1, best, 0.0)
    return torch.where(greedy, onehot, soft)


def mixture_log_probs(
    logits1: torch.Tensor, logits2: torch.Tensor, beta1: torch.Tensor, beta2: torch.Tensor, eps: torch.Tensor,
) -> torch.Tensor:
    """log( eps * softmax(beta1 * logits1) + (1 - eps) * softmax(beta2 * logits2) ), by logsumexp.

    eps in {0, 1} is exact: the absent component gets log weight -inf. An action both components
    exclude (a greedy component alone) gets -inf and no gradient; logaddexp's own gradient there
    would be exp(-inf - -inf), NaN, and would reach every weight through the other actions.
    """
    eps = eps.to(logits1.dtype).unsqueeze(-1)
    first = torch.log(eps) + boltzmann_log_probs(logits1, beta1)  # log(0) = -inf
    second = torch.log1p(-eps) + boltzmann_log_probs(logits2, beta2)
    excluded = torch.isneginf(first) & torch.isneginf(second)
    both = torch.logaddexp(first.masked_fill(excluded, 0.0), second.masked_fill(excluded, 0.0))
    return both.masked_fill(excluded, -math.inf)
