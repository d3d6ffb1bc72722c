"""The behavior family eps*softmax(beta1*A1) + (1-eps)*softmax(beta2*A2) and the reward transforms."""

import math

import pytest
import torch
from zoo_learner.policy import boltzmann_log_probs, mixture_log_probs
from zoo_learner.shaping import h_log, h_pow

A = torch.tensor([[0.3, -1.2, 2.0, 0.5], [1.0, 1.0, -3.0, 0.0]])


def mix(beta1, beta2, eps, a1=A, a2=A):
    n = a1.shape[0]
    return mixture_log_probs(a1, a2, torch.full((n,), float(beta1)), torch.full((n,), float(beta2)),
                             torch.full((n,), float(eps)))


@pytest.mark.parametrize("beta1,beta2,eps", [(0, 0, 0.5), (1, 0, 1), (50, 50, 0), (3.7, 12, 0.3), (0, 50, 1)])
def test_probabilities_are_finite_and_sum_to_one(beta1, beta2, eps):
    logp = mix(beta1, beta2, eps)
    assert torch.isfinite(logp).all()
    assert torch.allclose(logp.exp().sum(-1), torch.ones(2), atol=1e-6)


def test_uniform_and_greedy_corners():
    assert torch.allclose(mix(0, 7, 1).exp(), torch.full((2, 4), 0.25))
    greedy = mix(3, 50, 0).exp()
    assert greedy[0, 2] > 0.999999


def test_log_space_equals_the_explicit_mixture():
    a2 = torch.randn(2, 4, generator=torch.Generator().manual_seed(0))
    explicit = 0.3 * torch.softmax(2.0 * A, -1) + 0.7 * torch.softmax(0.5 * a2, -1)
    assert torch.allclose(mix(2.0, 0.5, 0.3, A, a2), explicit.log(), atol=1e-6)


def test_special_cases_eps_greedy_and_boltzmann():
    eps_greedy = mixture_log_probs(A, A, torch.zeros(2), torch.full((2,), math.inf), torch.full((2,), 0.2)).exp()
    expected = torch.full((2, 4), 0.05)
    expected[0, 2] += 0.8
    expected[1, 0] += 0.8  # first of the tied maxima
    assert torch.allclose(eps_greedy, expected)
    assert torch.allclose(mix(1.5, 1.5, 0.4).exp(), torch.softmax(1.5 * A, -1), atol=1e-6)
    assert torch.allclose(mix(1.5, 9.0, 1.0).exp(), torch.softmax(1.5 * A, -1), atol=1e-6)


def test_each_row_uses_its_own_behavior():
    logp = mixture_log_probs(A, A, torch.tensor([0.0, 2.0]), torch.tensor([0.0, 2.0]), torch.tensor([1.0, 1.0]))
    assert torch.allclose(logp[0].exp(), torch.full((4,), 0.25))
    assert torch.allclose(logp[1].exp(), torch.softmax(2.0 * A[1], -1))


def test_greedy_component_without_inf():
    assert torch.allclose(boltzmann_log_probs(A, torch.tensor([0.0, 0.0])).exp(), torch.full((2, 4), 0.25))


def test_reward_shaping_values():
    r = torch.tensor([1.0, -1.0, 0.0, 10.0])
    assert torch.allclose(h_log(r), torch.tensor([1.386294, -0.693147, 0.0, 2 * math.log(11)]), atol=1e-6)
    assert torch.allclose(h_pow(r), torch.tensor([0.190207, -0.190207, 0.0, 11 ** 0.25 - 1 + 0.01]), atol=1e-6)


@pytest.mark.parametrize("eps", [0.0, 0.3, 1.0])
def test_greedy_and_uniform_mixtures_have_zero_not_nan_gradients(eps):
    """eps * uniform + (1 - eps) * greedy does not depend on the advantages' values (only on the argmax),
    also at eps = 0 where the greedy component alone leaves -inf on the other actions."""
    logits = A.clone().requires_grad_()
    n = A.shape[0]
    logp = mixture_log_probs(logits, logits, torch.zeros(n), torch.full((n,), math.inf), torch.full((n,), eps))
    taken = logp.gather(-1, torch.tensor([[2], [0]])).sum()  # the greedy actions, with probability > 0
    (grad,) = torch.autograd.grad(taken, logits)
    assert torch.equal(grad, torch.zeros_like(grad))
    assert torch.isneginf(logp).sum() == (6 if eps == 0.0 else 0)


def reference_mixture(logits1, logits2, beta1, beta2, eps):
    """eps softmax(beta1 l1) + (1 - eps) softmax(beta2 l2) one row at a time, in probabilities (beta = inf: argmax)."""
    def component(logits, beta):
        if math.isinf(beta):
            return torch.nn.functional.one_hot(logits.argmax(), len(logits)).double()
        return torch.softmax(beta * logits.double(), -1)
    return eps * component(logits1, beta1) + (1 - eps) * component(logits2, beta2)


def test_leading_axes_are_batch_axes_with_greedy_and_soft_rows_mixed():
    """Logits (T, B, A) with one (beta1, beta2, eps) per (t, b), some greedy and some not, give each row its own
    mixture: the time-major layout the losses evaluate their batches in."""
    generator = torch.Generator().manual_seed(1)
    logits1, logits2 = torch.randn(3, 2, 5, generator=generator), torch.randn(3, 2, 5, generator=generator)
    inf = math.inf
    beta1 = torch.tensor([[0.0, 2.0], [inf, 0.5], [1.0, inf]])
    beta2 = torch.tensor([[inf, 3.0], [inf, inf], [0.0, 7.0]])
    eps = torch.tensor([[0.25, 1.0], [0.6, 0.0], [0.0, 0.5]])
    logp = mixture_log_probs(logits1, logits2, beta1, beta2, eps)
    for t in range(3):
        for b in range(2):
            expected = reference_mixture(logits1[t, b], logits2[t, b], float(beta1[t, b]), float(beta2[t, b]),
                                         float(eps[t, b]))
            assert torch.allclose(logp[t, b].double().exp(), expected, rtol=0, atol=1e-6)
            assert torch.equal(torch.isneginf(logp[t, b]), expected == 0)
    boltzmann = boltzmann_log_probs(logits1, beta1)
    for t in range(3):
        for b in range(2):
            expected = reference_mixture(logits1[t, b], logits1[t, b], float(beta1[t, b]), 0.0, 1.0)
            assert torch.allclose(boltzmann[t, b].double().exp(), expected, rtol=0, atol=1e-6)
