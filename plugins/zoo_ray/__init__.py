"""The ray backend: a run's trial groups as Ray tasks, on a private Ray of this machine or on a cluster (docs/ray.md)."""
