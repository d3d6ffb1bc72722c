"""The actor / replay / learner substrate shared by GDI, DiCE and LBC.

An agent on the substrate supplies a :class:`~zoo_learner.contracts.AgentBuilder` and declares a
:class:`zoo.BehaviorSpace`; a meta-controller (any plugin that implements :class:`zoo.MetaController`) picks a point of it per episode and sees only episode returns.
The :class:`~zoo_learner.actor.VectorActor` acts with that behavior and writes fixed-length sequences
(burn-in, trained steps, one bootstrap step) with their stored recurrent state and behavior
probabilities into a :class:`~zoo_learner.replay.SequenceReplay`; the
:class:`~zoo_learner.learner.Learner` unrolls them, applies an agent's loss built from the loss kit
:mod:`zoo_learner.losses` (ratios, V-trace, Retrace, policy gradient; reward shapings in
:mod:`zoo_learner.shaping`) and pushes weights to a
:class:`~zoo_learner.learner.ParameterServer` that actors pull from with a lag.
"""
