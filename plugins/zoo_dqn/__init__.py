"""The GOHR paper's linear DQN (appendix A.1.2), trained many trials at once."""
