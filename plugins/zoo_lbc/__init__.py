"""LBC (Fan et al.: "Learnable Behavior Control: Breaking Atari Human World Records via Sample-Efficient
Behavior Selection"): a population of separately trained actor-critics mixed into one behavior
mu = sum_i omega_i softmax(tau_i A_i), with psi = (tau_i, omega_i) chosen per episode by a voting
population of UCB bandits, on the zoo_learner substrate."""
