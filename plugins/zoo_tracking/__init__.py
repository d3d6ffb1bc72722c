"""Experiment trackers: TensorBoard (on by default), MLflow and Weights & Biases, each a `zoo.TrackerEntry`."""
