"""stable-baselines3 algorithms as zoo agents."""
