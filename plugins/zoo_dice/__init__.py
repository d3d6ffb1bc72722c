"""DiCE (Xiao, Shi, Fan, Deng: "An Entropy Regularization Free Mechanism for Policy-based Reinforcement
Learning"): Boltzmann behaviors over the advantage head, a temperature per episode from the Bandits Vote
Algorithm, and a tau-scaled policy gradient without an entropy term, on the zoo_learner substrate."""
