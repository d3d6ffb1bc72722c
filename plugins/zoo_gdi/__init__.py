"""GDI-I3 and GDI-H3 (Fan, Xiao, Huang: "GDI: Rethinking What Makes Reinforcement Learning Different
from Supervised Learning"), with the paper's ablations, on the zoo_learner substrate."""
